import Foundation
import Nostr
import Testing
@testable import MarmotCore

/// Issue 48: message search, owned by the core, over an index built in memory from the stored messages.
@Suite("Message search")
struct SearchTests {
    static let now = AppHarness.nowSeconds

    @Test("the first search builds the index from the stored messages; results are newest first, per chat on request, and new messages are found")
    func searchStoredAndLive() async throws {
        let peer = Keys.generate().publicKey, other = Keys.generate().publicKey
        let now = Self.now
        let h = AppHarness { _ in
            [
                ChatSeed(chatID: "c1", peer: peer, createdAt: now - 900, messages: [(true, "Lunch at the café?", now - 600), (false, "Sure, lunch at noon", now - 500)]),
                ChatSeed(chatID: "c2", peer: other, createdAt: now - 900, messages: [(true, "no lunch today", now - 400), (true, "unrelated", now - 300)]),
            ]
        }
        try await h.createAccount()
        try await h.waitFor("chats listed") { $0.chatList.count == 2 }

        h.dispatch(.search(query: "LUNCH", chatID: nil, limit: 50))
        try await h.waitFor("results") { $0.search.query == "LUNCH" && !$0.search.searching && $0.search.results.count == 3 }
        let all = h.state()
        #expect(all.search.results.map(\.chatID) == ["c2", "c1", "c1"])
        #expect(all.search.results.map(\.createdAt) == [now - 400, now - 500, now - 600])
        #expect(all.search.results[1].sender == "You")
        #expect(all.search.results[2].sender == DisplayFormatter.short(peer.npub))
        #expect(all.search.error == nil)

        h.dispatch(.search(query: "cafe", chatID: "c1", limit: 50))
        try await h.waitFor("folded") { $0.search.query == "cafe" }
        let folded = h.state()
        #expect(folded.search.results.map(\.snippet) == ["Lunch at the café?"])

        h.dispatch(.search(query: "lunch", chatID: nil, limit: 1))
        try await h.waitFor("limit") { $0.search.query == "lunch" }
        #expect(h.state().search.results.map(\.chatID) == ["c2"])

        let service = try #require(h.service)
        await service.receive("dinner instead", in: "c2", at: now - 10)
        try await h.waitFor("arrived") { $0.chatList.first { $0.chatID == "c2" }?.lastMessage == "dinner instead" }
        h.dispatch(.search(query: "dinn", chatID: nil, limit: 50))
        try await h.waitFor("live") { $0.search.query == "dinn" }
        let live = h.state()
        #expect(live.search.results.map(\.snippet) == ["dinner instead"])

        h.dispatch(.search(query: "nothing here", chatID: nil, limit: 50))
        try await h.waitFor("none") { $0.search.query == "nothing here" }
        #expect(h.state().search.results.isEmpty)
    }
}
