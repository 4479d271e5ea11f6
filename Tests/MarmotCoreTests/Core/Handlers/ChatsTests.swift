import Foundation
import Testing
import Nostr
@testable import MarmotCore

@Suite("Chats")
struct ChatsTests {
    @Test("creating a chat: busy while the service works, then the chat replaces New Chat on the stack")
    func createChat() async throws {
        let h = AppHarness()
        try await h.createAccount()
        let peer = Keys.generate()
        h.dispatch(.pushScreen(.newChat))
        h.dispatch(.createChat(peerNpub: "  \(peer.publicKey.npub)\n"))
        try await h.waitFor("chat open") { $0.currentChat != nil }
        try await h.waitForListener()

        let state = h.state()
        let chatID = try #require(state.currentChat?.chatID)
        #expect(state.router.screenStack == [.chat(chatID: chatID)])
        #expect(state.busy == BusyState())
        #expect(state.chatList.map(\.chatID) == [chatID])
        let summary = try #require(state.chatList.first)
        #expect(summary.peerNpub == peer.publicKey.npub)
        #expect(summary.displayName == "\(peer.publicKey.npub.prefix(9))…\(peer.publicKey.npub.suffix(4))")
        #expect(summary.lastMessagePreview == "No messages yet")
        #expect(summary.unreadCount == 0)
        let sawBusy = h.recorder.updates.contains { update in
            switch update {
            case .busyChanged(_, let busy): busy.creatingChat
            case .fullState(let s): s.busy.creatingChat
            default: false
            }
        }
        #expect(sawBusy)
    }

    @Test("an nprofile names the peer and hands its relay hints to the service (NIP-19)")
    func createChatFromNprofile() async throws {
        let h = AppHarness()
        try await h.createAccount()
        let peer = Keys.generate()
        let nprofile = NIP19.encode(NIP19.ProfilePointer(publicKey: peer.publicKey, relays: ["wss://hint.example"]))
        h.dispatch(.pushScreen(.newChat))
        h.dispatch(.createChat(peerNpub: nprofile))
        try await h.waitFor("chat open") { $0.currentChat != nil }
        #expect(h.state().chatList.first?.peerNpub == peer.publicKey.npub)
        let service = try #require(h.service)
        #expect(await service.lastRelayHints == [URL(string: "wss://hint.example")])
    }

    @Test("invalid npub and own npub are refused before the service is asked")
    func createChatValidation() async throws {
        let h = AppHarness()
        let (_, myNpub) = try await h.createAccount()
        let service = try #require(h.service)
        await service.holdCreateChat(nil)

        for input in ["", "npub1xyz", Keys.generate().secretKey.nsecEncoded(), Keys.generate().publicKey.hex] {
            h.dispatch(.clearToast)
            try await h.waitFor("cleared") { $0.toast == nil }
            h.dispatch(.createChat(peerNpub: input))
            try await h.waitFor("toast") { $0.toast != nil }
            #expect(h.state().toast?.hasPrefix("Invalid npub") == true)
        }
        h.dispatch(.clearToast)
        try await h.waitFor("cleared") { $0.toast == nil }
        h.dispatch(.createChat(peerNpub: myNpub))
        try await h.waitFor("toast") { $0.toast != nil }
        #expect(h.state().toast?.contains("your own npub") == true)
        #expect(await service.createChatEntered == false)
        #expect(h.state().chatList.isEmpty)
        #expect(h.state().busy == BusyState())
    }

    @Test("without a messaging service, chat actions say so instead of pretending")
    func messagingUnavailable() async throws {
        let h = AppHarness(messaging: false)
        try await h.createAccount()
        h.dispatch(.createChat(peerNpub: Keys.generate().publicKey.npub))
        try await h.waitFor("toast") { $0.toast != nil }
        #expect(h.state().toast?.hasPrefix("Messaging unavailable") == true)
        #expect(h.state().chatList.isEmpty)
        #expect(h.state().busy == BusyState())
    }

    @Test("a failed creation clears busy and shows the reason")
    func createChatFails() async throws {
        let h = AppHarness()
        try await h.createAccount()
        await h.service?.failCreateChat("no key package found")
        h.dispatch(.pushScreen(.newChat))
        h.dispatch(.createChat(peerNpub: Keys.generate().publicKey.npub))
        try await h.waitFor("toast") { $0.toast != nil && !$0.busy.creatingChat }
        #expect(h.state().toast == "Could not create chat: no key package found")
        #expect(h.state().router.screenStack == [.newChat])
        #expect(h.state().chatList.isEmpty)
    }

    @Test("creating a chat with a peer already chatted with opens the existing chat")
    func createExistingChat() async throws {
        let h = AppHarness()
        try await h.createAccount()
        let peer = Keys.generate()
        let chatID = try await h.createChat(with: peer)
        h.dispatch(.updateScreenStack([]))
        h.dispatch(.pushScreen(.newChat))
        h.dispatch(.createChat(peerNpub: peer.publicKey.npub))
        try await h.waitFor("reopened") { $0.currentChat?.chatID == chatID }
        #expect(h.state().router.screenStack == [.chat(chatID: chatID)])
        #expect(h.state().chatList.count == 1)
    }

    @Test("chats known to the service at login are listed, newest activity first, with display fields")
    func loadedChatList() async throws {
        let alice = Keys.generate().publicKey
        let bob = Keys.generate().publicKey
        let carol = Keys.generate().publicKey
        let now = AppHarness.nowSeconds
        let h = AppHarness { _ in
            [
                ChatSeed(chatID: "a", peer: alice, peerName: "Alice", createdAt: now - 90_000,
                         messages: [(true, "older line", now - 86_400 - 60)], unreadCount: 1),
                ChatSeed(chatID: "b", peer: bob, peerName: nil, createdAt: now - 7_200,
                         messages: [(false, "first line\nsecond   line", now - 3_600)]),
                ChatSeed(chatID: "c", peer: carol, peerName: "  ", createdAt: now - 60, messages: []),
            ]
        }
        try await h.createAccount()
        try await h.waitFor("chats loaded") { $0.chatList.count == 3 }
        let list = h.state().chatList
        #expect(list.map(\.chatID) == ["c", "b", "a"])

        let a = list[2]
        #expect(a.displayName == "Alice")
        #expect(a.lastMessage == "older line")
        #expect(a.lastMessagePreview == "older line")
        #expect(a.lastMessageTimeDisplay == "Yesterday")
        #expect(a.unreadCount == 1)

        let b = list[1]
        #expect(b.displayName == "\(bob.npub.prefix(9))…\(bob.npub.suffix(4))")
        #expect(b.lastMessagePreview == "You: first line second line")
        #expect(b.lastMessageTimeDisplay == "11:00")
        #expect(b.lastMessageAt == now - 3_600)

        let c = list[0]
        #expect(c.displayName.hasPrefix("npub1"))
        #expect(c.lastMessage == nil)
        #expect(c.lastMessageAt == nil)
        #expect(c.lastMessageTimeDisplay == "")
    }

    @Test("incoming messages raise unread counts and reorder the list; opening a chat clears its count")
    func unreadCounts() async throws {
        let h = AppHarness()
        try await h.createAccount()
        let first = try await h.createChat()
        let second = try await h.createChat()
        h.dispatch(.updateScreenStack([]))
        try await h.waitFor("back on list") { $0.currentChat == nil }
        let service = try #require(h.service)
        let now = AppHarness.nowSeconds

        await service.receive("one", in: first, at: now + 1)
        await service.receive("two", in: first, at: now + 2)
        await service.receive("three", in: second, at: now + 3)
        try await h.waitFor("counted") { state in
            state.chatList.first { $0.chatID == first }?.unreadCount == 2
                && state.chatList.first { $0.chatID == second }?.unreadCount == 1
        }
        #expect(h.state().chatList.map(\.chatID) == [second, first])

        await service.receive("four", in: first, at: now + 4)
        try await h.waitFor("reordered") { $0.chatList.map(\.chatID) == [first, second] }
        #expect(h.state().chatList[0].lastMessage == "four")
        #expect(h.state().chatList[0].unreadCount == 3)

        h.dispatch(.openChat(chatID: first))
        try await h.waitFor("opened") { $0.currentChat?.chatID == first }
        #expect(h.state().chatList.first { $0.chatID == first }?.unreadCount == 0)
        #expect(h.state().chatList.first { $0.chatID == second }?.unreadCount == 1)
        try await waitUntil("marked read") { await service.markedRead.contains(first) }

        // A message into the open chat is shown and not counted.
        await service.receive("five", in: first, at: now + 5)
        try await h.waitFor("shown") { $0.currentChat?.messages.last?.content == "five" }
        #expect(h.state().chatList.first { $0.chatID == first }?.unreadCount == 0)
        let five = try #require(h.state().currentChat?.messages.last)
        #expect(!five.isMine)
        #expect(five.delivery == .sent)
        #expect(five.displayTimestamp == "12:00")

        // The same message delivered twice is counted once.
        h.dispatch(.updateScreenStack([]))
        try await h.waitFor("list") { $0.currentChat == nil }
        let six = try #require(await service.receive("six", in: second, at: now + 6))
        await service.emit(.messageReceived(six))
        h.dispatch(.clearToast)
        try await h.waitFor("counted once") { $0.chatList.first { $0.chatID == second }?.lastMessage == "six" }
        try await h.waitForListener()
        #expect(h.state().chatList.first { $0.chatID == second }?.unreadCount == 2)
    }

    @Test("an invitation makes a chat appear")
    func invitation() async throws {
        let h = AppHarness()
        try await h.createAccount()
        let peer = Keys.generate().publicKey
        await h.service?.invite(ChatInfo(chatID: "invited", peer: peer, peerName: "Dana", createdAt: AppHarness.nowSeconds))
        try await h.waitFor("listed") { $0.chatList.map(\.chatID) == ["invited"] }
        #expect(h.state().chatList[0].displayName == "Dana")
    }

    @Test("service events for unknown chats change nothing visible")
    func quietEvents() async throws {
        let h = AppHarness()
        try await h.createAccount()
        try await h.waitFor("chats listed") { $0.network.chatsLoaded }
        try await h.waitForListener()
        let rev = h.state().rev
        let service = try #require(h.service)
        await service.emit(.messageReceived(MessageRecord(
            id: "x", chatID: "unknown", sender: Keys.generate().publicKey, content: "hi", createdAt: 1)))
        h.dispatch(.pushScreen(.newChat))
        try await h.waitFor("marker") { $0.router.topScreen == .newChat }
        #expect(h.state().rev == rev + 1)
    }
}
