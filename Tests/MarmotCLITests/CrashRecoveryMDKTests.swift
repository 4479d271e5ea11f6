import Foundation
import Testing
import TestSupport

/// Nothing lost on a crash, with the MDK 0.8.0 peer on the other side: `marmot send` killed after
/// encrypting (and, in a second run, after the relay has the event); MDK ends with exactly one copy
/// of every message, in order.
@Suite(.serialized, .timeLimit(.minutes(4)), .enabled(if: InteropKit.shouldRun, "interop kit (shared/interop + venv) not found"))
struct CrashRecoveryMDKTests {
    @Test(arguments: ["after-encrypt", "after-publish"])
    func mdkGetsEachMessageOnceAfterACrash(crashAt point: String) async throws {
        let home = try TestHome("crash-mdk")
        defer { home.remove() }
        try await MDKOnRelay.run(publishKeyPackage: true) { peer in
            let (mdk, mdkNpub, url) = (peer.mdk, peer.npub, peer.url)
            _ = try await CLI.createAccount(home, relay: url)

            let first = try await CLI.run(["send", mdkNpub, "before the crash", "--json", "--relay", url], home: home)
            #expect(first.status == 0, "\(first)")
            let welcome = try await mdk.waitForEvent("welcome")
            let group = try #require(welcome.string("group_id"))
            _ = try await mdk.waitForEvent("message") { $0.string("text") == "before the crash" }
            try await Task.sleep(for: .milliseconds(1100))

            let crashed = try await CLI.run(
                ["send", mdkNpub, "killed at \(point)", "--relay", url], home: home, environment: ["MARMOT_TEST_CRASH_AT": point])
            #expect(crashed.status != 0, "\(crashed)")
            let restarted = try await CLI.run(["listen", "--json", "--timeout", "6", "--relay", url], home: home)
            #expect(restarted.status == 0 || restarted.status == 7, "\(restarted)")
            try await Task.sleep(for: .milliseconds(1100))
            let after = try await CLI.run(["send", mdkNpub, "after the restart", "--json", "--relay", url], home: home)
            #expect(after.status == 0, "\(after)")
            _ = try await mdk.waitForEvent("message") { $0.string("text") == "after the restart" }

            let history = try await mdk.call(["cmd": "messages", "group_id": group])
            let texts = (history["messages"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String ?? $0["content"] as? String }
            #expect(texts == ["before the crash", "killed at \(point)", "after the restart"], "\(history)")
            let errors = await mdk.reportedErrors
            #expect(errors.isEmpty, "MDK rejected: \(errors)")
        }
    }
}
