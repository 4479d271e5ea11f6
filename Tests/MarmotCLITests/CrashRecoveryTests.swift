import Foundation
import Testing
import TestSupport

/// Nothing lost on a crash: `marmot send` is killed with SIGKILL at each point of a send (stored but
/// not encrypted, encrypted but not published, published but the OK not recorded); the next start
/// sends the message by itself, and the peer ends with exactly one copy of every message, in order.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct CrashRecoveryTests {
    @Test(arguments: ["after-queue", "after-encrypt", "after-publish"])
    func sendKilledMidwayIsDeliveredOnceAfterRestart(crashAt point: String) async throws {
        let relay = try await TestRelay.start()
        let alice = try TestHome("alice"), bob = try TestHome("bob")
        defer {
            alice.remove()
            bob.remove()
        }
        _ = try await CLI.createAccount(alice, relay: relay.url)
        let bobNpub = try await CLI.createAccount(bob, relay: relay.url)
        let opened = try await CLI.run(["chat", "new", bobNpub, "--json", "--relay", relay.url], home: alice)
        #expect(opened.status == 0, "\(opened)")
        var inviteID: String?
        for _ in 0..<10 where inviteID == nil {
            inviteID = try await CLI.run(["invites", "--json", "--relay", relay.url], home: bob).objects.first?["id"] as? String
        }
        let accepted = try await CLI.run(["accept", try #require(inviteID), "--json", "--relay", relay.url], home: bob)
        #expect(accepted.status == 0, "\(accepted)")

        let first = try await CLI.run(["send", bobNpub, "before the crash", "--json", "--relay", relay.url], home: alice)
        #expect(first.status == 0, "\(first)")
        // Rumors are ordered by their second; keep the three apart so the expected order is defined.
        try await Task.sleep(for: .milliseconds(1100))
        let crashed = try await CLI.run(
            ["send", bobNpub, "killed at \(point)", "--relay", relay.url], home: alice,
            environment: ["MARMOT_TEST_CRASH_AT": point])
        #expect(crashed.status != 0, "the send was to be killed at \(point): \(crashed)")

        // Alice starts again (here: listens a few seconds); her outbox goes out on its own.
        let restarted = try await CLI.run(["listen", "--json", "--timeout", "6", "--relay", relay.url], home: alice)
        #expect(restarted.status == 0 || restarted.status == 7, "\(restarted)")
        let after = try await CLI.run(["send", bobNpub, "after the restart", "--json", "--relay", relay.url], home: alice)
        #expect(after.status == 0, "\(after)")
        #expect(try after.object()["delivery"] as? String == "sent")

        let bobSees = try await CLI.run(["listen", "--json", "--timeout", "6", "--relay", relay.url], home: bob)
        let texts = bobSees.objects.filter { $0["type"] as? String == "message" }.compactMap { $0["text"] as? String }
        #expect(texts == ["before the crash", "killed at \(point)", "after the restart"], "\(bobSees)")
        await relay.stop()
    }
}
