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

    func annotation(_ id: MessageID, _ role: MessageRole, by sender: PublicKey, at: Int64 = 50, _ content: String = "") -> MessageRecord {
        MessageRecord(id: id, chatID: "c", sender: sender, content: content, createdAt: at, role: role)
    }

    @Test("a page holding a message and its author's deletion (in either order) never shows it; another's deletion does nothing")
    func pageWithDeletions() {
        let mallory = Keys.generate().publicKey
        var thread = MessageThread()
        thread.merge([
            annotation("d1", .deletion(targets: ["gone"]), by: peer, at: 5),
            message("gone", at: 10), message("kept", at: 20),
            annotation("d2", .deletion(targets: ["kept"]), by: mallory),
        ])
        #expect(thread.messages.map(\.id) == ["kept"])
        #expect(thread.deleted == ["gone"])
        // A later page (or a live copy) of the deleted message does not bring it back.
        thread.upsert(message("gone", at: 10))
        thread.merge([message("gone", at: 10)])
        #expect(thread.messages.map(\.id) == ["kept"])
        #expect(thread.contains("gone"))
    }

    @Test("reactions and edits wait for their target; a reaction is removed only by its own author's deletion")
    func overlayAndUnreact() {
        let mallory = Keys.generate().publicKey
        var thread = MessageThread()
        thread.upsert(annotation("r1", .reaction(target: "m"), by: peer, "👍"))
        thread.upsert(annotation("e1", .edit(target: "m"), by: peer, at: 60, "new"))
        thread.upsert(message("m", at: 10))
        #expect(thread.overlay().reactions["m"]?.map(\.id) == ["r1"])
        #expect(thread.overlay().latestEdit(of: message("m", at: 10))?.content == "new")
        thread.upsert(annotation("x", .deletion(targets: ["r1"]), by: mallory))
        #expect(thread.overlay().reactions["m"]?.map(\.id) == ["r1"])
        thread.upsert(annotation("y", .deletion(targets: ["r1"]), by: peer))
        #expect(thread.overlay().reactions["m"] == nil)
        #expect(thread.messages.map(\.id) == ["m"])
    }
}
