import Foundation
import Nostr
import Testing

@testable import MarmotCore

/// Issue 18: each chat's Marmot protocol version reaches the chat list and the open chat's header
/// as a typed value plus the core's label, so renderers show it without protocol knowledge.
@Suite("Chat protocol")
struct ChatProtocolTests {
    @Test("the chat list carries each chat's protocol version and the core's label")
    func listCarriesVersionAndLabel() async throws {
        let now = AppHarness.nowSeconds
        let old = Keys.generate().publicKey, new = Keys.generate().publicKey
        let h = AppHarness { _ in
            [
                ChatSeed(chatID: "old", peer: old, peerName: "Old", createdAt: now - 120, messages: [], protocolVersion: .v1),
                ChatSeed(chatID: "new", peer: new, peerName: "New", createdAt: now - 60, messages: [], protocolVersion: .v2),
            ]
        }
        try await h.createAccount()
        try await h.waitFor("chats loaded") { $0.chatList.count == 2 }
        let list = h.state().chatList
        #expect(list.map(\.chatID) == ["new", "old"])
        #expect(list.map(\.protocolVersion) == [.v2, .v1])
        #expect(list.map(\.protocolLabel) == ["Marmot v2", "Marmot v1"])
    }

    @Test("the open chat's header state carries the same version and label")
    func openChatCarriesVersionAndLabel() async throws {
        let now = AppHarness.nowSeconds
        let peer = Keys.generate().publicKey
        let h = AppHarness { _ in
            [ChatSeed(chatID: "c2", peer: peer, peerName: nil, createdAt: now, messages: [(true, "hi", now)], protocolVersion: .v2)]
        }
        try await h.createAccount()
        try await h.waitFor("chat listed") { $0.chatList.count == 1 }
        h.dispatch(.openChat(chatID: "c2"))
        try await h.waitFor("chat open") { $0.currentChat?.chatID == "c2" }
        let chat = try #require(h.state().currentChat)
        #expect(chat.protocolVersion == .v2)
        #expect(chat.protocolLabel == "Marmot v2")
        // What the platform received agrees: every open-chat slice (or full state) says v2.
        try await h.waitForListener()
        let slices = h.recorder.updates.compactMap(currentChat(in:))
        #expect(!slices.isEmpty)
        #expect(slices.allSatisfy { $0.protocolVersion == .v2 && $0.protocolLabel == "Marmot v2" })
    }

    @Test("a chat that appears later (a welcome) and a refresh of it keep the service's version")
    func laterChatAndRefreshKeepTheVersion() async throws {
        let h = AppHarness()
        try await h.createAccount()
        let peer = Keys.generate().publicKey
        let service = try #require(h.service)
        var info = ChatInfo(chatID: "w", peer: peer, createdAt: AppHarness.nowSeconds, protocolVersion: .v2)
        await service.invite(info)
        try await h.waitFor("chat listed") { $0.chatList.first?.chatID == "w" }
        #expect(h.state().chatList.first?.protocolVersion == .v2)
        info.groupName = "Renamed"
        info.isDirect = false
        await service.emit(.chatUpdated(info))
        try await h.waitFor("refreshed") { $0.chatList.first?.displayName == "Renamed" }
        #expect(h.state().chatList.first?.protocolLabel == "Marmot v2")
    }

    @Test("the label names the protocol for every version")
    func labels() {
        #expect(ChatProtocolVersion.allCases.map(DisplayFormatter.protocolLabel) == ["Marmot v1", "Marmot v2"])
    }
}
