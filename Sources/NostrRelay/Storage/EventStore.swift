import Foundation
import GRDB

/// Where the relay keeps its events.
public enum RelayStorage: Sendable, Equatable {
    /// Nothing survives a restart (a GRDB `DatabaseQueue` in memory).
    case inMemory
    /// A SQLite file in WAL mode (a GRDB `DatabasePool`); the relay keeps its events across restarts.
    case file(path: String)
}

/// Errors from the event store.
public enum EventStoreError: Error, Sendable, CustomStringConvertible {
    case cannotOpen(path: String, underlying: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let underlying): "cannot open relay database at \(path): \(underlying)"
        }
    }
}

/// SQLite storage of events with NIP-01 kind semantics (replaceable, addressable, ephemeral).
///
/// Every write is one transaction, so the replacement rule (newest wins, ties to the lowest id,
/// NIP-01 "Kinds") is checked and applied atomically.
///
/// With `maxStoredBytes`, the bytes of stored event JSON are counted (read at open, kept up to date in
/// the write transaction) and an event that would exceed the quota is refused (`.quotaExceeded`).
final class EventStore: @unchecked Sendable {
    private let writer: any DatabaseWriter
    let maxStoredBytes: Int64?
    // Bytes of stored event JSON; changed only inside write transactions (serialized), read under `lock`.
    private var usedBytes: Int64 = 0
    private let lock = NSLock()

    init(storage: RelayStorage, maxStoredBytes: Int64? = nil) throws {
        self.maxStoredBytes = maxStoredBytes
        var config = Configuration()
        config.label = "NostrRelay.EventStore"
        config.busyMode = .timeout(5)
        config.prepareDatabase { db in
            // WAL + NORMAL: durable across process crashes, one fsync per checkpoint instead of per commit.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        switch storage {
        case .inMemory:
            writer = try DatabaseQueue(configuration: config)
        case .file(let path):
            do {
                try RelayFiles.prepare(databasePath: path)
                writer = try DatabasePool(path: path, configuration: config)
            } catch {
                throw EventStoreError.cannotOpen(path: path, underlying: "\(error)")
            }
        }
        try EventSchema.migrator.migrate(writer)
        usedBytes = try writer.read { db in try Self.sumOfJSONBytes(db) }
    }

    /// Bytes of event JSON stored, as counted for the quota.
    var storedBytes: Int64 { lock.withLock { usedBytes } }

    /// Bytes of event JSON stored, summed from the database (tests, diagnostics).
    func measuredStoredBytes() async throws -> Int64 {
        try await writer.read { db in try Self.sumOfJSONBytes(db) }
    }

    private static func sumOfJSONBytes(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT COALESCE(SUM(LENGTH(CAST(json AS BLOB))), 0) FROM event") ?? 0
    }

    /// Releases the database file (for a restart on the same path).
    func close() throws {
        try writer.close()
    }

    /// Stores `event` unless it is a duplicate or an outdated replaceable/addressable version.
    ///
    /// Ephemeral events must not be passed here; the engine broadcasts them without storing.
    func store(_ event: StoredEvent) async throws -> StoreOutcome {
        try await writer.write { [self] db in
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM event WHERE id = ?", arguments: [event.id]) == true {
                return .duplicate
            }
            var replaced: [String] = []
            let added = Int64(event.json.utf8.count)
            var freed: Int64 = 0
            let storageClass = event.storageClass
            if storageClass == .replaceable || storageClass == .addressable {
                let dTag: String? = storageClass == .addressable ? event.dTag : nil
                let rows = try Row.fetchAll(
                    db,
                    sql: "SELECT seq, id, created_at, LENGTH(CAST(json AS BLOB)) AS bytes FROM event WHERE pubkey = ? AND kind = ? AND d_tag IS ?",
                    arguments: [event.pubkey, event.kind, dTag])
                for row in rows {
                    let existingID: String = row["id"]
                    let existingCreatedAt: Int64 = row["created_at"]
                    let existingWins = existingCreatedAt > event.createdAt
                        || (existingCreatedAt == event.createdAt && existingID < event.id)
                    if existingWins { return .outdated }
                }
                for row in rows {
                    let bytes: Int64 = row["bytes"]
                    freed += bytes
                }
                if let limit = maxStoredBytes, storedBytes - freed + added > limit { return .quotaExceeded(limit: limit) }
                for row in rows {
                    let seq: Int64 = row["seq"]
                    try db.execute(sql: "DELETE FROM event WHERE seq = ?", arguments: [seq])
                    replaced.append(row["id"])
                }
            } else if let limit = maxStoredBytes, storedBytes + added > limit {
                return .quotaExceeded(limit: limit)
            }
            try db.execute(
                sql: "INSERT INTO event (id, pubkey, created_at, kind, d_tag, json) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [event.id, event.pubkey, event.createdAt, event.kind,
                            storageClass == .addressable ? event.dTag : nil, event.json])
            let seq = db.lastInsertedRowID
            for tag in event.indexedTags {
                try db.execute(
                    sql: "INSERT INTO tag (event_seq, name, value) VALUES (?, ?, ?)",
                    arguments: [seq, tag.name, tag.value])
            }
            // Last, after every statement succeeded; the writer runs one transaction at a time.
            lock.withLock { usedBytes += added - freed }
            return .stored(replaced: replaced)
        }
    }

    /// Events matching any of `queries`, newest first, ties by lowest id (NIP-01 `limit` semantics);
    /// each query contributes at most its own `limit`.
    func query(_ queries: [StorageQuery]) async throws -> [QueriedEvent] {
        let satisfiable = queries.filter { !$0.isUnsatisfiable }
        if satisfiable.isEmpty { return [] }
        return try await writer.read { db in
            var seen = Set<String>()
            var result: [QueriedEvent] = []
            for query in satisfiable {
                let (sql, arguments) = Self.sql(for: query)
                let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
                while let row = try rows.next() {
                    let id: String = row[0]
                    if seen.insert(id).inserted {
                        result.append(QueriedEvent(id: id, createdAt: row[1], kind: row[3], json: row[2]))
                    }
                }
            }
            if satisfiable.count > 1 {
                result.sort { $0.createdAt != $1.createdAt ? $0.createdAt > $1.createdAt : $0.id < $1.id }
            }
            return result
        }
    }

    /// Number of stored events (tests, diagnostics).
    func count() async throws -> Int {
        try await writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM event") ?? 0 }
    }

    /// Builds the SELECT for one filter; every value is a bound argument.
    static func sql(for query: StorageQuery) -> (String, StatementArguments) {
        var clauses: [String] = []
        var values: [any DatabaseValueConvertible] = []
        func inList(_ column: String, _ items: [any DatabaseValueConvertible]) {
            clauses.append("\(column) IN (\(Array(repeating: "?", count: items.count).joined(separator: ",")))")
            values.append(contentsOf: items)
        }
        if let ids = query.ids { inList("id", ids) }
        if let authors = query.authors { inList("pubkey", authors) }
        if let kinds = query.kinds { inList("kind", kinds) }
        if let since = query.since { clauses.append("created_at >= ?"); values.append(since) }
        if let until = query.until { clauses.append("created_at <= ?"); values.append(until) }
        for (name, tagValues) in query.tags.sorted(by: { $0.key < $1.key }) {
            let marks = Array(repeating: "?", count: tagValues.count).joined(separator: ",")
            clauses.append("seq IN (SELECT event_seq FROM tag WHERE name = ? AND value IN (\(marks)))")
            values.append(name)
            values.append(contentsOf: tagValues)
        }
        var sql = "SELECT id, created_at, json, kind FROM event"
        if !clauses.isEmpty { sql += " WHERE " + clauses.joined(separator: " AND ") }
        sql += " ORDER BY created_at DESC, id ASC LIMIT ?"
        values.append(query.limit)
        return (sql, StatementArguments(values))
    }
}

/// Owner-only permissions of the relay database (0600) and a folder it creates (0700), set
/// explicitly whatever the umask, and tightened when an existing file is wider.
///
/// Why: the database holds every event the relay stored (gift-wrapped welcomes, group messages,
/// who talks to whom). The file is created here, before SQLite opens it, because SQLite gives the
/// `-wal` and `-shm` files it creates the database file's mode.
enum RelayFiles {
    static func prepare(databasePath path: String) throws {
        let manager = FileManager.default
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        if !manager.fileExists(atPath: folder) {
            try manager.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                        attributes: [.posixPermissions: 0o700])
            try manager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder)
        }
        if !manager.fileExists(atPath: path) {
            guard manager.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
            }
        }
        for file in [path, path + "-wal", path + "-shm"] where manager.fileExists(atPath: file) {
            let mode = (try manager.attributesOfItem(atPath: file)[.posixPermissions] as? Int).map { $0 & 0o777 }
            if mode != 0o600 { try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file) }
        }
    }
}
