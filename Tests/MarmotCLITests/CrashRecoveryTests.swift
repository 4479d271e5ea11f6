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
        _ = try await CLI.openAcceptedChat(alice, with: bobNpub, peer: bob, relays: [relay.url])
        // Bob listens throughout and records every message line he is shown.
        let bobListen = try CLI.start(["listen", "--json", "--timeout", "120", "--relay", relay.url], home: bob, name: "bob listen")
        _ = try await TwoHomesTests.next(bobListen, type: "listening", timeout: 30) { _ in true }

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

        var texts: [String] = []
        while texts.last != "after the restart" {
            let line = try await TwoHomesTests.next(bobListen, type: "message", timeout: 30) { _ in true }
            texts.append(line["text"] as? String ?? "?")
        }
        try await Task.sleep(for: .seconds(1))
        while let extra = await bobListen.nextJSON(timeout: 0.5) {
            if extra["type"] as? String == "message" { texts.append(extra["text"] as? String ?? "?") }
        }
        await bobListen.stop()
        #expect(texts == ["before the crash", "killed at \(point)", "after the restart"])
        await relay.stop()
    }
}
