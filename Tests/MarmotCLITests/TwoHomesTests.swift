import Foundation
import Testing
import TestSupport

/// Two `$MARMOT_HOME`s talking through one `marmot relay` subprocess, only through the CLI.
@Suite(.serialized, .timeLimit(.minutes(4)))
struct TwoHomesTests {
    @Test func sendListenReplyAndChats() async throws {
        let relay = try await TestRelay.start()
        let alice = try TestHome("alice"), bob = try TestHome("bob")
        defer {
            alice.remove()
            bob.remove()
        }
        let aliceNpub = try await CLI.createAccount(alice, relay: relay.url)
        let bobNpub = try await CLI.createAccount(bob, relay: relay.url)

        // Bob listens while Alice starts the chat and sends.
        let bobListen = try CLI.start(["listen", "--json", "--timeout", "90", "--relay", relay.url], home: bob, name: "bob listen")
        let ready = await bobListen.nextJSON(timeout: 30)
        #expect(ready?["type"] as? String == "listening" && ready?["npub"] as? String == bobNpub, "\(String(describing: ready))")

        let opened = try await CLI.run(["chat", "new", bobNpub, "--json", "--relay", relay.url], home: alice)
        #expect(opened.status == 0, "\(opened)")
        let chatID = try #require(try opened.object()["chat"] as? String)
        #expect(try opened.object()["created"] as? Bool == true)

        // `send` to the npub finds that chat; `chat new` again finds it too.
        let sent = try await CLI.run(["send", bobNpub, "hi", "--json", "--relay", relay.url], home: alice)
        #expect(sent.status == 0, "\(sent)")
        let sentObject = try sent.object()
        #expect(sentObject["delivery"] as? String == "sent")
        #expect(sentObject["peer"] as? String == bobNpub)
        #expect(sentObject["chat"] as? String == chatID)
        let again = try await CLI.run(["chat", "new", bobNpub, "--json", "--relay", relay.url], home: alice)
        #expect(try again.object()["chat"] as? String == chatID)
        #expect(try again.object()["created"] as? Bool == false)

        let invite = try await Self.next(bobListen, type: "invite") { $0["chat"] as? String == chatID }
        #expect(invite["peer"] as? String == aliceNpub)
        let heard = try await Self.next(bobListen, type: "message") { $0["text"] as? String == "hi" }
        #expect(heard["peer"] as? String == aliceNpub)
        #expect(heard["chat"] as? String == chatID)
        await bobListen.stop()
        #expect(await bobListen.exitStatus(timeout: 10) == 0)

        // Bob's chat list: one chat with Alice, unread, previewing "hi".
        let bobChats = try await CLI.run(["chats", "--json", "--relay", relay.url], home: bob)
        #expect(bobChats.status == 0, "\(bobChats)")
        let row = try #require(bobChats.objects.first, "\(bobChats)")
        #expect(bobChats.objects.count == 1)
        #expect(row["id"] as? String == chatID)
        #expect(row["peer"] as? String == aliceNpub)
        #expect(row["unread"] as? Int == 1)
        #expect(row["lastMessage"] as? String == "hi")
        #expect((row["preview"] as? String)?.contains("hi") == true)

        // Bob replies by chat id; Alice, offline meanwhile, catches up when she listens.
        let reply = try await CLI.run(["send", chatID, "hello alice", "--json", "--relay", relay.url], home: bob)
        #expect(reply.status == 0, "\(reply)")
        #expect(try reply.object()["delivery"] as? String == "sent")

        let aliceListen = try CLI.start(["listen", "--json", "--timeout", "60", "--relay", relay.url], home: alice, name: "alice listen")
        let answer = try await Self.next(aliceListen, type: "message") { $0["text"] as? String == "hello alice" }
        #expect(answer["peer"] as? String == bobNpub)
        await aliceListen.stop()

        let aliceChats = try await CLI.run(["chats", "--relay", relay.url], home: alice)
        #expect(aliceChats.status == 0, "\(aliceChats)")
        #expect(aliceChats.stdout.contains("1 unread") && aliceChats.stdout.contains("hello alice"), "\(aliceChats)")
        await relay.stop()
    }

    /// The next JSON line of `type` satisfying `predicate`, skipping others.
    static func next(
        _ process: ChildProcess, type: String, timeout: Double = 60, where predicate: ([String: Any]) -> Bool
    ) async throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0 {
            guard let object = await process.nextJSON(timeout: deadline.timeIntervalSinceNow) else { break }
            if object["type"] as? String == type, predicate(object) { return object }
        }
        throw HarnessError.unexpectedOutput("\(process.name): no \(type) line within \(timeout) s")
    }
}
