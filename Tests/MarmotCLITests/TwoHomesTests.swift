import Foundation
import Testing
import TestSupport

/// Two `$MARMOT_HOME`s talking through one `marmot relay` subprocess, only through the CLI.
@Suite(.serialized, .timeLimit(.minutes(4)))
struct TwoHomesTests {
    @Test func sendListenReplyAndChats() async throws {
        let relay = try await TestRelay.start()
        let alice = try TestHome("alice"), bob = try TestHome("bob")
        defer {
            alice.remove()
            bob.remove()
        }
        let aliceNpub = try await CLI.createAccount(alice, relay: relay.url)
        let bobNpub = try await CLI.createAccount(bob, relay: relay.url)

        // Bob listens while Alice starts the chat and sends.
        let bobListen = try CLI.start(["listen", "--json", "--timeout", "90", "--relay", relay.url], home: bob, name: "bob listen")
        let ready = await bobListen.nextJSON(timeout: 30)
        #expect(ready?["type"] as? String == "listening" && ready?["npub"] as? String == bobNpub, "\(String(describing: ready))")

        let opened = try await CLI.run(["chat", "new", bobNpub, "--json", "--relay", relay.url], home: alice)
        #expect(opened.status == 0, "\(opened)")
        let chatID = try #require(try opened.object()["chat"] as? String)
        #expect(try opened.object()["created"] as? Bool == true)

        // `send` to the npub finds that chat; `chat new` again finds it too.
        let sent = try await CLI.run(["send", bobNpub, "hi", "--json", "--relay", relay.url], home: alice)
        #expect(sent.status == 0, "\(sent)")
        let sentObject = try sent.object()
        #expect(sentObject["delivery"] as? String == "sent")
        #expect(sentObject["peer"] as? String == bobNpub)
        #expect(sentObject["chat"] as? String == chatID)
        let again = try await CLI.run(["chat", "new", bobNpub, "--json", "--relay", relay.url], home: alice)
        #expect(try again.object()["chat"] as? String == chatID)
        #expect(try again.object()["created"] as? Bool == false)

        // Bob's listener shows the invitation and never accepts it on its own.
        let invite = try await Self.next(bobListen, type: "invite") { $0["peer"] as? String == aliceNpub }
        let inviteID = try #require(invite["invite"] as? String)
        #expect((invite["text"] as? String)?.contains("invites you to a chat") == true, "\(invite)")
        await bobListen.stop()
        #expect(await bobListen.exitStatus(timeout: 10) == 0)

        // Bob's lists: the invitation, above no chat.
        let pending = try await CLI.run(["invites", "--json", "--relay", relay.url], home: bob)
        #expect(pending.status == 0, "\(pending)")
        let pendingRow = try pending.object()
        #expect(pendingRow["id"] as? String == inviteID)
        #expect(pendingRow["inviter"] as? String == aliceNpub)
        #expect(pendingRow["members"] as? Int == 2)
        let before = try await CLI.run(["chats", "--json", "--relay", relay.url], home: bob)
        #expect(before.status == 0, "\(before)")
        #expect(before.objects.map { $0["type"] as? String } == ["invite"], "\(before)")

        // An unknown id is its own error; the real one joins the chat Alice created.
        let unknown = try await CLI.run(["accept", "ffff0000", "--relay", relay.url], home: bob)
        #expect(unknown.status == 9, "\(unknown)")
        #expect(unknown.stderr.contains("no pending invitation ffff0000"), "\(unknown)")
        let accepted = try await CLI.run(["accept", inviteID, "--json", "--relay", relay.url], home: bob)
        #expect(accepted.status == 0, "\(accepted)")
        #expect(try accepted.object()["chat"] as? String == chatID)
        #expect(try accepted.object()["accepted"] as? Bool == true)

        // Bob's chat list: one chat with Alice, previewing "hi"; no invitation left.
        let bobChats = try await CLI.run(["chats", "--json", "--relay", relay.url], home: bob)
        #expect(bobChats.status == 0, "\(bobChats)")
        let row = try #require(bobChats.objects.first, "\(bobChats)")
        #expect(bobChats.objects.count == 1)
        #expect(row["type"] as? String == "chat")
        #expect(row["id"] as? String == chatID)
        #expect(row["peer"] as? String == aliceNpub)
        #expect(row["group"] as? Bool == false)
        // Two of our clients speak v2 (issue 18: the protocol is listed, typed and labelled).
        #expect(row["protocol"] as? String == "v2", "\(row)")
        #expect(row["protocolLabel"] as? String == "Marmot v2", "\(row)")
        #expect(row["lastMessage"] as? String == "hi")
        #expect((row["preview"] as? String)?.contains("hi") == true)
        let none = try await CLI.run(["invites", "--json", "--relay", relay.url], home: bob)
        #expect(none.status == 0 && none.objects.isEmpty, "\(none)")

        // Bob replies by chat id; Alice, offline meanwhile, catches up when she listens.
        let reply = try await CLI.run(["send", chatID, "hello alice", "--json", "--relay", relay.url], home: bob)
        #expect(reply.status == 0, "\(reply)")
        #expect(try reply.object()["delivery"] as? String == "sent")

        let aliceListen = try CLI.start(["listen", "--json", "--timeout", "60", "--relay", relay.url], home: alice, name: "alice listen")
        let answer = try await Self.next(aliceListen, type: "message") { $0["text"] as? String == "hello alice" }
        #expect(answer["peer"] as? String == bobNpub)
        await aliceListen.stop()

        let aliceChats = try await CLI.run(["chats", "--relay", relay.url], home: alice)
        #expect(aliceChats.status == 0, "\(aliceChats)")
        #expect(aliceChats.stdout.contains("1 unread") && aliceChats.stdout.contains("hello alice"), "\(aliceChats)")
        #expect(aliceChats.stdout.contains("\(bobNpub)  Marmot v2  1 unread"), "\(aliceChats)")
        await relay.stop()
    }

    /// A declined invitation leaves nothing: no chat, no pending invitation.
    @Test func declineLeavesNoChat() async throws {
        let relay = try await TestRelay.start()
        let carol = try TestHome("carol"), bob = try TestHome("bob")
        defer {
            carol.remove()
            bob.remove()
        }
        let carolNpub = try await CLI.createAccount(carol, relay: relay.url)
        let bobNpub = try await CLI.createAccount(bob, relay: relay.url)
        let opened = try await CLI.run(["chat", "new", bobNpub, "--json", "--relay", relay.url], home: carol)
        #expect(opened.status == 0, "\(opened)")

        var inviteID: String?
        for _ in 0..<10 where inviteID == nil {
            let listed = try await CLI.run(["invites", "--json", "--relay", relay.url], home: bob)
            inviteID = listed.objects.first { $0["inviter"] as? String == carolNpub }?["id"] as? String
        }
        let id = try #require(inviteID, "no invitation from carol")
        let declined = try await CLI.run(["decline", id, "--json", "--relay", relay.url], home: bob)
        #expect(declined.status == 0, "\(declined)")
        #expect(try declined.object()["accepted"] as? Bool == false)
        let again = try await CLI.run(["decline", id, "--relay", relay.url], home: bob)
        #expect(again.status == 9, "\(again)")
        let chats = try await CLI.run(["chats", "--json", "--relay", relay.url], home: bob)
        #expect(chats.status == 0 && chats.objects.isEmpty, "\(chats)")
        await relay.stop()
    }

    /// The next JSON line of `type` satisfying `predicate`, skipping others.
    static func next(
        _ process: ChildProcess, type: String, timeout: Double = 60, where predicate: ([String: Any]) -> Bool
    ) async throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0 {
            guard let object = await process.nextJSON(timeout: deadline.timeIntervalSinceNow) else { break }
            if object["type"] as? String == type, predicate(object) { return object }
        }
        throw HarnessError.unexpectedOutput("\(process.name): no \(type) line within \(timeout) s")
    }
}
