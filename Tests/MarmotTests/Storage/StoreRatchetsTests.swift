import Foundation
import GRDB
import MLS
import Nostr
import Testing
@testable import Marmot

/// A group's secret trees stored apart from the rest of its state (migration `v5-group-ratchets`):
/// an application message rewrites only them (issue 27), sealed and protected against being copied
/// back like the rest of the row.
@Suite struct StoreRatchetsTests {
    let account = Keys.generate()
    let installation = InstallationSecret.generate()
    var key: StorageKey { StorageKey(deriving: account.secretKey, installationSecret: installation) }

    func makeGroup(_ id: UInt8, ratchets: Data? = Data("ratchets-1".utf8)) -> StoredGroup {
        var group = StoredGroup(
            mlsGroupID: GroupID(Data(repeating: id, count: 32)), nostrGroupID: .random(), mlsState: Data("state-1".utf8),
            epoch: 3, name: "Team", admins: [account.publicKey], relays: [], createdAt: 1_800_000_000)
        group.mlsRatchets = ratchets
        return group
    }

    func columns(_ store: GRDBMarmotStore) throws -> Row {
        try #require(try store.read { db in
            try Row.fetchOne(db, sql: """
                SELECT version, s.sealed_state, sealed_meta, sealed_ratchets, ratchet_version
                FROM groups_v2 JOIN group_states_v2 s USING (group_ref)
                """)
        })
    }

    @Test func onlyTheSecretTreesAreRewrittenAndBothReadBack() throws {
        let folder = TemporaryStoreFolder()
        defer { folder.remove() }
        let store = try GRDBMarmotStore(path: folder.path, key: key)
        let group = makeGroup(1)
        try store.saveGroup(group)
        let before = try columns(store)
        try store.saveGroupRatchets(mlsGroupID: group.mlsGroupID, ratchets: Data("ratchets-2".utf8))
        let after = try columns(store)
        // The state, metadata and row version are untouched; the trees moved to their next version.
        #expect(after["version"] as Int64 == before["version"] as Int64)
        #expect(after["sealed_state"] as Data == before["sealed_state"] as Data)
        #expect(after["sealed_meta"] as Data == before["sealed_meta"] as Data)
        #expect(after["ratchet_version"] as Int64 == (before["ratchet_version"] as Int64) + 1)
        #expect(after["sealed_ratchets"] as Data != before["sealed_ratchets"] as Data)
        // Sealed: the plaintext is not in the column.
        #expect((after["sealed_ratchets"] as Data).range(of: Data("ratchets-2".utf8)) == nil)

        let read = try #require(try store.group(mlsGroupID: group.mlsGroupID))
        #expect(read.mlsState == Data("state-1".utf8))
        #expect(read.mlsRatchets == Data("ratchets-2".utf8))
        #expect(try store.groups().map(\.mlsRatchets) == [Data("ratchets-2".utf8)])
        try store.close()

        // And after reopening the file.
        let reopened = try GRDBMarmotStore(path: folder.path, key: key)
        #expect(try reopened.group(mlsGroupID: group.mlsGroupID)?.mlsRatchets == Data("ratchets-2".utf8))
        try reopened.close()
    }

    @Test func aGroupStoredWholeOrUnknownTakesNoRatchets() throws {
        let store = try GRDBMarmotStore.inMemory(key: key)
        let whole = makeGroup(2, ratchets: nil)
        try store.saveGroup(whole)
        #expect(throws: StorageError.self) {
            try store.saveGroupRatchets(mlsGroupID: whole.mlsGroupID, ratchets: Data("r".utf8))
        }
        #expect(try store.group(mlsGroupID: whole.mlsGroupID)?.mlsRatchets == nil)
        #expect(throws: StorageError.unknownGroup(GroupID(Data(repeating: 9, count: 32)).description)) {
            try store.saveGroupRatchets(mlsGroupID: GroupID(Data(repeating: 9, count: 32)), ratchets: Data("r".utf8))
        }
        // Saved whole again after being apart: the trees' record goes with it.
        let apart = makeGroup(3)
        try store.saveGroup(apart)
        var again = apart
        again.mlsRatchets = nil
        try store.saveGroup(again)
        #expect(try store.group(mlsGroupID: apart.mlsGroupID)?.mlsRatchets == nil)
    }

    /// Someone with the file copies older secret trees back, to make us reuse a message key (and
    /// nonce) or open a message twice: refused like an older group row.
    @Test func olderSecretTreesCopiedBackAreRefused() throws {
        let folder = TemporaryStoreFolder()
        defer { folder.remove() }
        let store = try GRDBMarmotStore(path: folder.path, key: key)
        let group = makeGroup(4)
        try store.saveGroup(group)
        let old = try columns(store)
        try store.saveGroupRatchets(mlsGroupID: group.mlsGroupID, ratchets: Data("ratchets-2".utf8))
        try store.close()

        let queue = try DatabaseQueue(path: folder.path)
        try queue.write { db in
            try db.execute(
                sql: "UPDATE groups_v2 SET sealed_ratchets = ?, ratchet_version = ?",
                arguments: [old["sealed_ratchets"] as Data, old["ratchet_version"] as Int64])
        }
        try queue.close()
        let reopened = try GRDBMarmotStore(path: folder.path, key: key)
        #expect(throws: StorageError.self) { try reopened.group(mlsGroupID: group.mlsGroupID) }
        #expect(throws: StorageError.self) { try reopened.groups() }
        try reopened.close()

        // Setting the plaintext counter to the expected one does not help: it is sealed in.
        let forged = try DatabaseQueue(path: folder.path)
        try forged.write { db in try db.execute(sql: "UPDATE groups_v2 SET ratchet_version = ratchet_version + 1") }
        try forged.close()
        let again = try GRDBMarmotStore(path: folder.path, key: key)
        #expect(throws: StorageError.self) { try again.group(mlsGroupID: group.mlsGroupID) }
        try again.close()
    }

    @Test func theActivityColumnsReadWithoutOpeningTheRow() throws {
        let store = try GRDBMarmotStore.inMemory(key: key)
        let group = makeGroup(5)
        try store.saveGroup(group)
        #expect(try store.groupActivity(mlsGroupID: group.mlsGroupID) == GroupActivity(lastMessageAt: nil, unreadCount: 0))
        let peer = Keys.generate().publicKey
        let rumor = try ChatRumor(author: peer, content: "hi", createdAt: 1_800_000_100)
        try store.saveMessage(StoredMessage(
            rumor: rumor, mlsGroupID: group.mlsGroupID, isMine: false, deliveryState: .received, outerEventID: nil))
        #expect(try store.groupActivity(mlsGroupID: group.mlsGroupID) == GroupActivity(lastMessageAt: 1_800_000_100, unreadCount: 1))
        #expect(try store.groupActivity(mlsGroupID: GroupID(Data(repeating: 8, count: 32))) == nil)
    }

    /// The sealed state lives in `group_states_v2` (migration `v6-group-states`), so the per-message
    /// writes (secret trees, last-message time, unread count) touch a small row: they leave the state
    /// untouched, and `groups_v2` holds none of it. A store written before v6 (state in `groups_v2`)
    /// opens with every group, its state moved over; deleting a group deletes its state.
    @Test func theStateLivesApartAndAStoreFromBeforeKeepsIt() throws {
        let folder = TemporaryStoreFolder()
        defer { folder.remove() }
        let store = try GRDBMarmotStore(path: folder.path, key: key)
        let group = makeGroup(6), other = makeGroup(7, ratchets: nil)
        try store.saveGroup(group)
        try store.saveGroup(other)
        func stateRows() throws -> [Data] {
            try store.read { db in try Data.fetchAll(db, sql: "SELECT sealed_state FROM group_states_v2 ORDER BY group_ref") }
        }
        let states = try stateRows()
        #expect(states.count == 2)
        #expect(try store.read { db in try Int.fetchOne(db, sql: "SELECT max(length(sealed_state)) FROM groups_v2") } == 0)
        try store.saveGroupRatchets(mlsGroupID: group.mlsGroupID, ratchets: Data("ratchets-2".utf8))
        let peer = Keys.generate().publicKey
        try store.saveMessage(StoredMessage(
            rumor: try ChatRumor(author: peer, content: "hi", createdAt: 1_800_000_100), mlsGroupID: group.mlsGroupID,
            isMine: false, deliveryState: .received, outerEventID: nil))
        #expect(try stateRows() == states)
        var expected = group
        expected.mlsRatchets = Data("ratchets-2".utf8)
        expected.lastMessageAt = 1_800_000_100
        expected.unreadCount = 1
        try store.close()

        // Back to the layout before v6: the state in its old column, no table of its own.
        let queue = try DatabaseQueue(path: folder.path)
        try queue.write { db in
            try db.execute(sql: """
                UPDATE groups_v2 SET sealed_state = (SELECT s.sealed_state FROM group_states_v2 s WHERE s.group_ref = groups_v2.group_ref)
                """)
            try db.execute(sql: "DROP TABLE group_states_v2")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v6-group-states'")
        }
        try queue.close()

        let reopened = try GRDBMarmotStore(path: folder.path, key: key)
        #expect(try reopened.group(mlsGroupID: group.mlsGroupID) == expected)
        #expect(try reopened.group(mlsGroupID: other.mlsGroupID) == other)
        #expect(try reopened.groups().count == 2)
        #expect(try reopened.read { db in try Int.fetchOne(db, sql: "SELECT max(length(sealed_state)) FROM groups_v2") } == 0)
        try reopened.deleteGroup(mlsGroupID: other.mlsGroupID)
        #expect(try reopened.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM group_states_v2") } == 1)
        #expect(try reopened.groups().map(\.mlsGroupID) == [group.mlsGroupID])
    }
}
