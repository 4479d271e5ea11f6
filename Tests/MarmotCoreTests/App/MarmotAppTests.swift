import Foundation
import Testing
import Nostr
@testable import MarmotCore

@Suite("MarmotApp")
struct MarmotAppTests {
    @Test("revs are consecutive, without gaps or repeats, across 300 mixed actions")
    func revContinuity() async throws {
        let h = AppHarness()
        let initial = h.state()
        try await h.createAccount()
        let chatA = try await h.createChat()
        let chatB = try await h.createChat()
        let service = try #require(h.service)

        // A fixed pseudo-random mix, so a failure replays the same way.
        var seed: UInt64 = 0x5eed
        func next(_ bound: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int((seed >> 33) % UInt64(bound))
        }
        var sends = 0
        var counts: [ChatID: Int] = [chatA: 0, chatB: 0]
        for i in 0..<300 {
            let chat = next(2) == 0 ? chatA : chatB
            switch next(10) {
            case 0: h.dispatch(.pushScreen(.newChat))
            case 1: h.dispatch(.updateScreenStack([]))
            case 2: h.dispatch(.openChat(chatID: chat))
            case 3:
                h.dispatch(.sendMessage(chatID: chat, content: "message \(i)"))
                sends += 1
                counts[chat, default: 0] += 1
            case 4: h.dispatch(.clearToast)
            case 5: h.dispatch(.createChat(peerNpub: "not an npub \(i)"))
            case 6: h.dispatch(.foregrounded)
            case 7:
                await service.receive("incoming \(i)", in: chat, at: AppHarness.nowSeconds + Int64(i))
                counts[chat, default: 0] += 1
            case 8: h.dispatch(.updateScreenStack([.chat(chatID: chat)]))
            default: h.dispatch(.openChat(chatID: "missing"))
            }
        }
        // Settle: every message of both chats shown and delivered, then back to the list.
        for chat in [chatA, chatB] {
            let expected = counts[chat] ?? 0
            h.dispatch(.updateScreenStack([.chat(chatID: chat)]))
            try await h.waitFor("chat settled") { state in
                guard let view = state.currentChat, view.chatID == chat else { return false }
                return view.messages.count == expected && view.messages.allSatisfy { $0.delivery == .sent }
            }
        }
        h.dispatch(.updateScreenStack([]))
        h.dispatch(.clearToast)
        try await h.waitFor("settled") { $0.router.screenStack.isEmpty && $0.toast == nil }
        try await h.waitForListener()
        #expect(await service.sent.count == sends)

        let revs = h.recorder.revs
        #expect(revs.count > 150, "the mix must actually change state")
        #expect(revs == Array((initial.rev + 1)...(initial.rev + UInt64(revs.count))))
        #expect(h.state().rev == revs.last)
        // Applying the updates, as a platform does, reproduces the snapshot exactly.
        #expect(h.recorder.mirror(from: initial) == h.state())
    }

    @Test("dispatch only enqueues: 10,000 calls in a row complete and are all processed")
    func dispatchReturnsImmediately() async throws {
        let h = AppHarness()
        try await h.createAccount()
        for _ in 0..<10_000 { h.dispatch(.clearToast) }
        h.dispatch(.pushScreen(.newChat))
        try await h.waitFor("processed in order") { $0.router.topScreen == .newChat }
        try await h.waitForListener()
        #expect(h.recorder.revs == Array(1...h.state().rev))
    }

    @Test("state() answers while the core waits on a blocked service call, and other actions proceed")
    func stateDoesNotBlock() async throws {
        let h = AppHarness()
        try await h.createAccount()
        let service = try #require(h.service)
        let gate = Gate()
        await service.holdCreateChat(gate)

        h.dispatch(.createChat(peerNpub: Keys.generate().publicKey.npub))
        try await waitUntil("service entered") { await service.createChatEntered }
        #expect(h.state().busy.creatingChat)

        // Synchronous reads from this thread, many times, while the call is held.
        for _ in 0..<1_000 { #expect(h.state().busy.creatingChat) }
        h.dispatch(.pushScreen(.newChat))
        try await h.waitFor("other action processed") { $0.router.topScreen == .newChat }
        #expect(h.state().busy.creatingChat)

        await gate.open()
        try await h.waitFor("created") { $0.currentChat != nil && !$0.busy.creatingChat }
    }

    @Test("only the first listener gets updates; updates() after it is finished")
    func singleListener() async throws {
        let h = AppHarness()
        let second = UpdateRecorder()
        h.app.listenForUpdates(second)
        h.dispatch(.login(nsec: "bad"))
        try await h.waitFor("toast") { $0.toast != nil }
        try await h.waitForListener()
        #expect(second.updates.isEmpty)
        var iterator = h.app.updates().makeAsyncIterator()
        #expect(await iterator.next() == nil)
    }

    @Test("updates() delivers the same ordered stream when used instead of a reconciler")
    func asyncStream() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("marmot-core-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let app = MarmotApp(dataDirectory: directory)
        let stream = app.updates()
        app.dispatch(.login(nsec: "bad"))
        var received: [AppUpdate] = []
        for await update in stream {
            received.append(update)
            if case .fullState(let state) = update, state.toast != nil { app.dispatch(.clearToast) }
            if case .toastChanged(_, nil) = update { break }
        }
        #expect(received.map(\.rev) == Array(1...UInt64(received.count)))
        #expect(received.count == 3)
    }

    @Test("updates committed before the listener attaches are delivered, not lost")
    func bufferedBeforeListening() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("marmot-core-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let app = MarmotApp(dataDirectory: directory)
        app.dispatch(.login(nsec: "bad"))
        try await waitUntil("toast") { app.state().toast != nil }
        let recorder = UpdateRecorder()
        app.listenForUpdates(recorder)
        try await waitUntil("delivered") { recorder.lastRev == app.state().rev }
        #expect(recorder.revs == Array(1...app.state().rev))
    }
}
