import Foundation
import Testing
import TestSupport

/// `marmot account name`: set, read back (from the relay in a new process), refusals.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct AccountNameTests {
    @Test func setReadBackAndRefuseKeyLookAlikes() async throws {
        let relay = try await TestRelay.start()
        let alice = try TestHome("alice")
        defer { alice.remove() }
        _ = try await CLI.createAccount(alice, relay: relay.url)
        let none = try await CLI.run(["account", "name", "--json", "--relay", relay.url], home: alice)
        #expect(none.status == 0, "\(none)")
        let set = try await CLI.run(["account", "name", "  Alice \t Liddell ", "--json", "--relay", relay.url], home: alice)
        #expect(set.status == 0, "\(set)")
        #expect(try set.object()["name"] as? String == "Alice Liddell")
        let read = try await CLI.run(["account", "name", "--json", "--relay", relay.url], home: alice)
        #expect(try read.object()["name"] as? String == "Alice Liddell", "\(read)")
        let lookAlike = try await CLI.run(["account", "name", "npub1qqqqqqqq", "--relay", relay.url], home: alice)
        #expect(lookAlike.status != 0, "\(lookAlike)")
        await relay.stop()
    }
}
