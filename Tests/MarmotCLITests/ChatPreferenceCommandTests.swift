import Foundation
import Testing

/// Issue 48: `marmot mute`/`unmute`/`archive`/`unarchive` and `block`/`unblock`/`blocked`, each a
/// separate run of the real binary, so everything checked here was kept across restarts.
@Suite(.serialized, .timeLimit(.minutes(4)))
struct ChatPreferenceCommandTests {
    /// The row of `chat` in `marmot chats --json` (with `extra` arguments), nil when not listed.
    static func row(_ chat: String, _ home: TestHome, relay: String, _ extra: [String] = []) async throws -> [String: Any]? {
        let listed = try await CLI.run(["chats", "--json", "--relay", relay] + extra, home: home)
        #expect(listed.status == 0, "\(listed)")
        return listed.objects.first { $0["type"] as? String == "chat" && $0["id"] as? String == chat }
    }

    @Test func muteAndArchiveAreKeptAndAnArchivedChatComesBackOnANewMessage() async throws {
        let relay = try await TestRelay.start()
        let alice = try TestHome("alice"), bob = try TestHome("bob")
        defer {
            alice.remove()
            bob.remove()
        }
        _ = try await CLI.createAccount(alice, relay: relay.url)
        let bobNpub = try await CLI.createAccount(bob, relay: relay.url)
        let chat = try await CLI.openAcceptedChat(alice, with: bobNpub, peer: bob, relays: [relay.url])

        // A timed mute, shown in --json with its end.
        let before = Int(Date().timeIntervalSince1970)
        let muted = try await CLI.run(["mute", chat, "--for", "8h", "--json", "--relay", relay.url], home: alice)
        #expect(muted.status == 0, "\(muted)")
        var row = try #require(try await Self.row(chat, alice, relay: relay.url))
        #expect(row["muted"] as? Bool == true && row["archived"] as? Bool == false, "\(row)")
        let until = try #require(row["mutedUntil"] as? Int, "\(row)")
        #expect(until >= before + 8 * 3600 && until <= before + 8 * 3600 + 120, "\(row)")
        let text = try await CLI.run(["chats", "--relay", relay.url], home: alice)
        #expect(text.stdout.contains("[muted until"), "\(text)")

        // For good (the default), then off again.
        #expect(try await CLI.run(["mute", chat, "--relay", relay.url], home: alice).status == 0)
        row = try #require(try await Self.row(chat, alice, relay: relay.url))
        #expect(row["muted"] as? Bool == true && row["mutedUntil"] as? Int == nil, "\(row)")
        #expect(try await CLI.run(["unmute", chat, "--relay", relay.url], home: alice).status == 0)
        row = try #require(try await Self.row(chat, alice, relay: relay.url))
        #expect(row["muted"] as? Bool == false, "\(row)")
        let bad = try await CLI.run(["mute", chat, "--for", "soon", "--relay", relay.url], home: alice)
        #expect(bad.status == 2, "\(bad)")

        // Archived: left out of `chats`, listed by `chats --archived`.
        let archived = try await CLI.run(["archive", chat, "--json", "--relay", relay.url], home: alice)
        #expect(archived.status == 0, "\(archived)")
        #expect(try archived.object()["archived"] as? Bool == true, "\(archived)")
        #expect(try await Self.row(chat, alice, relay: relay.url) == nil)
        row = try #require(try await Self.row(chat, alice, relay: relay.url, ["--archived"]))
        #expect(row["archived"] as? Bool == true, "\(row)")

        // Bob writes: the chat is not muted, so it comes back (and stays back).
        let sent = try await CLI.run(["send", chat, "are you there?", "--relay", relay.url], home: bob)
        #expect(sent.status == 0, "\(sent)")
        row = try #require(try await Self.row(chat, alice, relay: relay.url), "an archived chat comes back on a new message")
        #expect(row["archived"] as? Bool == false && row["unread"] as? Int == 1, "\(row)")
        #expect(try await Self.row(chat, alice, relay: relay.url, ["--archived"]) == nil)

        // Archived and muted: a message does not bring it back; unarchive does.
        #expect(try await CLI.run(["mute", chat, "--relay", relay.url], home: alice).status == 0)
        #expect(try await CLI.run(["archive", chat, "--relay", relay.url], home: alice).status == 0)
        #expect(try await CLI.run(["send", chat, "still there?", "--relay", relay.url], home: bob).status == 0)
        #expect(try await Self.row(chat, alice, relay: relay.url) == nil)
        row = try #require(try await Self.row(chat, alice, relay: relay.url, ["--archived"]))
        #expect(row["unread"] as? Int == 2 && row["muted"] as? Bool == true, "\(row)")
        #expect(try await CLI.run(["unarchive", chat, "--relay", relay.url], home: alice).status == 0)
        #expect(try await Self.row(chat, alice, relay: relay.url)?["archived"] as? Bool == false)
        await relay.stop()
    }

    @Test func blockDropsInvitationsHidesTheChatAndRefusesSendsUntilUnblocked() async throws {
        let relay = try await TestRelay.start()
        let alice = try TestHome("alice"), bob = try TestHome("bob")
        defer {
            alice.remove()
            bob.remove()
        }
        let aliceNpub = try await CLI.createAccount(alice, relay: relay.url)
        let bobNpub = try await CLI.createAccount(bob, relay: relay.url)
        let chat = try await CLI.openAcceptedChat(alice, with: bobNpub, peer: bob, relays: [relay.url])

        let blocked = try await CLI.run(["block", aliceNpub, "--json", "--relay", relay.url], home: bob)
        #expect(blocked.status == 0, "\(blocked)")
        let list = try await CLI.run(["blocked", "--json", "--relay", relay.url], home: bob)
        #expect(list.objects.map { $0["npub"] as? String } == [aliceNpub], "\(list)")
        #expect(try await Self.row(chat, bob, relay: relay.url) == nil, "the 1:1 is hidden")
        let refused = try await CLI.run(["send", aliceNpub, "hello?", "--relay", relay.url], home: bob)
        #expect(refused.status == 11, "\(refused)")
        #expect(refused.stderr.contains("blocked"), "\(refused)")

        // A new invitation from Alice is not listed.
        let group = try await CLI.run(["group", "create", "--name", "Party", bobNpub, "--json", "--relay", relay.url], home: alice)
        #expect(group.status == 0, "\(group)")
        let invites = try await CLI.run(["invites", "--json", "--relay", relay.url], home: bob)
        #expect(invites.status == 0 && invites.objects.isEmpty, "\(invites)")
        let chats = try await CLI.run(["chats", "--json", "--relay", relay.url], home: bob)
        #expect(!chats.objects.contains { $0["type"] as? String == "invite" }, "\(chats)")

        // Unblocked: the chat, the invitation and sending are back.
        #expect(try await CLI.run(["unblock", aliceNpub, "--relay", relay.url], home: bob).status == 0)
        let none = try await CLI.run(["blocked", "--relay", relay.url], home: bob)
        #expect(none.stdout.contains("Nobody is blocked"), "\(none)")
        #expect(try await Self.row(chat, bob, relay: relay.url) != nil)
        let restored = try await CLI.run(["invites", "--json", "--relay", relay.url], home: bob)
        #expect(restored.objects.count == 1, "\(restored)")
        let sent = try await CLI.run(["send", aliceNpub, "hello again", "--relay", relay.url], home: bob)
        #expect(sent.status == 0, "\(sent)")
        await relay.stop()
    }
}
