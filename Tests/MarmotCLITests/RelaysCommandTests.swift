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

    /// A relay Bob did not choose, named by a chat's group (Alice's second relay), is listed after
    /// his own with the chat that brought it (issue 26).
    @Test func groupRelaysAreListedWithTheChatThatBroughtThem() async throws {
        let first = try await TestRelay.start()
        let second = try await TestRelay.start()
        let alice = try TestHome("alice"), bob = try TestHome("bob")
        defer {
            alice.remove()
            bob.remove()
        }
        _ = try await CLI.createAccount(alice, relay: first.url)
        let bobNpub = try await CLI.createAccount(bob, relay: first.url)
        _ = try await CLI.openAcceptedChat(alice, with: bobNpub, peer: bob, relays: [first.url, second.url])

        let listed = try await CLI.run(["relays", "--json", "--relay", first.url], home: bob)
        #expect(listed.status == 0, "\(listed)")
        let rows = listed.objects
        #expect(rows.compactMap { $0["url"] as? String } == [first.url, second.url], "\(rows)")
        #expect(rows.compactMap { $0["origin"] as? String } == ["yours", "group"], "\(rows)")
        let chats = rows.last?["chats"] as? [[String: Any]]
        #expect(chats?.count == 1 && (chats?.first?["chatId"] as? String)?.isEmpty == false, "\(rows)")
        let text = try await CLI.run(["relays", "--relay", first.url], home: bob)
        #expect(text.stdout.contains("\(second.url)") && text.stdout.contains("group relay from"), "\(text)")
        await first.stop()
        await second.stop()
    }
}
