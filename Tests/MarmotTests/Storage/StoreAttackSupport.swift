import Foundation
import GRDB
import MLS
import Nostr
@testable import Marmot

/// What an attacker who copied the data folder sees: every cell of every table, read with GRDB
/// directly (no store, no key), and the raw bytes of the database files.
struct DatabaseDump {
    var cells: [(table: String, column: String, value: Data)] = []
    var fileBytes = Data()

    init(path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.read { db in
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
            for table in tables {
                for row in try Row.fetchAll(db, sql: "SELECT * FROM \"\(table)\"") {
                    for (column, value) in row {
                        switch value.storage {
                        case .blob(let data): cells.append((table, column, data))
                        case .string(let text): cells.append((table, column, Data(text.utf8)))
                        default: break
                        }
                    }
                }
            }
        }
        try queue.close()
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            fileBytes.append(try Data(contentsOf: folder.appendingPathComponent(file)))
        }
    }

    /// Where `needle` (as bytes, or as lowercase hex text) appears: "table.column", or "file".
    func locations(of needle: Data) -> [String] {
        let hex = Data(Hex.encode(needle).utf8)
        var found = cells.filter { $0.value.range(of: needle) != nil || $0.value.range(of: hex) != nil }
            .map { "\($0.table).\($0.column)" }
        if fileBytes.range(of: needle) != nil || fileBytes.range(of: hex) != nil { found.append("file") }
        return found
    }
}

/// Writes a database in the first layout exactly as the code on main did (migration `v1-initial`
/// only, rows inserted with SQL, values sealed with the nsec-only key and the `marmot-storage-v1`
/// associated data), so the upgrade path is tested against real old bytes.
enum V1DatabaseWriter {
    struct Message {
        var rumorID: EventID
        var sender: PublicKey
        var content: String
        var tags: [[String]]
        var createdAt: Int64
        var isMine: Bool
        var deliveryState: String
        var outerEventID: EventID?
    }

    struct Body: Encodable {
        var content: String
        var tags: [[String]]
    }

    static func write(
        path: String, key: StorageKey, group: StoredGroup, messages: [Message], keyPackage: StoredKeyPackage,
        processed: ProcessedEvent, epochKeys: [(UInt64, GroupEventKey)], settings: [String: Data]
    ) throws {
        try write(path: path, key: key, groups: [(group, messages)], keyPackage: keyPackage, processed: processed,
                  epochKeys: epochKeys, settings: settings)
    }

    static func write(
        path: String, key: StorageKey, groups: [(StoredGroup, [Message])], keyPackage: StoredKeyPackage,
        processed: ProcessedEvent, epochKeys: [(UInt64, GroupEventKey)], settings: [String: Data]
    ) throws {
        let queue = try DatabaseQueue(path: path)
        try MarmotMigrations.migrator.migrate(queue, upTo: "v1-initial")
        let cipher = StorageCipher(key: key)
        try queue.write { db in
            try db.execute(
                sql: "INSERT INTO store_meta (name, value) VALUES (?, ?)",
                arguments: ["key_check", try cipher.seal(Data("marmot storage key check".utf8),
                                                         .v1("store_meta", "value", row: Data("key_check".utf8)))])
            for (group, messages) in groups {
            let gid = group.mlsGroupID.bytes
            let relays = String(decoding: try JSONEncoder().encode(group.relays.map(\.string)), as: UTF8.self)
            try db.execute(
                sql: """
                    INSERT INTO groups (mls_group_id, nostr_group_id, sealed_mls_state, epoch, sealed_name, sealed_description,
                    admins, relays, peer, status, last_message_at, unread_count, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    gid, Data(group.nostrGroupID.bytes), try cipher.seal(group.mlsState, .v1("groups", "mls_state", row: gid)),
                    Int64(group.epoch), try cipher.sealString(group.name, .v1("groups", "name", row: gid)),
                    try cipher.sealString(group.groupDescription, .v1("groups", "description", row: gid)),
                    Data(group.admins.flatMap(\.bytes)), relays, group.peer.map { Data($0.bytes) }, group.status.rawValue,
                    group.lastMessageAt, group.unreadCount, group.createdAt,
                ])
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.withoutEscapingSlashes]
            for m in messages {
                let rid = Data(m.rumorID.bytes)
                let body = try encoder.encode(Body(content: m.content, tags: m.tags))
                try db.execute(
                    sql: """
                        INSERT INTO messages (mls_group_id, rumor_id, sender, kind, sealed_body, created_at, is_mine,
                        delivery_state, outer_event_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        gid, rid, Data(m.sender.bytes), 9, try cipher.seal(body, .v1("messages", "body", row: gid + rid)),
                        m.createdAt, m.isMine, m.deliveryState, m.outerEventID.map { Data($0.bytes) },
                    ])
            }
            }
            let gid = groups[0].0.mlsGroupID.bytes
            let ref = keyPackage.ref.bytes
            try db.execute(
                sql: "INSERT INTO key_packages (ref, sealed_private, d_tag, event_id, legacy_event_id, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [
                    ref, try cipher.seal(keyPackage.privateMaterial, .v1("key_packages", "private", row: ref)), keyPackage.dTag.value,
                    keyPackage.eventID.map { Data($0.bytes) }, keyPackage.legacyEventID.map { Data($0.bytes) }, keyPackage.createdAt,
                ])
            try db.execute(
                sql: "INSERT INTO processed_events (event_id, outcome, processed_at, mls_group_id) VALUES (?, ?, ?, ?)",
                arguments: [Data(processed.eventID.bytes), processed.outcome.rawValue, processed.processedAt, processed.mlsGroupID?.bytes])
            for (epoch, key) in epochKeys {
                var w = TLSWriter()
                w.writeOpaque(gid)
                w.write(epoch)
                try db.execute(
                    sql: "INSERT INTO group_event_keys (mls_group_id, epoch, sealed_key) VALUES (?, ?, ?)",
                    arguments: [gid, Int64(epoch), try cipher.seal(key.rawBytesForStorage, .v1("group_event_keys", "key", row: w.data))])
            }
            for (name, value) in settings {
                try db.execute(
                    sql: "INSERT INTO settings (key, sealed_value) VALUES (?, ?)",
                    arguments: [name, try cipher.seal(value, .v1("settings", "value", row: Data(name.utf8)))])
            }
        }
        try queue.close()
    }
}

/// A folder of its own for one database file, removed by `remove()`.
struct TemporaryStoreFolder {
    let folder: URL
    var path: String { folder.appendingPathComponent("marmot.sqlite").path }

    init() {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("marmot-store-\(UUID().uuidString)")
    }

    func remove() { try? FileManager.default.removeItem(at: folder) }
}
