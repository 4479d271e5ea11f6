import Foundation
import MLS
import Marmot
import Nostr
import Testing
@testable import MarmotCore

/// Issue 25: the inner events of reactions, replies, edits and deletions, as the messaging service
/// writes and reads them, checked against MDK 0.9.14's code (`crates/marmot-app/src/messages/intents.rs`),
/// and the kinds it keeps from the chat.
@Suite("Message kinds on the wire")
struct MarmotMessageKindsTests {
    let me = Keys.generate()
    let target = String(repeating: "ab", count: 32)
    let other = String(repeating: "cd", count: 32)

    func service() -> MarmotMessagingService {
        let context = SessionContext(
            keys: me, accountDirectory: FileManager.default.temporaryDirectory, relayURLs: [], clock: .system)
        return MarmotMessagingService(context: context, options: MarmotMessagingOptions())
    }

    func outgoing(_ content: String, role: MessageRole = .text, replyTo: MessageID? = nil) -> OutgoingMessage {
        OutgoingMessage(id: .generate(), chatID: "00", content: content, createdAt: 1, role: role, replyTo: replyTo)
    }

    func stored(kind: UInt16, _ content: String, tags: [[String]], sender: PublicKey? = nil) -> StoredMessage {
        StoredMessage(
            rumorID: try! EventID(bytes: [UInt8](repeating: 7, count: 32)), mlsGroupID: GroupID(Data([1, 2])),
            sender: sender ?? me.publicKey, kind: Kind(kind), content: content, tags: tags.map(Tag.init),
            createdAt: 1, isMine: false, deliveryState: .received)
    }

    @Test("a reaction is kind 7 with one e tag and the emoji as content (intents.rs 259-270)")
    func reactionForm() async throws {
        let form = try await service().wireForm(outgoing("🎉", role: .reaction(target: MessageID(target))))
        #expect(form.kind.rawValue == 7)
        #expect(form.content == "🎉")
        #expect(form.tags.map(\.fields) == [["e", target]])
    }

    @Test("a reply is kind 9 with e and q tags naming the target, then p tags of mentions (intents.rs 271-287, 137-152)")
    func replyForm() async throws {
        let carol = Keys.generate().publicKey
        let form = try await service().wireForm(
            outgoing("re nostr:\(carol.npub) and @\(carol.npub)", replyTo: MessageID(target)))
        #expect(form.kind.rawValue == 9)
        #expect(form.tags.map(\.fields) == [["e", target], ["q", target], ["p", carol.hex]])
        let plain = try await service().wireForm(outgoing("no mention npub1 here"))
        #expect(plain.tags.isEmpty)
    }

    @Test("an edit is kind 1009 with one e tag and the new text (intents.rs 288-301)")
    func editForm() async throws {
        let form = try await service().wireForm(outgoing("fixed", role: .edit(target: MessageID(target))))
        #expect(form.kind.rawValue == 1009)
        #expect(form.content == "fixed")
        #expect(form.tags.map(\.fields) == [["e", target]])
    }

    @Test("a deletion is kind 5 with one e tag per target and empty content (intents.rs 302-322)")
    func deletionForm() async throws {
        let form = try await service().wireForm(
            outgoing("", role: .deletion(targets: [MessageID(target), MessageID(other)])))
        #expect(form.kind.rawValue == 5)
        #expect(form.content == "")
        #expect(form.tags.map(\.fields) == [["e", target], ["e", other]])
    }

    @Test("a target that is not a known message id is refused before anything is stored")
    func unknownTarget() async throws {
        await #expect(throws: MarmotMessagingError.unknownMessage) {
            try await service().wireForm(outgoing("x", role: .reaction(target: "not-an-id")))
        }
    }

    @Test("incoming kinds map to their roles; a reply's target comes from q, else e")
    func incomingRoles() async throws {
        let service = service()
        let reaction = await service.record(stored(kind: 7, "👍", tags: [["e", target]]))
        #expect(reaction?.role == .reaction(target: MessageID(target)))
        let edit = await service.record(stored(kind: 1009, "new", tags: [["e", target]]))
        #expect(edit?.role == .edit(target: MessageID(target)))
        let deletion = await service.record(stored(kind: 5, "", tags: [["e", target], ["e", other], ["e", "junk"]]))
        #expect(deletion?.role == .deletion(targets: [MessageID(target), MessageID(other)]))
        let reply = await service.record(stored(kind: 9, "re", tags: [["e", other], ["q", target]]))
        #expect(reply?.role == .text && reply?.replyTo == MessageID(target))
        let mentioned = Keys.generate().publicKey
        let mention = await service.record(stored(kind: 9, "hi", tags: [["p", mentioned.hex], ["p", "zz"]]))
        #expect(mention?.mentions == [mentioned])
    }

    @Test("push-token gossip (447-449), group system events (1210), reports, poll responses, agent streams and malformed references are never chat bubbles; an app's own kind is a row saying so")
    func hiddenKinds() async throws {
        let service = service()
        for kind: UInt16 in [447, 448, 449, 1210, 1984, 1985, 1018, 1200, 1202, 4891] {
            #expect(await service.record(stored(kind: kind, "x", tags: [])) == nil, "kind \(kind)")
        }
        // Custom kinds (MDK 0.9.15): a row of their own, never a change to another message.
        for kind: UInt16 in [1, 1068, 30023] {
            let row = await service.record(stored(kind: kind, "x", tags: [["e", String(repeating: "a", count: 64)]]))
            #expect(row?.role == .text && row?.replyTo == nil, "kind \(kind)")
            #expect(row?.content == "Unsupported message (kind \(kind)): x")
        }
        // A reaction without a target, or whose content MDK would refuse, is dropped.
        #expect(await service.record(stored(kind: 7, "👍", tags: [])) == nil)
        #expect(await service.record(stored(kind: 7, " 👍", tags: [["e", target]])) == nil)
        #expect(await service.record(stored(kind: 7, String(repeating: "a", count: 65), tags: [["e", target]])) == nil)
        #expect(await service.record(stored(kind: 7, "a\u{7}", tags: [["e", target]])) == nil)
        #expect(await service.record(stored(kind: 1009, "  ", tags: [["e", target]])) == nil)
        #expect(await service.record(stored(kind: 5, "", tags: [["e", "short"]])) == nil)
    }
}
