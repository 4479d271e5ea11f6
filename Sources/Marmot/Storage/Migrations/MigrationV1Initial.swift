import GRDB

/// Migration "v1-initial" (frozen: a shipped migration is never edited).
///
/// The first schema: tables of the first layout.
enum MigrationV1Initial {
    static let name = "v1-initial"

    static func migrate(_ db: Database) throws {
        // Holds the sealed key check: opening with another key fails before anything else is read.
        try db.create(table: "store_meta") { t in
            t.primaryKey("name", .text)
            t.column("value", .blob).notNull()
        }
        try db.create(table: "groups") { t in
            t.primaryKey("mls_group_id", .blob)
            t.column("nostr_group_id", .blob).notNull().unique()
            t.column("sealed_mls_state", .blob).notNull()
            t.column("epoch", .integer).notNull()
            t.column("sealed_name", .blob).notNull()
            t.column("sealed_description", .blob).notNull()
            t.column("admins", .blob).notNull()
            t.column("relays", .text).notNull()
            t.column("peer", .blob)
            t.column("status", .text).notNull()
            t.column("last_message_at", .integer)
            t.column("unread_count", .integer).notNull().defaults(to: 0)
            t.column("created_at", .integer).notNull()
        }
        try db.create(table: "key_packages") { t in
            t.primaryKey("ref", .blob)
            t.column("sealed_private", .blob).notNull()
            t.column("d_tag", .text).notNull()
            t.column("event_id", .blob)
            t.column("legacy_event_id", .blob)
            t.column("created_at", .integer).notNull()
        }
        try db.create(table: "processed_events") { t in
            t.primaryKey("event_id", .blob)
            t.column("outcome", .text).notNull()
            t.column("processed_at", .integer).notNull().indexed()
            t.column("mls_group_id", .blob)
        }
        try db.create(table: "messages") { t in
            t.column("mls_group_id", .blob).notNull().references("groups", onDelete: .cascade)
            t.column("rumor_id", .blob).notNull()
            t.column("sender", .blob).notNull()
            t.column("kind", .integer).notNull()
            t.column("sealed_body", .blob).notNull()
            t.column("created_at", .integer).notNull()
            t.column("is_mine", .boolean).notNull()
            t.column("delivery_state", .text).notNull()
            t.column("outer_event_id", .blob)
            t.primaryKey(["mls_group_id", "rumor_id"])
        }
        try db.create(index: "messages_by_time", on: "messages", columns: ["mls_group_id", "created_at", "rumor_id"])
        try db.create(table: "group_event_keys") { t in
            t.column("mls_group_id", .blob).notNull().references("groups", onDelete: .cascade)
            t.column("epoch", .integer).notNull()
            t.column("sealed_key", .blob).notNull()
            t.primaryKey(["mls_group_id", "epoch"])
        }
        try db.create(table: "settings") { t in
            t.primaryKey("key", .text)
            t.column("sealed_value", .blob).notNull()
        }
    }
}
