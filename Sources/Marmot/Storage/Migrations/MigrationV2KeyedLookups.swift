import GRDB

/// Migration "v2-keyed-lookups" (frozen: a shipped migration is never edited).
///
/// The keyed-lookup layout: plaintext columns hold only keyed hashes (HMAC-SHA256 under a key
/// derived from the StorageKey), sealed blobs, counters, timestamps and enums. The rows of the
/// v1 tables are moved here by `GRDBMarmotStore`'s key-aware data migration right after
/// `migrate()` (a migration has no key), which then drops the v1 tables.
enum MigrationV2KeyedLookups {
    static let name = "v2-keyed-lookups"

    static func migrate(_ db: Database) throws {
        try db.create(table: "groups_v2") { t in
            t.primaryKey("group_ref", .blob)
            t.column("nostr_ref", .blob).notNull().unique()
            // Bumped on every save and bound into the sealed values' associated data; the current
            // value of each group is also kept in the sealed `group_versions` record of store_meta.
            t.column("version", .integer).notNull()
            t.column("sealed_state", .blob).notNull()
            t.column("sealed_meta", .blob).notNull()
            t.column("status", .text).notNull()
            t.column("last_message_at", .integer)
            t.column("unread_count", .integer).notNull().defaults(to: 0)
            t.column("created_at", .integer).notNull()
        }
        try db.create(table: "messages_v2") { t in
            t.column("group_ref", .blob).notNull().references("groups_v2", onDelete: .cascade)
            t.column("message_ref", .blob).notNull()
            t.column("sealed_record", .blob).notNull()
            t.column("sealed_outer_event_id", .blob)
            t.column("created_at", .integer).notNull()
            t.column("is_mine", .boolean).notNull()
            t.column("delivery_state", .text).notNull()
            t.primaryKey(["group_ref", "message_ref"])
        }
        try db.create(index: "messages_v2_by_time", on: "messages_v2", columns: ["group_ref", "created_at"])
        try db.create(table: "key_packages_v2") { t in
            t.primaryKey("ref_hash", .blob)
            t.column("sealed_record", .blob).notNull()
            t.column("created_at", .integer).notNull()
        }
        try db.create(table: "processed_events_v2") { t in
            t.primaryKey("event_ref", .blob)
            t.column("outcome", .text).notNull()
            t.column("processed_at", .integer).notNull().indexed()
            // The event id and its group, sealed (the key is a keyed hash of the event id).
            t.column("sealed_record", .blob).notNull()
        }
        try db.create(table: "group_event_keys_v2") { t in
            t.column("group_ref", .blob).notNull().references("groups_v2", onDelete: .cascade)
            t.column("epoch", .integer).notNull()
            t.column("sealed_key", .blob).notNull()
            t.primaryKey(["group_ref", "epoch"])
        }
        try db.create(table: "settings_v2") { t in
            t.primaryKey("key_ref", .blob)
            // The setting's name and value, sealed.
            t.column("sealed_value", .blob).notNull()
        }
    }
}
