import Foundation
import Nostr
import Testing
@testable import MarmotCore

/// Issue 51: the messages stored unread before the session began are arrivals, oldest first and
/// before live ones, each once, released in steps a renderer reading every update sees one by one;
/// `markChatRead` clears a chat's count without opening it.
@Suite("Unread backlog")
struct UnreadTests {
    static let now = AppHarness.nowSeconds

    /// Every chat list the listener received, in rev order.
    static func chatLists(_ h: AppHarness) -> [[ChatSummary]] {
        h.recorder.updates.compactMap { update in
            switch update {
            case .chatListChanged(_, let list): list
            case .fullState(let state): state.chatList
            default: nil
            }
        }
    }

    /// Every arrival the listener could see, by sequence (each sequence once).
    static func arrivals(_ h: AppHarness) -> [ArrivedMessage] {
        var seen: [UInt64: ArrivedMessage] = [:]
        for list in chatLists(h) {
            for chat in list { for arrival in chat.recentArrivals { seen[arrival.sequence] = arrival } }
        }
        return seen.keys.sorted().compactMap { seen[$0] }
    }

    @Test("unread messages of every chat become arrivals, oldest first across chats, same second in store order")
    func backlogOldestFirst() async throws {
        let alice = Keys.generate().publicKey, bob = Keys.generate().publicKey
        let now = Self.now
        let h = AppHarness { _ in
            [
                ChatSeed(
                    chatID: "a", peer: alice, createdAt: now - 900,
                    messages: [(true, "a read", now - 600), (false, "a mine", now - 500), (true, "a one", now - 300),
                               (true, "a two", now - 300), (true, "a three", now - 100)],
                    unreadCount: 3),
                ChatSeed(chatID: "b", peer: bob, createdAt: now - 900, messages: [(true, "b one", now - 200)], unreadCount: 1),
                ChatSeed(chatID: "c", peer: bob, createdAt: now - 900, messages: [(true, "c read", now - 50)]),
            ]
        }
        try await h.createAccount()
        try await h.waitFor("backlog numbered") { state in state.chatList.reduce(0) { $0 + $1.recentArrivals.count } == 4 }
        try await h.waitForListener()
        let arrivals = Self.arrivals(h)
        #expect(arrivals.map(\.text) == ["a one", "a two", "b one", "a three"])
        #expect(arrivals.map(\.sequence) == [1, 2, 3, 4])
        #expect(arrivals.allSatisfy { $0.kind == "text" && $0.nostrKind == 9 && !$0.isMine })
        #expect(arrivals.map(\.senderNpub) == [alice.npub, alice.npub, bob.npub, alice.npub])
        #expect(arrivals.first?.messageID == "a-m2")
        // The counts are the store's; nothing was marked read.
        #expect(h.state().chatList.first { $0.chatID == "a" }?.unreadCount == 3)
        #expect(await h.service?.markedRead == [])
        #expect(await h.service?.unreadRequests.sorted { $0.rawValue < $1.rawValue } == ["a", "b"])

        // A live message comes after the backlog; one of the backlog arriving again is not numbered twice.
        let service = try #require(h.service)
        await service.receive("live", in: "b", at: now)
        await service.emit(.messageReceived(MessageRecord(id: "a-m3", chatID: "a", sender: alice, content: "a two", createdAt: now - 300)))
        try await h.waitFor("live numbered") { $0.chatList.contains { $0.recentArrivals.last?.text == "live" } }
        try await h.waitForListener()
        #expect(Self.arrivals(h).map(\.text) == ["a one", "a two", "b one", "a three", "live"])
    }

    @Test("a backlog longer than a chat row keeps is released in steps, each seen in its own update")
    func longBacklogInSteps() async throws {
        let alice = Keys.generate().publicKey
        let now = Self.now
        let count = ChatSummary.arrivalsKept * 2 + 10
        let h = AppHarness { _ in
            [
                ChatSeed(
                    chatID: "a", peer: alice, createdAt: now - 900,
                    messages: (0..<count).map { (true, "m\($0)", now - 500 + Int64($0 / 7)) }, unreadCount: UInt32(count))
            ]
        }
        try await h.createAccount()
        try await h.waitFor("backlog out") { $0.chatList.first?.recentArrivals.last?.text == "m\(count - 1)" }
        try await h.waitForListener()
        #expect(Self.arrivals(h).map(\.text) == (0..<count).map { "m\($0)" })
        #expect(Self.chatLists(h).allSatisfy { $0.allSatisfy { $0.recentArrivals.count <= ChatSummary.arrivalsKept } })
    }

    @Test("the backlog follows the core's rule: a message of ours is no unread message, whatever the stored count says")
    func ownMessagesAreNotBacklog() async throws {
        let alice = Keys.generate().publicKey
        let now = Self.now
        let h = AppHarness { _ in
            [
                ChatSeed(
                    chatID: "a", peer: alice, createdAt: now - 900, messages: [(true, "theirs", now - 20), (false, "mine", now - 10)],
                    unreadCount: 2)
            ]
        }
        try await h.createAccount()
        try await h.waitFor("backlog numbered") { $0.chatList.first?.recentArrivals.isEmpty == false }
        try await h.waitForListener()
        #expect(Self.arrivals(h).map(\.text) == ["theirs"])
    }

    @Test("markChatRead clears the count here and in storage, then reports mark_chat_read; an unknown chat is refused")
    func markChatRead() async throws {
        let alice = Keys.generate().publicKey
        let now = Self.now
        let h = AppHarness { _ in
            [ChatSeed(chatID: "a", peer: alice, createdAt: now - 900, messages: [(true, "one", now - 10), (true, "two", now - 5)], unreadCount: 2)]
        }
        try await h.createAccount()
        try await h.waitFor("backlog numbered") { $0.chatList.first?.recentArrivals.count == 2 }
        h.dispatch(.markChatRead(chatID: "a"))
        try await h.waitFor("marked") { $0.lastOutcome?.operation == .markChatRead }
        #expect(h.state().lastOutcome?.code == .ok)
        #expect(h.state().chatList.first?.unreadCount == 0)
        #expect(h.state().currentChat == nil)
        #expect(await h.service?.markedRead == ["a"])
        h.dispatch(.markChatRead(chatID: "nope"))
        try await h.waitFor("refused") { $0.lastOutcome?.operation == .markChatRead && $0.lastOutcome?.code == .unknownChat }
    }
}
