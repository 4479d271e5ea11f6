import Testing
import Nostr
@testable import MarmotCore

@Suite("MessageThread")
struct MessageThreadTests {
    let peer = Keys.generate().publicKey

    func message(_ id: MessageID, at: Int64, _ delivery: MessageDeliveryState = .sent) -> MessageRecord {
        MessageRecord(id: id, chatID: "c", sender: peer, content: "\(id)", createdAt: at, delivery: delivery)
    }

    @Test("messages stay in time order; the same second keeps arrival order")
    func ordering() {
        var thread = MessageThread()
        thread.upsert(message("b", at: 10))
        thread.upsert(message("c", at: 10))
        thread.upsert(message("a", at: 5))
        thread.upsert(message("d", at: 20))
        #expect(thread.messages.map(\.id) == ["a", "b", "c", "d"])
    }

    @Test("upsert replaces by id instead of duplicating")
    func upsertReplaces() {
        var thread = MessageThread()
        thread.upsert(message("a", at: 1, .pending))
        thread.upsert(message("a", at: 1, .sent))
        #expect(thread.messages.map(\.delivery) == [.sent])
        let known = thread.setDelivery("a", .failed(reason: "x"))
        let unknown = thread.setDelivery("zz", .sent)
        #expect(known)
        #expect(!unknown)
        #expect(thread.message("a")?.delivery == .failed(reason: "x"))
    }

    @Test("a merged page adds only unknown messages; known ones keep the core's version")
    func merge() {
        var thread = MessageThread()
        thread.upsert(message("live", at: 30, .pending))
        thread.merge([message("old1", at: 10), message("old2", at: 20), message("live", at: 30, .sent)])
        #expect(thread.messages.map(\.id) == ["old1", "old2", "live"])
        #expect(thread.message("live")?.delivery == .pending)
        thread.merge([])
        #expect(thread.messages.count == 3)
    }
}
