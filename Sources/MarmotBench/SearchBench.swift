import Foundation
import MarmotCore

/// Message search over 100,000 messages (issue 48): the goal is a search under 50 ms. The index is
/// built in memory, lazily on the first search, so a cold start does not pay for it; its build time
/// is printed as the cost of that first search.
enum SearchBench {
    static let messages = 100_000

    static func run() {
        Bench.section("Message search (in-memory index, \(messages) messages)")
        var generator = SystemRandomNumberGenerator()
        let vocabulary = (0..<20_000).map { n in "w\(String(n, radix: 36))x" }
        var texts: [String] = []
        texts.reserveCapacity(messages)
        for _ in 0..<messages {
            let count = Int.random(in: 4...20, using: &generator)
            texts.append((0..<count).map { _ in vocabulary[Int.random(in: 0..<vocabulary.count, using: &generator)] }.joined(separator: " "))
        }
        var index = MessageSearchIndex()
        let start = Bench.now()
        for (n, text) in texts.enumerated() {
            index.add(chatID: ChatID("chat\(n % 200)"), messageID: MessageID("m\(n)"), sender: "someone", createdAt: Int64(n), text: text)
        }
        print(String(format: "  build the index: %.1f ms", Double(Bench.now() - start) / 1e6))
        let queries = ["w1x", "w1", "w2s w3", "wzzzx", "w"]
        for query in queries {
            Bench.measure("search \"\(query)\" (newest 50)", iterations: 20) { _ = index.search(query) }
        }
        Bench.measure("search \"w1x\" in one chat", iterations: 20) { _ = index.search("w1x", chat: "chat7") }
    }
}
