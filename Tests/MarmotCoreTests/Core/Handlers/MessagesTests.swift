import Foundation
import Testing
import Nostr
@testable import MarmotCore

@Suite("Messages")
struct MessagesTests {
    @Test("a sent message appears pending with a stable id, then sent")
    func sendPendingThenSent() async throws {
        let h = AppHarness()
        try await h.createAccount()
        let chatID = try await h.createChat()
        h.dispatch(.sendMessage(chatID: chatID, content: "hello"))
        try await h.waitFor("sent") { $0.currentChat?.messages.first?.delivery == .sent }
        try await h.waitForListener()

        let views = h.recorder.updates.compactMap(currentChat(in:))
        let withMessage = views.compactMap { $0.messages.first { $0.content == "hello" } }
        #expect(withMessage.map(\.delivery) == [.pending, .sent])
        #expect(Set(withMessage.map(\.id)).count == 1)
        let message = try #require(h.state().currentChat?.messages.first)
        #expect(message.isMine)
        #expect(message.timestamp == AppHarness.nowSeconds)
        #expect(message.displayTimestamp == "12:00")
        #expect(message.senderPubkey == h.service?.context.keys.publicKey.hex)
        #expect(await h.service?.sent.map(\.id) == [message.id])
        #expect(h.state().chatList.first?.lastMessagePreview == "You: hello")
    }

    @Test("blank messages are not sent")
    func blankMessage() async throws {
        let h = AppHarness()
        try await h.createAccount()
        let chatID = try await h.createChat()
        h.dispatch(.sendMessage(chatID: chatID, content: "  \n "))
        h.dispatch(.sendMessage(chatID: chatID, content: " trimmed "))
        try await h.waitFor("sent") { $0.currentChat?.messages.count == 1 }
        #expect(h.state().currentChat?.messages.first?.content == "trimmed")
    }

    @Test("a message sent from the chat list (chat not open) updates the list and shows when opened")
    func sendToClosedChat() async throws {
        let h = AppHarness()
        try await h.createAccount()
        let chatID = try await h.createChat()
        h.dispatch(.updateScreenStack([]))
        h.dispatch(.sendMessage(chatID: chatID, content: "from the list"))
        try await h.waitFor("listed") { $0.chatList.first?.lastMessage == "from the list" }
        #expect(h.state().chatList.first?.unreadCount == 0)
        h.dispatch(.openChat(chatID: chatID))
        try await h.waitFor("shown sent") { $0.currentChat?.messages.map(\.delivery) == [.sent] }
        #expect(h.state().currentChat?.messages.count == 1)
    }

    @Test("a failed send shows the reason; retry sends it again under the same id")
    func failThenRetry() async throws {
        let h = AppHarness()
        try await h.createAccount()
        let chatID = try await h.createChat()
        let service = try #require(h.service)
        await service.script([.failed(reason: "no relay accepted the event")])

        h.dispatch(.sendMessage(chatID: chatID, content: "try me"))
        try await h.waitFor("failed") { $0.currentChat?.messages.first?.delivery == .failed(reason: "no relay accepted the event") }
        let id = try #require(h.state().currentChat?.messages.first?.id)

        h.dispatch(.retryMessage(chatID: chatID, messageID: id))
        try await h.waitFor("sent") { $0.currentChat?.messages.first?.delivery == .sent }
        #expect(h.state().currentChat?.messages.map(\.id) == [id])
        #expect(await service.retried.map(\.id) == [id])
        #expect(await service.retried.first?.content == "try me")

        // Retrying a message that is not failed does nothing.
        h.dispatch(.retryMessage(chatID: chatID, messageID: id))
        h.dispatch(.pushScreen(.newChat))
        try await h.waitFor("marker") { $0.router.topScreen == .newChat }
        #expect(await service.retried.count == 1)
    }

    @Test("a send that throws fails with the error's description")
    func sendThrows() async throws {
        let h = AppHarness()
        try await h.createAccount()
        let chatID = try await h.createChat()
        await h.service?.script([.failed(reason: "first"), .failed(reason: "second")])
        h.dispatch(.sendMessage(chatID: chatID, content: "a"))
        try await h.waitFor("failed") { $0.currentChat?.messages.first?.delivery == .failed(reason: "first") }
        let id = try #require(h.state().currentChat?.messages.first?.id)
        h.dispatch(.retryMessage(chatID: chatID, messageID: id))
        try await h.waitFor("failed again") { $0.currentChat?.messages.first?.delivery == .failed(reason: "second") }
        #expect(h.state().chatList.first?.lastMessagePreview == "You: a")
    }

    @Test("a later delivery event updates the message")
    func deliveryEvent() async throws {
        let h = AppHarness()
        try await h.createAccount()
        let chatID = try await h.createChat()
        h.dispatch(.sendMessage(chatID: chatID, content: "x"))
        try await h.waitFor("sent") { $0.currentChat?.messages.first?.delivery == .sent }
        let id = try #require(h.state().currentChat?.messages.first?.id)
        await h.service?.emit(.deliveryChanged(chatID: chatID, messageID: id, outcome: .failed(reason: "rejected")))
        try await h.waitFor("failed") { $0.currentChat?.messages.first?.delivery == .failed(reason: "rejected") }
    }

    @Test("history pages by 50 from the newest; canLoadOlder until the start is reached")
    func paging() async throws {
        let peer = Keys.generate().publicKey
        let start = AppHarness.nowSeconds - 10_000
        let h = AppHarness { _ in
            [ChatSeed(chatID: "long", peer: peer, peerName: "Eve", createdAt: start - 1,
                      messages: (0..<130).map { (fromPeer: $0 % 3 != 0, text: "message \($0)", at: start + Int64($0)) })]
        }
        try await h.createAccount()
        try await h.waitFor("listed") { $0.chatList.count == 1 }
        #expect(h.state().chatList[0].lastMessage == "message 129")

        h.dispatch(.openChat(chatID: "long"))
        try await h.waitFor("first page") { $0.currentChat?.messages.count == 50 }
        var chat = try #require(h.state().currentChat)
        #expect(chat.canLoadOlder)
        #expect(chat.messages.first?.content == "message 80")
        #expect(chat.messages.last?.content == "message 129")
        #expect(chat.messages.allSatisfy { $0.isMine == (Int($0.content.dropFirst(8)).map { $0 % 3 == 0 } ?? false) })

        let oldest = try #require(chat.messages.first?.id)
        h.dispatch(.loadOlderMessages(chatID: "long", beforeMessageID: oldest, limit: 50))
        // A duplicate request from the same scroll position is dropped.
        h.dispatch(.loadOlderMessages(chatID: "long", beforeMessageID: oldest, limit: 50))
        try await h.waitFor("second page") { $0.currentChat?.messages.count == 100 }
        chat = try #require(h.state().currentChat)
        #expect(chat.canLoadOlder)
        #expect(chat.messages.first?.content == "message 30")

        h.dispatch(.loadOlderMessages(chatID: "long", beforeMessageID: try #require(chat.messages.first?.id), limit: 50))
        try await h.waitFor("last page") { $0.currentChat?.messages.count == 130 }
        chat = try #require(h.state().currentChat)
        #expect(!chat.canLoadOlder)
        #expect(chat.messages.map(\.content) == (0..<130).map { "message \($0)" })
        #expect(await h.service?.pageRequests.count == 3)

        // Nothing older: further requests are not sent.
        h.dispatch(.loadOlderMessages(chatID: "long", beforeMessageID: try #require(chat.messages.first?.id), limit: 50))
        h.dispatch(.pushScreen(.newChat))
        try await h.waitFor("marker") { $0.router.topScreen == .newChat }
        #expect(await h.service?.pageRequests.count == 3)

        // Reopening keeps the loaded history without asking again.
        h.dispatch(.updateScreenStack([.chat(chatID: "long")]))
        try await h.waitFor("reopened") { $0.currentChat?.messages.count == 130 }
        #expect(await h.service?.pageRequests.count == 3)
    }

    @Test("messages arriving while the first page loads are merged once")
    func mergeLiveAndPage() async throws {
        let h = AppHarness()
        try await h.createAccount()
        let chatID = try await h.createChat()
        let service = try #require(h.service)
        for i in 0..<3 { await service.receive("m\(i)", in: chatID, at: AppHarness.nowSeconds + Int64(i)) }
        h.dispatch(.foregrounded)
        try await h.waitFor("all shown") { $0.currentChat?.messages.count == 3 }
        try await h.waitForListener()
        #expect(h.state().currentChat?.messages.map(\.content) == ["m0", "m1", "m2"])
    }
}
