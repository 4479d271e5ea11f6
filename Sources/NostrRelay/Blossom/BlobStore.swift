import Foundation
import GRDB
import Logging
import Nostr

/// One stored blob as the index knows it (BUD-02 blob descriptor without the URL).
struct BlobRecord: Sendable, Equatable {
    let sha256: String
    let size: Int64
    let type: String
    /// When the blob was first stored (list order for one owner uses that owner's upload time).
    let uploaded: Int64
}

/// What `BlobStore.commit` did.
enum BlobCommit: Sendable, Equatable {
    case created(BlobRecord)
    case existed(BlobRecord)
    case uploaderCapExceeded(limit: Int64)
}

/// What `BlobStore.removeOwnership` did.
enum BlobRemoval: Sendable, Equatable {
    case notFound
    case notOwner
    /// The owner's claim went; `deleted` is true when nobody owns the blob any more and its file went too.
    case removed(deleted: Bool)
}

/// Blob files on disk, named by their SHA-256, with an index of types and owners (BUD-01/02/12).
///
/// Why a temp file and a rename: an upload is streamed to `.incoming/` and renamed into place only
/// once complete and verified, so a crash or an aborted upload never leaves a partial blob under a
/// hash name; leftovers in `.incoming/` are removed at open. (NIOFileSystem writes the `.incoming/`
/// file itself through an unnamed temporary file linked in only when the write completes, so on
/// Linux even `.incoming/` never holds a partial upload.) The index is a sidecar SQLite file
/// (`index.sqlite`) in the same folder, so files and index move together; at open, index rows
/// without a file and files without a row are dropped.
///
/// Bytes are counted for the quota with reservations: an upload reserves bytes as they arrive, so
/// concurrent uploads together cannot exceed the quota.
final class BlobStore: @unchecked Sendable {
    let directory: URL
    let configuration: BlossomConfiguration
    private let writer: any DatabaseWriter
    private let logger: Logger
    /// Removed on close (a relay keeping events in memory keeps blobs in a temporary folder).
    private let isTemporary: Bool
    // Guarded by `lock`.
    private var usedBytes: Int64 = 0
    private var reservedBytes: Int64 = 0
    private var activeUploads = 0
    private let lock = NSLock()

    var incoming: URL { directory.appendingPathComponent(".incoming", isDirectory: true) }

    init(directory: URL, temporary: Bool, inMemoryIndex: Bool, configuration: BlossomConfiguration, logger: Logger) throws {
        self.directory = directory
        self.configuration = configuration
        self.logger = logger
        self.isTemporary = temporary
        let manager = FileManager.default
        for folder in [directory, directory.appendingPathComponent(".incoming", isDirectory: true)] {
            try manager.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try manager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder.path)
        }
        var config = Configuration()
        config.label = "NostrRelay.BlobStore"
        config.busyMode = .timeout(5)
        if inMemoryIndex {
            writer = try DatabaseQueue(configuration: config)
        } else {
            let path = directory.appendingPathComponent("index.sqlite").path
            try RelayFiles.prepare(databasePath: path)
            writer = try DatabasePool(path: path, configuration: config)
        }
        try BlobSchema.migrator.migrate(writer)
        try reconcile()
    }

    /// Closes the index; a temporary folder is removed with its blobs.
    func close() throws {
        try writer.close()
        if isTemporary { try? FileManager.default.removeItem(at: directory) }
    }

    /// Bytes of blobs stored (as counted for the quota).
    var storedBytes: Int64 { lock.withLock { usedBytes } }

    /// Bytes reserved by uploads in progress.
    var inFlightBytes: Int64 { lock.withLock { reservedBytes } }

    /// The file of a stored blob.
    func fileURL(_ sha256: String) -> URL { directory.appendingPathComponent(sha256, isDirectory: false) }

    // MARK: Reading

    func record(_ sha256: String) async throws -> BlobRecord? {
        try await writer.read { db in
            try Row.fetchOne(db, sql: "SELECT sha256, size, type, uploaded FROM blob WHERE sha256 = ?", arguments: [sha256])
                .map(Self.record)
        }
    }

    /// Blobs `owner` uploaded, newest upload first (BUD-12 `cursor`: the hash of the last one of the
    /// previous page, excluded).
    func list(owner: String, limit: Int, cursor: String?, since: Int64?, until: Int64?) async throws -> [BlobRecord] {
        try await writer.read { db in
            var sql = """
                SELECT blob.sha256, blob.size, blob.type, owner.uploaded AS uploaded
                FROM owner JOIN blob ON blob.sha256 = owner.sha256 WHERE owner.pubkey = ?
                """
            var arguments: [any DatabaseValueConvertible] = [owner]
            if let cursor,
               let anchor = try Int64.fetchOne(
                db, sql: "SELECT uploaded FROM owner WHERE pubkey = ? AND sha256 = ?", arguments: [owner, cursor]) {
                sql += " AND (owner.uploaded < ? OR (owner.uploaded = ? AND owner.sha256 > ?))"
                arguments += [anchor, anchor, cursor]
            }
            if let since { sql += " AND owner.uploaded >= ?"; arguments.append(since) }
            if let until { sql += " AND owner.uploaded <= ?"; arguments.append(until) }
            sql += " ORDER BY owner.uploaded DESC, owner.sha256 ASC LIMIT ?"
            arguments.append(limit)
            return try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)).map(Self.record)
        }
    }

    /// True when `owner` uploaded the blob `sha256`.
    func owns(_ owner: String, _ sha256: String) async throws -> Bool {
        try await writer.read { db in
            try Bool.fetchOne(db, sql: "SELECT 1 FROM owner WHERE sha256 = ? AND pubkey = ?", arguments: [sha256, owner]) ?? false
        }
    }

    /// Bytes of the blobs `owner` owns.
    func ownedBytes(_ owner: String) async throws -> Int64 {
        try await writer.read { db in
            try Int64.fetchOne(db, sql: """
                SELECT COALESCE(SUM(blob.size), 0) FROM owner JOIN blob ON blob.sha256 = owner.sha256 WHERE owner.pubkey = ?
                """, arguments: [owner]) ?? 0
        }
    }

    private static func record(_ row: Row) -> BlobRecord {
        BlobRecord(sha256: row["sha256"], size: row["size"], type: row["type"], uploaded: row["uploaded"])
    }

    // MARK: Uploads

    /// Takes an upload slot; false when `maxConcurrentUploads` are in progress.
    func beginUpload() -> Bool {
        lock.withLock {
            guard activeUploads < configuration.maxConcurrentUploads else { return false }
            activeUploads += 1
            return true
        }
    }

    func endUpload() { lock.withLock { activeUploads = max(0, activeUploads - 1) } }

    /// Reserves `count` more bytes for an upload in progress; false when that would pass the quota.
    func reserve(_ count: Int64) -> Bool {
        lock.withLock {
            if let quota = configuration.quotaBytes, usedBytes + reservedBytes + count > quota { return false }
            reservedBytes += count
            return true
        }
    }

    /// True when `count` more bytes cannot fit in the quota now (an upload announcing them is refused
    /// before its body is read).
    func wouldExceedQuota(_ count: Int64) -> Bool {
        lock.withLock {
            guard let quota = configuration.quotaBytes else { return false }
            return usedBytes + reservedBytes + count > quota
        }
    }

    /// Gives back bytes reserved by an upload that did not store them.
    func release(_ count: Int64) { lock.withLock { reservedBytes = max(0, reservedBytes - count) } }

    /// A fresh temporary file path in `.incoming/`.
    func temporaryFile() -> URL { incoming.appendingPathComponent(UUID().uuidString + ".part") }

    /// Moves a complete, verified upload into place and records `owner`; the `size` reserved bytes
    /// become stored bytes, or are released when the blob was already there.
    func commit(temporary: URL, sha256: String, size: Int64, type: String, owner: String, now: Int64) async throws -> BlobCommit {
        defer { try? FileManager.default.removeItem(at: temporary) }
        if let cap = configuration.maxBytesPerUploader {
            let owned = try await ownedBytes(owner)
            let alreadyOwned = try await owns(owner, sha256)
            if !alreadyOwned, owned + size > cap {
                release(size)
                return .uploaderCapExceeded(limit: cap)
            }
        }
        let target = fileURL(sha256)
        let result: BlobCommit = try await writer.write { [self] db in
            if let existing = try Row.fetchOne(
                db, sql: "SELECT sha256, size, type, uploaded FROM blob WHERE sha256 = ?", arguments: [sha256]).map(Self.record) {
                try db.execute(sql: "INSERT OR IGNORE INTO owner (sha256, pubkey, uploaded) VALUES (?, ?, ?)",
                               arguments: [sha256, owner, now])
                return .existed(existing)
            }
            // The rename is atomic on one file system; the row commits after it, and a crash in
            // between leaves a file without a row, which the next open removes.
            if FileManager.default.fileExists(atPath: target.path) { try FileManager.default.removeItem(at: target) }
            try FileManager.default.moveItem(at: temporary, to: target)
            try db.execute(sql: "INSERT INTO blob (sha256, size, type, uploaded) VALUES (?, ?, ?, ?)",
                           arguments: [sha256, size, type, now])
            try db.execute(sql: "INSERT INTO owner (sha256, pubkey, uploaded) VALUES (?, ?, ?)", arguments: [sha256, owner, now])
            return .created(BlobRecord(sha256: sha256, size: size, type: type, uploaded: now))
        }
        lock.withLock {
            reservedBytes = max(0, reservedBytes - size)
            if case .created = result { usedBytes += size }
        }
        return result
    }

    // MARK: Deleting

    /// Removes `owner`'s claim on a blob; the blob and its file go when nobody owns it (BUD-12).
    func removeOwnership(sha256: String, owner: String) async throws -> BlobRemoval {
        let outcome: (BlobRemoval, Int64) = try await writer.write { db in
            guard let size = try Int64.fetchOne(db, sql: "SELECT size FROM blob WHERE sha256 = ?", arguments: [sha256]) else {
                return (.notFound, 0)
            }
            try db.execute(sql: "DELETE FROM owner WHERE sha256 = ? AND pubkey = ?", arguments: [sha256, owner])
            guard db.changesCount > 0 else { return (.notOwner, 0) }
            let remaining = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM owner WHERE sha256 = ?", arguments: [sha256]) ?? 0
            guard remaining == 0 else { return (.removed(deleted: false), 0) }
            try db.execute(sql: "DELETE FROM blob WHERE sha256 = ?", arguments: [sha256])
            return (.removed(deleted: true), size)
        }
        if case .removed(deleted: true) = outcome.0 {
            // The row is gone first; a crash before this line leaves a file without a row, removed at open.
            try? FileManager.default.removeItem(at: fileURL(sha256))
            lock.withLock { usedBytes = max(0, usedBytes - outcome.1) }
        }
        return outcome.0
    }

    // MARK: Start-up

    /// Removes partial uploads, files without an index row and rows without a file; counts stored bytes.
    private func reconcile() throws {
        let manager = FileManager.default
        for name in (try? manager.contentsOfDirectory(atPath: incoming.path)) ?? [] {
            try? manager.removeItem(at: incoming.appendingPathComponent(name))
        }
        let known = Set(try writer.read { db in try String.fetchAll(db, sql: "SELECT sha256 FROM blob") })
        let files = Set(((try? manager.contentsOfDirectory(atPath: directory.path)) ?? []).filter { BlobHash.parse($0) != nil })
        for orphan in files.subtracting(known) {
            logger.notice("removing a blob file without an index entry", metadata: ["sha256": "\(orphan)"])
            try? manager.removeItem(at: fileURL(orphan))
        }
        let missing = known.subtracting(files)
        if !missing.isEmpty {
            logger.warning("dropping index entries whose blob file is gone", metadata: ["count": "\(missing.count)"])
            try writer.write { db in
                for hash in missing { try db.execute(sql: "DELETE FROM blob WHERE sha256 = ?", arguments: [hash]) }
            }
        }
        usedBytes = try writer.read { db in try Int64.fetchOne(db, sql: "SELECT COALESCE(SUM(size), 0) FROM blob") ?? 0 }
    }
}

/// The blob index schema as frozen, ordered migrations (never edited once released).
enum BlobSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-blobs-and-owners") { db in
            try db.execute(sql: """
                CREATE TABLE blob (
                    sha256 TEXT PRIMARY KEY NOT NULL,
                    size INTEGER NOT NULL,
                    type TEXT NOT NULL,
                    uploaded INTEGER NOT NULL
                );
                -- Who uploaded each blob (BUD-12: a delete removes one owner; the blob goes with the last).
                CREATE TABLE owner (
                    sha256 TEXT NOT NULL REFERENCES blob(sha256) ON DELETE CASCADE,
                    pubkey TEXT NOT NULL,
                    uploaded INTEGER NOT NULL,
                    PRIMARY KEY (sha256, pubkey)
                );
                CREATE INDEX owner_pubkey_uploaded ON owner(pubkey, uploaded);
                """)
        }
        return migrator
    }
}
