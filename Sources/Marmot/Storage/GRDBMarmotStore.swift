import Foundation
import GRDB
import MLS
import Nostr

/// `MarmotStore` on SQLite through GRDB: a `DatabasePool` (WAL) for a file, a `DatabaseQueue` in
/// memory. Secret columns (MLS state, KeyPackage private material, group name and description,
/// message content and tags, group-event keys, settings) are sealed with the `StorageKey`.
public final class GRDBMarmotStore: MarmotStore, Sendable {
    let writer: any DatabaseWriter
    let cipher: StorageCipher

    /// Opens (creating if needed) the database file at `path`; `.wrongKey` if it was made with another key.
    public convenience init(path: String, key: StorageKey) throws(StorageError) {
        var configuration = Configuration()
        // Another connection (a session being closed in the same process) may hold the lock briefly.
        configuration.busyMode = .timeout(10)
        let pool: DatabasePool
        do { pool = try DatabasePool(path: path, configuration: configuration) } catch { throw .database("\(error)") }
        try self.init(writer: pool, key: key)
    }

    /// A fresh store that lives in memory only.
    public static func inMemory(key: StorageKey) throws(StorageError) -> GRDBMarmotStore {
        let queue: DatabaseQueue
        do { queue = try DatabaseQueue() } catch { throw .database("\(error)") }
        return try GRDBMarmotStore(writer: queue, key: key)
    }

    init(writer: any DatabaseWriter, key: StorageKey) throws(StorageError) {
        self.writer = writer
        self.cipher = StorageCipher(key: key)
        do { try MarmotMigrations.migrator.migrate(writer) } catch { throw .database("migration failed: \(error)") }
        try checkKey()
    }

    /// Closes the database; later calls fail.
    public func close() throws(StorageError) {
        do { try writer.close() } catch { throw .database("\(error)") }
    }

    /// The migrations applied so far, in order.
    public func appliedMigrations() throws(StorageError) -> [String] {
        try read { db in try MarmotMigrations.migrator.appliedMigrations(db) }
    }

    private static let keyCheckName = "key_check"
    private static let keyCheckPlaintext = Data("marmot storage key check".utf8)

    private func checkKey() throws(StorageError) {
        let context = SealContext("store_meta", "value", row: Data(Self.keyCheckName.utf8))
        try write { db in
            if let row = try StoreMetaRow.fetchOne(db, key: Self.keyCheckName) {
                guard (try? self.cipher.open(row.value, context)) == Self.keyCheckPlaintext else { throw StorageError.wrongKey }
            } else {
                try StoreMetaRow(name: Self.keyCheckName, value: try self.cipher.seal(Self.keyCheckPlaintext, context)).insert(db)
            }
        }
    }

    // MARK: Access with typed errors

    func read<T>(_ body: (Database) throws -> T) throws(StorageError) -> T {
        do { return try writer.read(body) } catch let error as StorageError { throw error } catch {
            throw .database("\(error)")
        }
    }

    func write<T>(_ body: (Database) throws -> T) throws(StorageError) -> T {
        do { return try writer.write(body) } catch let error as StorageError { throw error } catch {
            throw .database("\(error)")
        }
    }

    // MARK: Groups

    public func saveGroup(_ group: StoredGroup) throws {
        let row = try groupRow(group)
        try write { db in try row.save(db) }
    }

    public func group(mlsGroupID: GroupID) throws -> StoredGroup? {
        try read { db in try GroupRow.fetchOne(db, key: mlsGroupID.bytes) }.map(storedGroup)
    }

    public func group(nostrGroupID: NostrGroupID) throws -> StoredGroup? {
        try read { db in
            try GroupRow.filter(GroupRow.Columns.nostrGroupID == Data(nostrGroupID.bytes)).fetchOne(db)
        }.map(storedGroup)
    }

    public func groups() throws -> [StoredGroup] {
        try read { db in
            try GroupRow.order(sql: "COALESCE(last_message_at, created_at) DESC, mls_group_id").fetchAll(db)
        }.map(storedGroup)
    }

    public func deleteGroup(mlsGroupID: GroupID) throws {
        try write { db in _ = try GroupRow.deleteOne(db, key: mlsGroupID.bytes) }
    }

    public func markGroupRead(mlsGroupID: GroupID) throws {
        try write { db in
            _ = try GroupRow.filter(key: mlsGroupID.bytes).updateAll(db, GroupRow.Columns.unreadCount.set(to: 0))
        }
    }

    private func groupRow(_ g: StoredGroup) throws(StorageError) -> GroupRow {
        let key = g.mlsGroupID.bytes
        let relays: String
        do { relays = String(decoding: try Self.jsonEncoder.encode(g.relays.map(\.string)), as: UTF8.self) } catch {
            throw .corruptRow("relays do not encode")
        }
        return GroupRow(
            mlsGroupID: key, nostrGroupID: Data(g.nostrGroupID.bytes),
            sealedMLSState: try cipher.seal(g.mlsState, SealContext("groups", "mls_state", row: key)),
            epoch: Int64(bitPattern: g.epoch),
            sealedName: try cipher.sealString(g.name, SealContext("groups", "name", row: key)),
            sealedDescription: try cipher.sealString(g.groupDescription, SealContext("groups", "description", row: key)),
            admins: Data(g.admins.flatMap(\.bytes)), relays: relays, peer: g.peer.map { Data($0.bytes) },
            status: g.status.rawValue, lastMessageAt: g.lastMessageAt, unreadCount: g.unreadCount, createdAt: g.createdAt)
    }

    private func storedGroup(_ row: GroupRow) throws -> StoredGroup {
        let key = row.mlsGroupID
        guard row.admins.count % 32 == 0 else { throw StorageError.corruptRow("groups.admins length") }
        let admins = try stride(from: 0, to: row.admins.count, by: 32).map { offset in
            try Self.publicKey(row.admins.dropFirst(offset).prefix(32), "groups.admins")
        }
        let relayStrings: [String]
        do { relayStrings = try JSONDecoder().decode([String].self, from: Data(row.relays.utf8)) } catch {
            throw StorageError.corruptRow("groups.relays")
        }
        guard let status = GroupStatus(rawValue: row.status) else { throw StorageError.corruptRow("groups.status \(row.status)") }
        let nostrGroupID: NostrGroupID
        do { nostrGroupID = try NostrGroupID(bytes: row.nostrGroupID) } catch { throw StorageError.corruptRow("groups.nostr_group_id") }
        return StoredGroup(
            mlsGroupID: GroupID(key), nostrGroupID: nostrGroupID,
            mlsState: try cipher.open(row.sealedMLSState, SealContext("groups", "mls_state", row: key)),
            epoch: UInt64(bitPattern: row.epoch),
            name: try cipher.openString(row.sealedName, SealContext("groups", "name", row: key)),
            groupDescription: try cipher.openString(row.sealedDescription, SealContext("groups", "description", row: key)),
            admins: admins, relays: try relayStrings.map { try RelayURL($0) },
            peer: try row.peer.map { try Self.publicKey($0, "groups.peer") }, status: status,
            lastMessageAt: row.lastMessageAt, unreadCount: row.unreadCount, createdAt: row.createdAt)
    }

    static var jsonEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }

    // MARK: Typed ids from columns

    static func publicKey<D: Collection>(_ bytes: D, _ column: String) throws -> PublicKey where D.Element == UInt8 {
        do { return try PublicKey(bytes: bytes) } catch { throw StorageError.corruptRow("\(column) is not a public key") }
    }

    static func eventID(_ bytes: Data, _ column: String) throws -> EventID {
        do { return try EventID(bytes: bytes) } catch { throw StorageError.corruptRow("\(column) is not an event id") }
    }
}
