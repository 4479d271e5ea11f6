import Foundation
import Testing
import TestSupport

/// Two homes on rust-nostr's relay with NIP-42 (issue 44), only through the CLI: the account key
/// answers AUTH on the user's own relays, so an inbox relay that serves gift wraps only to their
/// recipient delivers the Welcome, and a relay that wants AUTH for everything works.
@Suite(.serialized, .timeLimit(.minutes(4)))
struct AuthRelayCommandTests {
    @Test(.enabled(if: AuthRelay.shouldRun, "interop venv not found"))
    func inviteReachesTheInviteeOnAnAuthDMRelay() async throws {
        let (relay, url) = try await AuthRelay.start(.authDM)
        try await Self.chatBothWays(on: url, names: ("alice-dm", "bob-dm"))
        await relay.stop()
    }

    @Test(.enabled(if: AuthRelay.shouldRun, "interop venv not found"))
    func everythingWorksOnARelayThatWantsAuthForReadsAndWrites() async throws {
        let (relay, url) = try await AuthRelay.start(.both)
        try await Self.chatBothWays(on: url, names: ("alice-auth", "bob-auth"))
        await relay.stop()
    }

    /// Accounts (with their key packages), a chat from the first to the second, a message each way,
    /// and `relays --json` saying both authenticated.
    static func chatBothWays(on url: String, names: (String, String)) async throws {
        let alice = try TestHome(names.0), bob = try TestHome(names.1)
        defer {
            alice.remove()
            bob.remove()
        }
        _ = try await CLI.createAccount(alice, relay: url)
        let bobNpub = try await CLI.createAccount(bob, relay: url)
        let chatID = try await CLI.openAcceptedChat(alice, with: bobNpub, peer: bob, relays: [url])

        let sent = try await CLI.run(["send", chatID, "hi bob", "--json", "--relay", url], home: alice)
        #expect(sent.status == 0 && (try? sent.object()["delivery"] as? String) == "sent", "\(sent)")
        let reply = try await CLI.run(["send", chatID, "hi alice", "--json", "--relay", url], home: bob)
        #expect(reply.status == 0 && (try? reply.object()["delivery"] as? String) == "sent", "\(reply)")
        for (home, text) in [(bob, "hi bob"), (alice, "hi alice")] {
            let read = try await CLI.run(["messages", chatID, "--json", "--relay", url], home: home)
            #expect(read.status == 0, "\(read)")
            #expect(read.objects.contains { $0["text"] as? String == text }, "\(home.url.lastPathComponent): \(read)")
        }

        let listed = try await CLI.run(["relays", "--json", "--relay", url], home: bob)
        #expect(listed.status == 0, "\(listed)")
        let row = try #require(listed.objects.first, "\(listed)")
        #expect(row["auth"] as? String == "authenticated", "\(row)")
        #expect(row["authReason"] == nil || row["authReason"] is NSNull, "\(row)")
        #expect((row["status"] as? String)?.contains("authenticated") == true, "\(row)")
    }
}
