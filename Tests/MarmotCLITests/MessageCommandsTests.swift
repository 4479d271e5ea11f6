import Foundation
import Testing
import TestSupport

/// Issue 25 through the `marmot` binary against the MDK 0.8.0 peer: `listen` prints every message
/// of a burst exactly once, `messages` prints the history with ids, and `react`, `reply`, `edit`,
/// `delete` act on those ids and reach MDK.
@Suite(.serialized, .timeLimit(.minutes(5)), .enabled(if: InteropKit.shouldRun, "interop kit (shared/interop + venv) not found"))
struct MessageCommandsTests {
    /// Our home starts a chat with MDK; returns MDK's group id and the chat id.
    static func chat(_ peer: MDKOnRelay, home: TestHome) async throws -> (group: String, chat: String, ours: String) {
        let ours = try await CLI.createAccount(home, relay: peer.url)
        let sent = try await CLI.run(["send", peer.npub, "hello mdk", "--json", "--relay", peer.url], home: home)
        #expect(sent.status == 0, "\(sent)")
        let chat = try #require(try sent.object()["chat"] as? String)
        let welcome = try await peer.mdk.waitForEvent("welcome")
        _ = try await peer.mdk.waitForEvent("message") { $0.string("text") == "hello mdk" }
        return (try #require(welcome.string("group_id")), chat, ours)
    }

    @Test("a burst of 50 messages into a chat marmot listen watches prints 50 lines, each once")
    func listenPrintsEveryMessageOfABurst() async throws {
        let home = try TestHome("burst")
        defer { home.remove() }
        try await MDKOnRelay.run(publishKeyPackage: true) { peer in
            let (group, chat, _) = try await Self.chat(peer, home: home)
            let listen = try CLI.start(["listen", "--json", "--timeout", "120", "--relay", peer.url], home: home, name: "marmot listen")
            _ = try await TwoHomesTests.next(listen, type: "listening", timeout: 30) { _ in true }
            for index in 1...50 {
                _ = try await peer.mdk.call(["cmd": "send", "group_id": group, "text": "burst \(index)"])
            }
            var lines: [[String: Any]] = []
            while lines.count < 50 {
                lines.append(try await TwoHomesTests.next(listen, type: "message", timeout: 60) { _ in true })
            }
            // Nothing more follows: each was printed once.
            while let extra = await listen.nextJSON(timeout: 2) {
                if extra["type"] as? String == "message" { lines.append(extra) }
            }
            await listen.stop()
            #expect(lines.count == 50)
            // Each text once (relays and the client may reorder messages of the same second).
            #expect(Set(lines.compactMap { $0["text"] as? String }) == Set((1...50).map { "burst \($0)" }))
            #expect(Set(lines.compactMap { $0["id"] as? String }).count == 50)
            #expect(lines.allSatisfy { $0["chat"] as? String == chat && $0["sender"] as? String == peer.npub })
            #expect(lines.allSatisfy { $0["kind"] as? String == "text" && $0["nostrKind"] as? Int == 9 && $0["at"] is Int })
        }
    }

    @Test("messages sent while nobody listened are printed once each by the next marmot listen (the catch-up)")
    func listenPrintsTheCatchUpMessageByMessage() async throws {
        let home = try TestHome("catch-up")
        defer { home.remove() }
        try await MDKOnRelay.run(publishKeyPackage: true) { peer in
            let (group, _, _) = try await Self.chat(peer, home: home)
            for index in 1...20 {
                _ = try await peer.mdk.call(["cmd": "send", "group_id": group, "text": "while away \(index)"])
            }
            let listen = try CLI.start(["listen", "--json", "--timeout", "60", "--relay", peer.url], home: home, name: "marmot listen")
            var texts: [String] = []
            while texts.count < 20 {
                let line = try await TwoHomesTests.next(listen, type: "message", timeout: 60) { _ in true }
                texts.append(line["text"] as? String ?? "?")
            }
            while let extra = await listen.nextJSON(timeout: 2) {
                if extra["type"] as? String == "message" { texts.append(extra["text"] as? String ?? "?") }
            }
            await listen.stop()
            #expect(texts.count == 20)
            #expect(Set(texts) == Set((1...20).map { "while away \($0)" }))
        }
    }

    @Test("messages prints the history with ids; react, reply, edit and delete act on them and reach MDK")
    func messagesAndActions() async throws {
        let home = try TestHome("kinds")
        defer { home.remove() }
        try await MDKOnRelay.run(publishKeyPackage: true) { peer in
            let (group, chat, _) = try await Self.chat(peer, home: home)
            // Rumors are ordered by their second; keep them apart so the expected order is defined.
            try await Task.sleep(for: .milliseconds(1100))
            _ = try await peer.mdk.call(["cmd": "send", "group_id": group, "text": "from mdk"])
            try await Task.sleep(for: .milliseconds(1100))
            // Our listener hears it (and with that, it is stored).
            let heard = try await peer.heardByListen(mdkSends: "second from mdk", in: group, home: home)
            let theirs = try #require(heard["id"] as? String)

            let history = try await CLI.run(["messages", chat, "--json", "--relay", peer.url], home: home)
            #expect(history.status == 0, "\(history)")
            #expect(history.objects.map { $0["text"] as? String } == ["hello mdk", "from mdk", "second from mdk"])
            let mine = try #require(history.objects.first?["id"] as? String)
            #expect(history.objects.first?["mine"] as? Bool == true)
            let limited = try await CLI.run(["messages", chat, "--limit", "1", "--before", theirs, "--json", "--relay", peer.url], home: home)
            #expect(limited.objects.map { $0["text"] as? String } == ["from mdk"], "\(limited)")

            let react = try await CLI.run(["react", chat, theirs, "👍", "--json", "--relay", peer.url], home: home)
            #expect(react.status == 0, "\(react)")
            #expect(try react.object()["code"] as? String == "ok")
            let reaction = try await peer.mdk.waitForEvent("message") { $0.int("kind") == 7 }
            #expect(reaction["tags"] as? [[String]] == [["e", theirs]])

            let reply = try await CLI.run(["reply", chat, theirs, "got", "it", "--json", "--relay", peer.url], home: home)
            #expect(reply.status == 0, "\(reply)")
            let replied = try await peer.mdk.waitForEvent("message") { $0.string("text") == "got it" }
            #expect(replied["tags"] as? [[String]] == [["e", theirs], ["q", theirs]])

            let notMine = try await CLI.run(["edit", chat, theirs, "forged", "--relay", peer.url], home: home)
            #expect(notMine.status == 1, "\(notMine)")
            #expect(notMine.stderr.contains("Only its author"), "\(notMine)")
            let edit = try await CLI.run(["edit", chat, mine, "hello mdk (edited)", "--json", "--relay", peer.url], home: home)
            #expect(edit.status == 0, "\(edit)")
            let edited = try await peer.mdk.waitForEvent("message") { $0.int("kind") == 1009 }
            #expect(edited["tags"] as? [[String]] == [["e", mine]])

            let after = try await CLI.run(["messages", chat, "--json", "--relay", peer.url], home: home)
            let rows = after.objects
            #expect(rows.first?["text"] as? String == "hello mdk (edited)" && rows.first?["edited"] as? Bool == true, "\(after)")
            let reacted = try #require(rows.first { $0["id"] as? String == theirs })
            let reactions = reacted["reactions"] as? [[String: Any]]
            #expect(reactions?.first?["emoji"] as? String == "👍" && reactions?.first?["count"] as? Int == 1, "\(reacted)")
            let replyRow = try #require(rows.last)
            #expect((replyRow["replyTo"] as? [String: Any])?["text"] as? String == "second from mdk", "\(replyRow)")

            let delete = try await CLI.run(["delete", chat, mine, "--json", "--relay", peer.url], home: home)
            #expect(delete.status == 0, "\(delete)")
            let deletion = try await peer.mdk.waitForEvent("message") { $0.int("kind") == 5 }
            #expect(deletion["tags"] as? [[String]] == [["e", mine]])
            let final = try await CLI.run(["messages", chat, "--json", "--relay", peer.url], home: home)
            #expect(!final.objects.contains { $0["id"] as? String == mine }, "\(final)")

            let errors = await peer.mdk.reportedErrors
            #expect(errors.isEmpty, "MDK rejected: \(errors)")
        }
    }
}
