import Foundation
import GRDB
import MLS
import Nostr
import Testing
@testable import Marmot

/// The `moderation_grants_v2` table (migration `v11-moderation-grants`): grants by group and rumor
/// (security review D3), gone with their group, and the old settings rows moved on open.
@Suite struct StoreModerationGrantsTests: StoreFixture {
    let account = Keys.generate()
    let installation = InstallationSecret.generate()

    func deletion(_ rumor: EventID, in group: GroupID) -> StoredMessage {
        StoredMessage(
            rumorID: rumor, mlsGroupID: group, sender: account.publicKey, kind: AdminDeletion.kind, content: AdminDeletion.content,
            tags: [], createdAt: 1_800_000_000, isMine: false, deliveryState: .received, outerEventID: nil)
    }

    func rumor(_ byte: UInt8) -> EventID { try! EventID(hex: String(repeating: String(format: "%02x", byte), count: 32)) }

    @Test func grantsAreKeptPerGroupAndRumorAcrossReopenWithNoIdInTheFile() throws {
        let folder = TemporaryStoreFolder()
        defer { folder.remove() }
        let (a, b) = (makeGroup(1), makeGroup(2))
        let (granted, other) = (rumor(0xA1), rumor(0xB2))
        do {
            let store = try GRDBMarmotStore(path: folder.path, key: key)
            for group in [a, b] { try store.saveGroup(group) }
            try store.saveModerationGrant(mlsGroupID: a.mlsGroupID, rumorID: granted, at: 10)
            try store.saveModerationGrant(mlsGroupID: a.mlsGroupID, rumorID: granted, at: 11)  // again: one row
            try store.close()
        }
        let dump = try DatabaseDump(path: folder.path)
        #expect(dump.cells.filter { $0.table == "moderation_grants_v2" && $0.column == "message_ref" }.count == 1, "control: one row")
        #expect(dump.locations(of: Data(granted.bytes)).isEmpty && dump.locations(of: a.mlsGroupID.bytes).isEmpty)

        let store = try GRDBMarmotStore(path: folder.path, key: key)
        #expect(try store.moderationGrants(mlsGroupID: a.mlsGroupID, rumorIDs: [granted, other]) == [granted])
        #expect(try store.moderationGrants(mlsGroupID: b.mlsGroupID, rumorIDs: [granted, other]).isEmpty, "D3: not in another group")
        #expect(try store.moderationGrants(mlsGroupID: a.mlsGroupID, rumorIDs: []).isEmpty)
        #expect(try store.appliedMigrations().contains(MigrationV11ModerationGrants.name))
    }

    @Test func grantsGoWithTheirGroupAndNeedOne() throws {
        let store = try GRDBMarmotStore.inMemory(key: key)
        let group = makeGroup(3)
        try store.saveGroup(group)
        try store.saveModerationGrant(mlsGroupID: group.mlsGroupID, rumorID: rumor(1), at: 1)
        try store.deleteGroup(mlsGroupID: group.mlsGroupID)
        try store.saveGroup(group)
        #expect(try store.moderationGrants(mlsGroupID: group.mlsGroupID, rumorIDs: [rumor(1)]).isEmpty, "the row went with its group")
        #expect(throws: StorageError.self) {
            try store.saveModerationGrant(mlsGroupID: makeGroup(4).mlsGroupID, rumorID: rumor(1), at: 2)
        }
    }

    /// A home written before v11 (grants as `client.moderation_grant.<rumor>` settings, as the old
    /// client wrote them, and no grants table) opens with each grant in the one group holding that
    /// deletion; a rumor in two groups (the D3 case) or in none keeps no grant; the old rows are gone.
    @Test func oldSettingsRowsAreMovedOnOpen() throws {
        let folder = TemporaryStoreFolder()
        defer { folder.remove() }
        let (a, b) = (makeGroup(5), makeGroup(6))
        let (onlyInA, inBoth, nowhere) = (rumor(0x11), rumor(0x22), rumor(0x33))
        let legacyNames = [onlyInA, inBoth, nowhere].map { GRDBMarmotStore.legacyModerationGrantPrefix + $0.hex }
        do {
            let store = try GRDBMarmotStore(path: folder.path, key: key)
            for group in [a, b] { try store.saveGroup(group) }
            try store.saveMessage(deletion(onlyInA, in: a.mlsGroupID))
            try store.saveMessage(deletion(inBoth, in: a.mlsGroupID))
            try store.saveMessage(deletion(inBoth, in: b.mlsGroupID))
            for name in legacyNames { try store.setSetting(name, Data([1])) }
            try store.setSetting("client.other", Data([7]))
            try store.close()
        }
        // Back to the schema of a v10 home: no grants table, v11 not applied.
        let queue = try DatabaseQueue(path: folder.path)
        try queue.write { db in
            try db.execute(sql: "DROP TABLE moderation_grants_v2")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = ?", arguments: [MigrationV11ModerationGrants.name])
        }
        try queue.close()

        let store = try GRDBMarmotStore(path: folder.path, key: key)
        #expect(try store.moderationGrants(mlsGroupID: a.mlsGroupID, rumorIDs: [onlyInA, inBoth, nowhere]) == [onlyInA])
        #expect(try store.moderationGrants(mlsGroupID: b.mlsGroupID, rumorIDs: [onlyInA, inBoth, nowhere]).isEmpty)
        #expect(try store.presentSettings(legacyNames).isEmpty, "the old rows are deleted")
        #expect(try store.setting("client.other") == Data([7]), "other settings stay")
        #expect(try store.message(mlsGroupID: a.mlsGroupID, rumorID: onlyInA) != nil)
        try store.close()
        // The move ran once: a grant written since stays after another open.
        let again = try GRDBMarmotStore(path: folder.path, key: key)
        #expect(try again.moderationGrants(mlsGroupID: a.mlsGroupID, rumorIDs: [onlyInA]) == [onlyInA])
    }
}
