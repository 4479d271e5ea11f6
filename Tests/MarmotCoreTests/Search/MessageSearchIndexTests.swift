import Foundation
import Testing
@testable import MarmotCore

/// The in-memory message search index (issue 48): folding, prefixes, chat filter, order, edits.
@Suite("MessageSearchIndex") struct MessageSearchIndexTests {
    func index(_ messages: [(chat: String, id: String, at: Int64, text: String)]) -> MessageSearchIndex {
        var index = MessageSearchIndex()
        for message in messages {
            index.add(chatID: ChatID(message.chat), messageID: MessageID(message.id), sender: "alice", createdAt: message.at, text: message.text)
        }
        return index
    }

    @Test("words are case- and diacritic-folded, the last query word is a prefix, all words must match")
    func folding() {
        let index = index([
            ("a", "1", 10, "Meet at the Café tomorrow"), ("a", "2", 20, "cafe closed"), ("b", "3", 30, "tomorrow maybe"),
        ])
        #expect(index.search("CAFE").map(\.messageID) == ["2", "1"])
        #expect(index.search("café tomor").map(\.messageID) == ["1"])
        #expect(index.search("tomo").map(\.messageID) == ["3", "1"])
        #expect(index.search("closed tomorrow").isEmpty)
        #expect(index.search("  ?! ").isEmpty)
        #expect(index.search("nothing").isEmpty)
    }

    @Test("newest first, within one chat when asked, at most the limit")
    func orderChatAndLimit() {
        let index = index((0..<10).map { ("chat\($0 % 2)", "m\($0)", Int64($0), "hello number \($0)") })
        let all = index.search("hello")
        #expect(all.map(\.createdAt) == (0..<10).reversed().map(Int64.init))
        #expect(index.search("hello", chat: "chat1").map(\.messageID) == ["m9", "m7", "m5", "m3", "m1"])
        #expect(index.search("hello", limit: 3).map(\.messageID) == ["m9", "m8", "m7"])
        #expect(index.search("hello", limit: 0).isEmpty)
        let hit = try! #require(all.first)
        #expect(hit.chatID == "chat1" && hit.sender == "alice" && hit.snippet == "hello number 9")
    }

    @Test("an edit replaces the old text; removed messages and chats are no longer found")
    func editsAndRemovals() {
        var index = index([("a", "1", 10, "first words"), ("a", "2", 20, "other words"), ("b", "3", 30, "words in b")])
        index.add(chatID: "a", messageID: "1", sender: "alice", createdAt: 10, text: "changed text")
        #expect(index.search("first").isEmpty)
        #expect(index.search("changed").map(\.messageID) == ["1"])
        #expect(index.count == 3)
        index.remove("2")
        #expect(index.search("words").map(\.messageID) == ["3"])
        index.removeChat("b")
        #expect(index.search("words").isEmpty)
        #expect(index.count == 1)
    }

    @Test("a long message's snippet is one line around the match")
    func snippet() {
        let text = String(repeating: "filler ", count: 30) + "needle\nafter " + String(repeating: "tail ", count: 30)
        let hit = try! #require(index([("a", "1", 1, text)]).search("needle").first)
        #expect(hit.snippet.contains("needle after"))
        #expect(!hit.snippet.contains("\n"))
        #expect(hit.snippet.hasPrefix("…") && hit.snippet.hasSuffix("…"))
        #expect(hit.snippet.count <= MessageSearchIndex.snippetLength + 2)
    }

    @Test("100,000 messages: every match is found, in order")
    func manyMessages() {
        var index = MessageSearchIndex()
        for n in 0..<100_000 {
            index.add(chatID: ChatID("c\(n % 50)"), messageID: MessageID("m\(n)"), sender: "s", createdAt: Int64(n), text: "word\(n % 997) and word\(n % 13) x\(n)")
        }
        let hits = index.search("word996 word12", limit: 1_000)
        let expected = (0..<100_000).filter { $0 % 997 == 996 && $0 % 13 == 12 }.reversed().map { MessageID("m\($0)") }
        #expect(hits.map(\.messageID) == Array(expected.prefix(1_000)))
        #expect(index.search("x99999").map(\.messageID) == ["m99999"])
    }
}
