import Foundation
import Testing
import TestSupport

/// Issue 51 through the `marmot` binary against `marmot relay`: `listen` starts by printing every
/// unread message of every chat, oldest first and in store order, each in the shape of a live line;
/// printed messages stay unread (the next `listen` prints them again) unless `--mark-read`.
@Suite(.serialized, .timeLimit(.minutes(6)))
struct ListenUnreadTests {
    /// The message lines of one `listen --json` run of a few seconds in `home`.
    static func listen(_ home: TestHome, relay: String, markRead: Bool = false) async throws -> [[String: Any]] {
        let flags = markRead ? ["--mark-read"] : []
        let result = try await CLI.run(["listen", "--json", "--timeout", "5", "--relay", relay] + flags, home: home)
        #expect(result.status == 0, "\(result)")
        #expect(result.objects.first?["type"] as? String == "listening", "\(result)")
        return result.objects.filter { $0["type"] as? String == "message" }
    }

    /// `messages <chat> --json` in `home`: the stored history, oldest first, in store order.
    static func history(_ chat: String, in home: TestHome, relay: String) async throws -> [[String: Any]] {
        let result = try await CLI.run(["messages", chat, "--json", "--relay", relay], home: home)
        #expect(result.status == 0, "\(result)")
        return result.objects
    }

    /// Each line carries what a live message line carries.
    static func expectShape(_ lines: [[String: Any]], chat: String) {
        for line in lines {
            #expect(line["id"] is String && line["sender"] is String && line["at"] is Int, "\(line)")
            #expect(line["kind"] as? String == "text" && line["nostrKind"] as? Int == 9, "\(line)")
            #expect((line["chat"] as? String)?.lowercased() == chat.lowercased(), "\(line)")
        }
    }

    @Test("1:1: every unread message is printed with id, sender and kind, again by the next listen, and not after --mark-read")
    func oneToOneTwoRuns() async throws {
        let relay = try await TestRelay.start()
        let alice = try TestHome("alice"), bob = try TestHome("bob")
        defer {
            alice.remove()
            bob.remove()
        }
        let aliceNpub = try await CLI.createAccount(alice, relay: relay.url)
        let bobNpub = try await CLI.createAccount(bob, relay: relay.url)
        let chat = try await CLI.openAcceptedChat(alice, with: bobNpub, peer: bob, relays: [relay.url])
        // Seconds apart: a relay hands back same-second events in any order, and Bob stores them as received.
        for text in ["two", "three", "four"] {
            try await Task.sleep(for: .milliseconds(1100))
            let sent = try await CLI.run(["send", chat, text, "--relay", relay.url], home: alice)
            #expect(sent.status == 0, "\(sent)")
        }
        // Bob is told of them (stored, unread) before any listen.
        _ = try await MembershipCommandTests.row(of: chat, in: bob, relay: relay.url) { ($0["unread"] as? Int ?? 0) >= 3 }

        let first = try await Self.listen(bob, relay: relay.url)
        #expect(first.map { $0["text"] as? String } == ["two", "three", "four"], "\(first)")
        #expect(first.allSatisfy { $0["sender"] as? String == aliceNpub }, "\(first)")
        Self.expectShape(first, chat: chat)
        #expect(Set(first.compactMap { $0["id"] as? String }).count == 3)

        // Printing did not mark them read: the next run prints the same messages, and `chats` still counts them.
        let second = try await Self.listen(bob, relay: relay.url)
        #expect(second.map { $0["id"] as? String } == first.map { $0["id"] as? String }, "\(second)")
        _ = try await MembershipCommandTests.row(of: chat, in: bob, relay: relay.url) { ($0["unread"] as? Int ?? 0) >= 3 }

        // --mark-read prints them once more and marks them read: the run after prints nothing old.
        let draining = try await Self.listen(bob, relay: relay.url, markRead: true)
        #expect(draining.map { $0["id"] as? String } == first.map { $0["id"] as? String }, "\(draining)")
        _ = try await MembershipCommandTests.row(of: chat, in: bob, relay: relay.url) { $0["unread"] as? Int == 0 }

        // A live message line has the same fields as those printed at start.
        let live = try CLI.start(["listen", "--json", "--timeout", "60", "--relay", relay.url], home: bob, name: "bob listen")
        _ = try await TwoHomesTests.next(live, type: "listening", timeout: 30) { _ in true }
        #expect(try await CLI.run(["send", chat, "five", "--relay", relay.url], home: alice).status == 0)
        var after: [[String: Any]] = [try await TwoHomesTests.next(live, type: "message") { _ in true }]
        while let extra = await live.nextJSON(timeout: 2) {
            if extra["type"] as? String == "message" { after.append(extra) }
        }
        await live.stop()
        #expect(after.map { $0["text"] as? String } == ["five"], "\(after)")
        #expect(after.first.map { Set($0.keys) } == first.first.map { Set($0.keys) }, "\(after) vs \(first)")
        await relay.stop()
    }

    @Test("group: unread messages of two senders sent together are printed in store order with their own sender, twice")
    func groupSeveralSenders() async throws {
        let relay = try await TestRelay.start()
        let alice = try TestHome("alice"), bob = try TestHome("bob"), carol = try TestHome("carol")
        defer {
            alice.remove()
            bob.remove()
            carol.remove()
        }
        let aliceNpub = try await CLI.createAccount(alice, relay: relay.url)
        let bobNpub = try await CLI.createAccount(bob, relay: relay.url)
        let carolNpub = try await CLI.createAccount(carol, relay: relay.url)
        let created = try await CLI.run(
            ["group", "create", "--name", "Crew", bobNpub, carolNpub, "--json", "--relay", relay.url], home: alice)
        #expect(created.status == 0, "\(created)")
        let chat = try #require(try created.object()["chat"] as? String, "\(created)")
        try await MembershipCommandTests.accept(chat, in: bob, relay: relay.url)
        try await MembershipCommandTests.accept(chat, in: carol, relay: relay.url)
        // Bob has read everything so far (the join's system lines): only what follows is unread.
        _ = try await Self.listen(bob, relay: relay.url, markRead: true)

        // Alice and Carol write at the same time, twice each (the same second, or close to it).
        for round in 1...2 {
            async let fromAlice = CLI.run(["send", chat, "alice \(round)", "--relay", relay.url], home: alice)
            async let fromCarol = CLI.run(["send", chat, "carol \(round)", "--relay", relay.url], home: carol)
            let (a, c) = try await (fromAlice, fromCarol)
            #expect(a.status == 0 && c.status == 0, "\(a)\n\(c)")
        }
        _ = try await MembershipCommandTests.row(of: chat, in: bob, relay: relay.url) { ($0["unread"] as? Int ?? 0) >= 4 }

        let first = try await Self.listen(bob, relay: relay.url)
        let texts = first.compactMap { $0["text"] as? String }
        #expect(Set(texts) == ["alice 1", "alice 2", "carol 1", "carol 2"], "\(first)")
        #expect(texts.count == 4, "\(first)")
        Self.expectShape(first, chat: chat)
        for line in first {
            let text = line["text"] as? String ?? ""
            #expect(line["sender"] as? String == (text.hasPrefix("alice") ? aliceNpub : carolNpub), "\(line)")
        }
        let second = try await Self.listen(bob, relay: relay.url)
        #expect(second.map { $0["id"] as? String } == first.map { $0["id"] as? String }, "\(second)")

        // Oldest first, same-second ones as stored (received): the order `messages` lists them in
        // (which reads the chat, so it comes last).
        let stored = try await Self.history(chat, in: bob, relay: relay.url).compactMap { $0["text"] as? String }
        #expect(texts == stored.filter(Set(texts).contains), "listen \(texts) vs stored \(stored)")
        await relay.stop()
    }
}
