import Foundation
import Testing
import TestSupport

/// `marmot relays`: list with connection state, add and remove through the core, saved for later runs.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct RelaysCommandTests {
    @Test func addListRemoveAndTheFileIsUsedNextTime() async throws {
        let first = try await TestRelay.start()
        let second = try await TestRelay.start()
        let home = try TestHome("relays")
        defer { home.remove() }
        _ = try await CLI.createAccount(home, relay: first.url)

        let added = try await CLI.run(["relays", "add", second.url, "--json", "--relay", first.url], home: home)
        #expect(added.status == 0, "\(added)")
        #expect(added.objects.compactMap { $0["url"] as? String } == [first.url, second.url], "\(added)")
        let saved = try String(contentsOf: home.url.appendingPathComponent("relays"), encoding: .utf8)
        #expect(saved == "\(first.url)\n\(second.url)\n")

        // No --relay now: the saved file is the configuration; both relays connect.
        var listed: [[String: Any]] = []
        for _ in 0..<5 where listed.filter({ $0["connected"] as? Bool == true }).count < 2 {
            listed = try await CLI.run(["relays", "--json"], home: home).objects
        }
        #expect(listed.compactMap { $0["url"] as? String } == [first.url, second.url])
        #expect(listed.allSatisfy { $0["connected"] as? Bool == true }, "\(listed)")

        let removed = try await CLI.run(["relays", "remove", first.url, "--json"], home: home)
        #expect(removed.status == 0, "\(removed)")
        #expect(removed.objects.compactMap { $0["url"] as? String } == [second.url])
        let bad = try await CLI.run(["relays", "add", "https://nope.example"], home: home)
        #expect(bad.status != 0, "\(bad)")
        await first.stop()
        await second.stop()
    }
}
