import Foundation
import Nostr
@testable import NostrRelay
import Testing

/// The SQLite store: NIP-01 kind semantics, query order and limits, persistence.
@Suite struct EventStoreTests {
    let store: EventStore

    init() throws {
        store = try EventStore(storage: .inMemory)
    }

    @discardableResult
    func put(_ event: Event) async throws -> StoreOutcome {
        try await store.store(StoredEvent(event, json: event.jsonString))
    }

    func ids(_ queries: StorageQuery...) async throws -> [String] {
        try await store.query(queries).map(\.id)
    }

    @Test func duplicateIsDetected() async throws {
        let event = try TestEvents.make()
        #expect(try await put(event) == .stored(replaced: []))
        #expect(try await put(event) == .duplicate)
        #expect(try await store.count() == 1)
    }

    @Test func replaceableKeepsOnlyTheNewest() async throws {
        let old = try TestEvents.make(kind: .metadata, content: "old", createdAt: 100)
        let new = try TestEvents.make(kind: .metadata, content: "new", createdAt: 200)
        try await put(old)
        #expect(try await put(new) == .stored(replaced: [old.id.hex]))
        #expect(try await put(old) == .outdated, "a replaced version cannot come back")
        #expect(try await ids(StorageQuery(kinds: [0], limit: 10)) == [new.id.hex])
        let older = try TestEvents.make(kind: .metadata, content: "older", createdAt: 50)
        #expect(try await put(older) == .outdated)
        // Another author's replaceable event is independent.
        let bobs = try TestEvents.make(kind: .metadata, content: "bob", createdAt: 10, keys: TestEvents.bob)
        #expect(try await put(bobs) == .stored(replaced: []))
        #expect(try await store.count() == 2)
    }

    @Test func replaceableTieKeepsTheLowestID() async throws {
        let a = try TestEvents.make(kind: Kind(10002), content: "a", createdAt: 500)
        let b = try TestEvents.make(kind: Kind(10002), content: "b", createdAt: 500)
        let (low, high) = a.id < b.id ? (a, b) : (b, a)
        try await put(high)
        #expect(try await put(low) == .stored(replaced: [high.id.hex]))
        #expect(try await put(high) == .outdated)
        #expect(try await ids(StorageQuery(kinds: [10002], limit: 10)) == [low.id.hex])
    }

    @Test func addressableIsKeyedByDTag() async throws {
        let kind = Kind.addressableKeyPackage
        let first = try TestEvents.make(kind: kind, content: "1", tags: [.identifier("x")], createdAt: 100)
        let other = try TestEvents.make(kind: kind, content: "2", tags: [.identifier("y")], createdAt: 100)
        let second = try TestEvents.make(kind: kind, content: "3", tags: [.identifier("x")], createdAt: 101)
        let noD = try TestEvents.make(kind: kind, content: "4", createdAt: 100)
        let emptyD = try TestEvents.make(kind: kind, content: "5", tags: [.identifier("")], createdAt: 102)
        try await put(first)
        try await put(other)
        #expect(try await put(second) == .stored(replaced: [first.id.hex]))
        try await put(noD)
        // A missing d tag and an empty one address the same event (NIP-01).
        #expect(try await put(emptyD) == .stored(replaced: [noD.id.hex]))
        #expect(Set(try await ids(StorageQuery(kinds: [Int(kind.rawValue)], limit: 10)))
            == [second.id.hex, other.id.hex, emptyD.id.hex])
    }

    @Test func queryIsNewestFirstWithTiesByIDAndHonoursLimit() async throws {
        var events: [Event] = []
        for i in 0..<6 {
            events.append(try TestEvents.make(content: "n\(i)", createdAt: 1000 + Int64(i / 2)))
        }
        for event in events { try await put(event) }
        let expected = events.sorted { $0.createdAt != $1.createdAt ? $0.createdAt > $1.createdAt : $0.id < $1.id }
        #expect(try await ids(StorageQuery(limit: 100)) == expected.map(\.id.hex))
        #expect(try await ids(StorageQuery(limit: 3)) == expected.prefix(3).map(\.id.hex))
        // Several filters: union, de-duplicated, same order; each filter has its own limit.
        let union = try await ids(StorageQuery(limit: 1), StorageQuery(since: 1000, until: 1001, limit: 10))
        #expect(union == expected.filter { $0.createdAt <= 1001 || $0.id == expected[0].id }.map(\.id.hex))
    }

    @Test func queryByEachFilterField() async throws {
        let group = String(repeating: "ab", count: 32)
        let note = try TestEvents.make(content: "note", tags: [.pubkey(TestEvents.bob.publicKey)], createdAt: 10)
        let message = try TestEvents.make(kind: .groupMessage, content: "msg", tags: [Tag(["h", group])], createdAt: 20)
        let bobs = try TestEvents.make(content: "bob", tags: [.event(note.id), Tag(["t", "Swift"]), Tag(["T", "upper"])],
                                       createdAt: 30, keys: TestEvents.bob)
        for event in [note, message, bobs] { try await put(event) }

        #expect(try await ids(StorageQuery(ids: [note.id.hex, bobs.id.hex], limit: 10)) == [bobs.id.hex, note.id.hex])
        #expect(try await ids(StorageQuery(authors: [TestEvents.bob.publicKey.hex], limit: 10)) == [bobs.id.hex])
        #expect(try await ids(StorageQuery(kinds: [445], limit: 10)) == [message.id.hex])
        #expect(try await ids(StorageQuery(tags: ["h": [group]], limit: 10)) == [message.id.hex])
        #expect(try await ids(StorageQuery(tags: ["p": [TestEvents.bob.publicKey.hex]], limit: 10)) == [note.id.hex])
        #expect(try await ids(StorageQuery(tags: ["e": [note.id.hex]], limit: 10)) == [bobs.id.hex])
        #expect(try await ids(StorageQuery(tags: ["t": ["Swift"], "T": ["upper"]], limit: 10)) == [bobs.id.hex])
        #expect(try await ids(StorageQuery(tags: ["t": ["swift"]], limit: 10)).isEmpty, "tag values are case-sensitive")
        #expect(try await ids(StorageQuery(since: 20, limit: 10)) == [bobs.id.hex, message.id.hex])
        #expect(try await ids(StorageQuery(until: 20, limit: 10)) == [message.id.hex, note.id.hex])
        #expect(try await ids(StorageQuery(kinds: [1], since: 15, until: 35, limit: 10)) == [bobs.id.hex])
        #expect(try await ids(StorageQuery(ids: [], limit: 10)).isEmpty, "an empty list matches nothing")
        #expect(try await ids(StorageQuery(limit: 0)).isEmpty)
    }

    @Test func eventsSurviveReopeningTheFile() async throws {
        let path = TestEvents.temporaryDatabasePath()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let event = try TestEvents.make(tags: [Tag(["h", "group"])])
        do {
            let first = try EventStore(storage: .file(path: path))
            _ = try await first.store(StoredEvent(event, json: event.jsonString))
            try first.close()
        }
        let second = try EventStore(storage: .file(path: path))
        let found = try await second.query([StorageQuery(tags: ["h": ["group"]], limit: 5)])
        #expect(found.map(\.json) == [event.jsonString])
        #expect(try await second.store(StoredEvent(event, json: event.jsonString)) == .duplicate)
        try second.close()
    }

    @Test func kindClasses() {
        #expect(StorageClass(kind: 0) == .replaceable && StorageClass(kind: 3) == .replaceable)
        #expect(StorageClass(kind: 10002) == .replaceable && StorageClass(kind: 19999) == .replaceable)
        #expect(StorageClass(kind: 20000) == .ephemeral && StorageClass(kind: 29999) == .ephemeral)
        #expect(StorageClass(kind: 30443) == .addressable && StorageClass(kind: 39999) == .addressable)
        #expect(StorageClass(kind: 1) == .regular && StorageClass(kind: 445) == .regular && StorageClass(kind: 1059) == .regular)
        #expect(StorageClass(kind: 40000) == .regular)
    }
}
