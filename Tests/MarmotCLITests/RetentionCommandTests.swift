import Foundation
import Testing

/// `marmot group retention`: an admin sets disappearing messages; the change prints the chat as it is
/// after it, and a duration that is not one is a usage error.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct RetentionCommandTests {
    @Test func adminSetsAndClearsRetention() async throws {
        let relay = try await TestRelay.start()
        let alice = try TestHome("alice"), bob = try TestHome("bob")
        defer {
            alice.remove()
            bob.remove()
        }
        _ = try await CLI.createAccount(alice, relay: relay.url)
        let bobNpub = try await CLI.createAccount(bob, relay: relay.url)
        let created = try await CLI.run(["group", "create", "--name", "Fleeting", bobNpub, "--json", "--relay", relay.url], home: alice)
        let chat = try #require(try created.object()["chat"] as? String, "\(created)")

        let set = try await CLI.run(["group", "retention", chat, "1d", "--json", "--relay", relay.url], home: alice)
        #expect(set.status == 0, "\(set)")
        #expect(try set.object()["retentionSeconds"] as? Int == 86_400, "\(set)")
        let off = try await CLI.run(["group", "retention", chat, "off", "--json", "--relay", relay.url], home: alice)
        #expect(try off.object()["retentionSeconds"] as? Int == 0, "\(off)")
        let bad = try await CLI.run(["group", "retention", chat, "soon", "--relay", relay.url], home: alice)
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("duration"), "\(bad)")
        await relay.stop()
    }
}
