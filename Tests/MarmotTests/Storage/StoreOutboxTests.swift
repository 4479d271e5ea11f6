import Foundation
import GRDB
import MLS
import Nostr
import Testing
@testable import Marmot

/// The `outbox_v2` table (migration `v21-outbox`): a message's unsent event as a row of that
/// message, gone with it and with its group, and the old `client.outbox.*` settings moved on open.
@Suite struct StoreOutboxTests: StoreFixture {
    let account = Keys.generate()
    let installation = InstallationSecret.generate()

    /// A signed kind-445 stand-in with a marker no row may show in the clear.
    func event(_ marker: String) throws -> Event {
        let keys = Keys.generate()
        return try UnsignedEvent(pubkey: keys.publicKey, createdAt: 1_800_000_000, kind: .groupMessage, content: marker).signed(with: keys)
    }

    @Test func anUnsentEventIsKeptSealedAcrossReopenAndForgottenOnceSent() throws {
        let folder = TemporaryStoreFolder()
        defer { folder.remove() }
        let group = makeGroup(1)
        let mine = try message("hello", in: group.mlsGroupID)
        let unsent = try event("outbox-marker-7f3a")
        do {
            let store = try GRDBMarmotStore(path: folder.path, key: key)
            try store.saveGroup(group)
            try store.saveMessage(mine)
            try store.saveOutboxEvent(try event("an older one"), mlsGroupID: group.mlsGroupID, rumorID: mine.rumorID)
            try store.saveOutboxEvent(unsent, mlsGroupID: group.mlsGroupID, rumorID: mine.rumorID)  // replaces it
            try store.close()
        }
        let dump = try DatabaseDump(path: folder.path)
        #expect(dump.cells.filter { $0.table == "outbox_v2" && $0.column == "sealed_event" }.count == 1, "control: one row")
        #expect(dump.locations(of: Data("outbox-marker-7f3a".utf8)).isEmpty)
        #expect(dump.locations(of: Data(unsent.id.hex.utf8)).isEmpty && dump.locations(of: Data(mine.rumorID.bytes)).isEmpty)

        let store = try GRDBMarmotStore(path: folder.path, key: key)
        #expect(try store.outboxEvent(mlsGroupID: group.mlsGroupID, rumorID: mine.rumorID) == unsent)
        #expect(try store.outboxEvent(mlsGroupID: makeGroup(2).mlsGroupID, rumorID: mine.rumorID) == nil)
        try store.deleteOutboxEvent(mlsGroupID: group.mlsGroupID, rumorID: mine.rumorID)
        #expect(try store.outboxEvent(mlsGroupID: group.mlsGroupID, rumorID: mine.rumorID) == nil)
        #expect(try store.appliedMigrations().contains(MigrationV21Outbox.name))
    }

    /// A deleted (or expired) message never goes out later, nor does anything of a deleted group;
    /// an event for a message that is not stored is refused.
    @Test func theRowGoesWithItsMessageAndItsGroup() throws {
        let store = try GRDBMarmotStore.inMemory(key: key)
        let group = makeGroup(3)
        try store.saveGroup(group)
        let (first, second) = (try message("one", in: group.mlsGroupID), try message("two", in: group.mlsGroupID))
        for mine in [first, second] {
            try store.saveMessage(mine)
            try store.saveOutboxEvent(try event(mine.content), mlsGroupID: group.mlsGroupID, rumorID: mine.rumorID)
        }
        var updated = first
        updated.deliveryState = .failed
        try store.saveMessage(updated)
        #expect(try store.outboxEvent(mlsGroupID: group.mlsGroupID, rumorID: first.rumorID) != nil, "an update in place keeps it")
        try store.deleteMessage(mlsGroupID: group.mlsGroupID, rumorID: first.rumorID)
        #expect(try store.outboxEvent(mlsGroupID: group.mlsGroupID, rumorID: first.rumorID) == nil)
        #expect(try store.outboxEvent(mlsGroupID: group.mlsGroupID, rumorID: second.rumorID) != nil)
        try store.deleteGroup(mlsGroupID: group.mlsGroupID)
        try store.saveGroup(group)
        try store.saveMessage(second)
        #expect(try store.outboxEvent(mlsGroupID: group.mlsGroupID, rumorID: second.rumorID) == nil, "gone with its group")
        let stranger = try message("never stored", in: group.mlsGroupID)
        #expect(throws: StorageError.self) {
            try store.saveOutboxEvent(try event("x"), mlsGroupID: group.mlsGroupID, rumorID: stranger.rumorID)
        }
    }

    /// A home written before v21 (unsent events as `client.outbox.<group>.<rumor>` settings, as the
    /// old client wrote them) opens with each one a row of its message; one whose message is gone,
    /// whose value is no event or whose name does not parse is dropped; the old rows are deleted.
    @Test func oldSettingsRowsAreMovedOnOpen() throws {
        let folder = TemporaryStoreFolder()
        defer { folder.remove() }
        let group = makeGroup(5)
        let kept = try message("kept", in: group.mlsGroupID)
        let deleted = try message("deleted since", in: group.mlsGroupID)
        let unsent = try event("unsent")
        let prefix = GRDBMarmotStore.legacyOutboxPrefix + group.mlsGroupID.description + "."
        let legacy: [(String, Data)] = [
            (prefix + kept.rumorID.hex, Data(unsent.jsonBytes)),
            (prefix + deleted.rumorID.hex, Data(try event("orphan").jsonBytes)),
            (prefix + String(repeating: "a", count: 64) + ".junk", Data(unsent.jsonBytes)),
            (GRDBMarmotStore.legacyOutboxPrefix + "zz." + kept.rumorID.hex, Data(unsent.jsonBytes)),
        ]
        do {
            let store = try GRDBMarmotStore(path: folder.path, key: key)
            try store.saveGroup(group)
            try store.saveMessage(kept)
            for (name, value) in legacy { try store.setSetting(name, value) }
            try store.setSetting(prefix + makeGroup(6).mlsGroupID.description, Data("not json".utf8))
            try store.setSetting("client.other", Data([7]))
            try store.close()
        }
        // Back to the schema of a v20 home: no outbox table, v21 not applied.
        let queue = try DatabaseQueue(path: folder.path)
        try queue.write { db in
            try db.execute(sql: "DROP TABLE outbox_v2")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = ?", arguments: [MigrationV21Outbox.name])
        }
        try queue.close()

        let store = try GRDBMarmotStore(path: folder.path, key: key)
        #expect(try store.outboxEvent(mlsGroupID: group.mlsGroupID, rumorID: kept.rumorID) == unsent)
        #expect(try store.outboxEvent(mlsGroupID: group.mlsGroupID, rumorID: deleted.rumorID) == nil)
        #expect(try store.presentSettings(legacy.map(\.0)).isEmpty, "the old rows are deleted")
        #expect(try store.setting("client.other") == Data([7]), "other settings stay")
        try store.close()
        // The move ran once: deleting the row since is not undone by another open.
        let again = try GRDBMarmotStore(path: folder.path, key: key)
        try again.deleteOutboxEvent(mlsGroupID: group.mlsGroupID, rumorID: kept.rumorID)
        try again.close()
        let third = try GRDBMarmotStore(path: folder.path, key: key)
        #expect(try third.outboxEvent(mlsGroupID: group.mlsGroupID, rumorID: kept.rumorID) == nil)
    }
}
