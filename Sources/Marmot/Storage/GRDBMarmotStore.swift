import Foundation
import GRDB
import MLS
import Nostr

/// `MarmotStore` on SQLite through GRDB: a `DatabasePool` (WAL) for a file, a `DatabaseQueue` in
/// memory, in the keyed-lookup layout (`StoreCodec`): lookup columns hold HMAC hashes, every value
/// that names a person, group, relay, event or message is sealed with the `StorageKey`, and each
/// group's sealed state carries a version that must match the store's sealed version record, so an
/// older state copied back into its row is refused (`StorageError.rollback`).
///
/// Plaintext columns hold only keyed hashes, sealed blobs, counters (unread, version, epoch of a
/// group-event key), timestamps (`created_at`, `last_message_at`, `processed_at`, which relays see
/// anyway) and enums (status, delivery state, outcome, is-mine).
///
/// Files: the folder holding the database is made 0700 and the database with its `-wal` and `-shm`
/// files 0600, and deleted content is zeroed (`secure_delete`).
public final class GRDBMarmotStore: MarmotStore, Sendable {
    let writer: any DatabaseWriter
    let codec: StoreCodec
    let gate = AccessGate()
    /// This store's `UnitOfWork` key (thread-dictionary), made once: every store call looks it up.
    let unitKey = UnitOfWork.newKey()

    /// Opens (creating if needed) the database file at `path`; `.wrongKey` if it was made with another
    /// key. A database made with `legacyKey` (the nsec-only key of earlier versions) is rekeyed to
    /// `key` in place, in one transaction; one in the first layout is moved to the current one.
    public convenience init(path: String, key: StorageKey, legacyKey: StorageKey? = nil) throws(StorageError) {
        try StoreFiles.prepare(databasePath: path)
        var configuration = Configuration()
        // Another connection (a session being closed in the same process) may hold the lock briefly.
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA secure_delete = ON") }
        let pool: DatabasePool
        do { pool = try DatabasePool(path: path, configuration: configuration) } catch { throw .database("\(error)") }
        try self.init(writer: pool, key: key, legacyKey: legacyKey)
        try StoreFiles.tighten(databasePath: path)
    }

    /// A fresh store that lives in memory only.
    public static func inMemory(key: StorageKey) throws(StorageError) -> GRDBMarmotStore {
        let queue: DatabaseQueue
        do { queue = try DatabaseQueue() } catch { throw .database("\(error)") }
        return try GRDBMarmotStore(writer: queue, key: key, legacyKey: nil)
    }

    init(writer: any DatabaseWriter, key: StorageKey, legacyKey: StorageKey?) throws(StorageError) {
        self.writer = writer
        self.codec = StoreCodec(key: key)
        do { try MarmotMigrations.migrator.migrate(writer) } catch { throw .database("migration failed: \(error)") }
        try prepareLayout(legacyCodec: legacyKey.map(StoreCodec.init(key:)))
        do { try moveLegacyModerationGrants(); try moveLegacyProfiles(); try moveLegacyOutbox(); try moveLegacyInvitations(); try moveLegacyMedia() } catch let error as StorageError { throw error } catch { throw .database("\(error)") }
    }

    /// Closes the database once the calls in progress returned; later calls fail with `.closed`.
    /// A task still running when its owner shuts down then gets an error instead of touching a freed
    /// SQLite connection.
    public func close() throws(StorageError) {
        guard gate.close() else { return }
        do { try writer.close() } catch { throw .database("\(error)") }
    }

    /// The migrations applied so far, in order.
    public func appliedMigrations() throws(StorageError) -> [String] {
        try read { db in try MarmotMigrations.migrator.appliedMigrations(db) }
    }

    // MARK: Access with typed errors

    func read<T>(_ body: (Database) throws -> T) throws(StorageError) -> T {
        try gate.enter()
        defer { gate.leave() }
        do {
            if let unit = UnitOfWork.current(unitKey) { return try body(unit) }
            return try writer.read(body)
        } catch let error as StorageError { throw error } catch {
            throw .database("\(error)")
        }
    }

    func write<T>(_ body: (Database) throws -> T) throws(StorageError) -> T {
        try gate.enter()
        defer { gate.leave() }
        do {
            if let unit = UnitOfWork.current(unitKey) { return try body(unit) }
            return try writer.write(body)
        } catch let error as StorageError { throw error } catch {
            throw .database("\(error)")
        }
    }

    /// Runs `body`'s store calls in one transaction: all of them are kept, or none (architecture
    /// review §3.3-e: the engine's rows of a send were written before its envelope and outbox row,
    /// so a crash between them encrypted it again on resume). Calls on other threads wait, as for
    /// any write; a unit inside a unit joins it.
    public func unitOfWork<T>(_ body: () throws -> T) throws -> T {
        if UnitOfWork.current(unitKey) != nil { return try body() }
        try gate.enter()
        defer { gate.leave() }
        do {
            return try writer.write { db in try UnitOfWork.run(on: db, key: unitKey, body) }
        } catch let error as StorageError { throw error } catch let error as MarmotStoreUnitError {
            throw error.underlying
        } catch {
            throw StorageError.database("\(error)")
        }
    }

    // MARK: Groups

    public func saveGroup(_ group: StoredGroup) throws {
        let codec = self.codec
        try write { db in
            var versions = try Self.groupVersions(db, codec)
            try Self.writeGroup(db, group, codec, &versions)
            try Self.saveGroupVersions(db, codec, versions)
        }
    }

    /// Writes a group's row with the next version of its row (and of its secret trees when kept apart).
    static func writeGroup(_ db: Database, _ group: StoredGroup, _ codec: StoreCodec, _ versions: inout GroupVersions) throws {
        let ref = codec.groupRef(group.mlsGroupID.bytes)
        let version = (versions[ref] ?? 0) + 1
        let ratchetsRef = codec.ratchetsRef(ref)
        let ratchetVersion = (versions[ratchetsRef] ?? 0) + 1
        let row = try codec.groupRow(group, version: version, ratchetVersion: ratchetVersion)
        try row.save(db)
        versions[ref] = version
        versions[ratchetsRef] = group.mlsRatchets == nil ? nil : ratchetVersion
    }

    public func saveGroupRatchets(mlsGroupID: GroupID, ratchets: Data) throws {
        let ref = codec.groupRef(mlsGroupID.bytes)
        let codec = self.codec
        try write { db in
            guard let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT version, sealed_ratchets IS NOT NULL FROM groups_v2 WHERE group_ref = ?"),
                arguments: [ref])
            else { throw StorageError.unknownGroup(mlsGroupID.description) }
            let version: Int64 = try row.decode(atIndex: 0)
            guard try row.decode(Bool.self, atIndex: 1) else {
                throw StorageError.corruptRow("groups.sealed_ratchets: the group's state is stored whole")
            }
            var versions = try Self.groupVersions(db, codec)
            let ratchetsRef = codec.ratchetsRef(ref)
            let ratchetVersion = (versions[ratchetsRef] ?? 0) + 1
            let sealed = try codec.cipher.seal(ratchets, StoreCodec.ratchetsContext(ref, version, ratchetVersion))
            try db.cachedStatement(sql: "UPDATE groups_v2 SET sealed_ratchets = ?, ratchet_version = ? WHERE group_ref = ?")
                .execute(arguments: [sealed, ratchetVersion, ref])
            versions[ratchetsRef] = ratchetVersion
            try Self.saveGroupVersions(db, codec, versions)
        }
    }

    public func group(mlsGroupID: GroupID) throws -> StoredGroup? {
        let codec = self.codec
        let ref = codec.groupRef(mlsGroupID.bytes)
        return try read { db in
            guard let row = try GroupRow.fetchRows(db, "WHERE g.group_ref = ?", arguments: [ref]).first else { return nil }
            return try codec.storedGroup(row, versions: try Self.groupVersions(db, codec))
        }
    }

    public func groupActivity(mlsGroupID: GroupID) throws -> GroupActivity? {
        let ref = codec.groupRef(mlsGroupID.bytes)
        return try read { db in
            try Row.fetchOne(
                db.cachedStatement(sql: "SELECT last_message_at, unread_count FROM groups_v2 WHERE group_ref = ?"), arguments: [ref]
            ).map { GroupActivity(lastMessageAt: try $0.decode(atIndex: 0), unreadCount: try $0.decode(atIndex: 1)) }
        }
    }

    public func group(nostrGroupID: NostrGroupID) throws -> StoredGroup? {
        let codec = self.codec
        return try read { db in
            guard let row = try GroupRow.fetchRows(db, "WHERE g.nostr_ref = ?", arguments: [codec.nostrRef(nostrGroupID)]).first
            else { return nil }
            return try codec.storedGroup(row, versions: try Self.groupVersions(db, codec))
        }
    }

    public func groups() throws -> [StoredGroup] {
        let codec = self.codec
        return try read { db in
            let versions = try Self.groupVersions(db, codec)
            // Prepared once and read by column, like the single-group read (issue 27).
            return try GroupRow.fetchRows(db, "ORDER BY COALESCE(g.last_message_at, g.created_at) DESC, g.group_ref")
                .map { try codec.storedGroup($0, versions: versions) }
        }
    }

    public func deleteGroup(mlsGroupID: GroupID) throws {
        let ref = codec.groupRef(mlsGroupID.bytes)
        let codec = self.codec
        try write { db in
            // Its state goes with it (the foreign key cascades too; said here, not assumed).
            try db.execute(sql: "DELETE FROM group_states_v2 WHERE group_ref = ?", arguments: [ref])
            var versions = try Self.groupVersions(db, codec)
            // Its engine's rows and their version records go with it too.
            try Self.forgetEngineVersions(db, ref, codec, &versions)
            try db.execute(sql: "DELETE FROM engines_v2 WHERE group_ref = ?", arguments: [ref])
            guard try GroupRow.deleteOne(db, key: ref) else { return }
            versions[ref] = nil
            versions[codec.ratchetsRef(ref)] = nil
            try Self.saveGroupVersions(db, codec, versions)
        }
    }

    public func markGroupRead(mlsGroupID: GroupID) throws {
        let ref = codec.groupRef(mlsGroupID.bytes)
        try write { db in
            _ = try GroupRow.filter(key: ref).updateAll(db, GroupRow.Columns.unreadCount.set(to: 0))
        }
    }

    static func saveGroupVersions(_ db: Database, _ codec: StoreCodec, _ versions: GroupVersions) throws {
        try db.cachedStatement(
            sql: "INSERT INTO store_meta (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value"
        ).execute(arguments: [StoreCodec.groupVersionsName, try codec.sealVersions(versions)])
    }

    static func groupVersions(_ db: Database, _ codec: StoreCodec) throws -> GroupVersions {
        let sealed = try Data.fetchOne(
            db.cachedStatement(sql: "SELECT value FROM store_meta WHERE name = ?"), arguments: [StoreCodec.groupVersionsName])
        return try codec.openVersions(sealed)
    }
}

/// Counts the store calls in progress so `close()` waits for them and refuses later ones (GRDB's
/// connections must not be closed under a running statement).
final class AccessGate: @unchecked Sendable {
    private let condition = NSCondition()
    private var inFlight = 0
    private var closed = false

    func enter() throws(StorageError) {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { throw .closed }
        inFlight += 1
    }

    func leave() {
        condition.lock()
        inFlight -= 1
        if inFlight == 0 { condition.broadcast() }
        condition.unlock()
    }

    /// Marks the gate closed and waits for the calls in progress; false if it was already closed.
    func close() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return false }
        closed = true
        while inFlight > 0 { condition.wait() }
        return true
    }
}
