import Foundation
import MLS
import Nostr
import TestSupport
import Testing
@testable import Marmot

/// The store's unit of work (architecture review §3.3-e): the writes of one input are all kept or
/// none, and a send's engine rows are written with its envelope and outbox row, never before.
@Suite(.timeLimit(.minutes(3))) struct UnitOfWorkTests {
    struct Abandoned: Error {}

    static func store() throws -> (GRDBMarmotStore, StoredGroup) {
        let keys = Keys.generate()
        let store = try GRDBMarmotStore.inMemory(key: StorageKey(deriving: keys.secretKey, installationSecret: ClientHarness.installationSecret))
        let group = StoredGroup(
            mlsGroupID: GroupID(Data((0..<16).map { UInt8($0) })), nostrGroupID: .random(), mlsState: Data([1]), epoch: 1,
            name: "unit", admins: [], relays: [], createdAt: 1_800_000_000)
        try store.saveGroup(group)
        return (store, group)
    }

    static func message(_ group: StoredGroup, _ content: String) throws -> StoredMessage {
        let rumor = try ChatRumor(author: Keys.generate().publicKey, content: content, createdAt: 1_800_000_001)
        return StoredMessage(rumor: rumor, mlsGroupID: group.mlsGroupID, isMine: false, deliveryState: .received, outerEventID: nil)
    }

    @Test func aUnitThatFailsKeepsNoneOfItsWrites() throws {
        let (store, group) = try Self.store()
        let message = try Self.message(group, "never kept")
        #expect(throws: Abandoned.self) {
            try store.unitOfWork {
                try store.setSetting("unit.test", Data([7]))
                try store.saveMessage(message)
                // Reads within the unit see its writes.
                #expect(try store.setting("unit.test") == Data([7]))
                throw Abandoned()
            }
        }
        #expect(try store.setting("unit.test") == nil)
        #expect(try store.message(mlsGroupID: group.mlsGroupID, rumorID: message.rumorID) == nil)
        #expect(try store.group(mlsGroupID: group.mlsGroupID)?.unreadCount == 0)
    }

    @Test func aUnitThatEndsKeepsAllAndANestedUnitJoinsIt() throws {
        let (store, group) = try Self.store()
        let message = try Self.message(group, "kept")
        try store.unitOfWork {
            try store.setSetting("unit.test", Data([1]))
            try store.unitOfWork { try store.saveMessage(message) }
        }
        #expect(try store.setting("unit.test") == Data([1]))
        #expect(try store.message(mlsGroupID: group.mlsGroupID, rumorID: message.rumorID)?.content == "kept")
        // A store error inside a unit reaches the caller as itself.
        #expect(throws: StorageError.self) {
            try store.unitOfWork { try store.saveGroupRatchets(mlsGroupID: GroupID(Data([9])), ratchets: Data()) }
        }
    }

    /// Sealing a message of ours on the engine no longer writes the engine's rows by itself: they
    /// go with the caller's unit (with the old `ownMessage` the rows had moved already).
    @Test func sealingOnTheEngineWritesNothingUntilTheUnitKeepsIt() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, id) = try await V2Fixtures.oneToOne(url)
        let before = try await alice.client.engineRowsForTest(id)
        try await alice.client.sealAndDrop("never sent", in: id)
        #expect(try await alice.client.engineRowsForTest(id) == before)
        // A send that goes through keeps them, with its message.
        _ = try await alice.client.send(text: "sent", to: id)
        #expect(try await alice.client.engineRowsForTest(id) != before)
        _ = try await bob.waitForMessage("sent")
        await alice.shutdown()
        await bob.shutdown()
        await server.stop()
    }
}

extension MarmotClient {
    /// Seals a message of ours and drops what would keep it, as a unit of work that never ends.
    fileprivate func sealAndDrop(_ text: String, in id: GroupID) throws {
        let rumor = try ChatRumor(author: publicKey, content: text, createdAt: now())
        _ = try sealOwn(rumor, in: try session(id))
    }

    fileprivate func engineRowsForTest(_ id: GroupID) throws -> EngineRows? {
        try engineStore.engineRows(mlsGroupID: id)
    }
}
