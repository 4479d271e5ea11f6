import GRDB

/// The schema, as an ordered list of frozen migrations. A shipped migration is never edited: every
/// change is a new migration appended at the end.
enum MarmotMigrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-initial") { db in
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
        // The keyed-lookup layout: plaintext columns hold only keyed hashes (HMAC-SHA256 under a key
        // derived from the StorageKey), sealed blobs, counters, timestamps and enums. The rows of the
        // v1 tables are moved here by `GRDBMarmotStore`'s key-aware data migration right after
        // `migrate()` (this closure has no key), which then drops the v1 tables.
        migrator.registerMigration("v2-keyed-lookups") { db in
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
        // Disappearing messages (v2 component 0x8005): when each message expires, in clear and
        // indexed, so the sweep finds them without opening every sealed record.
        migrator.registerMigration("v3-message-expiry") { db in
            try db.alter(table: "messages_v2") { t in t.add(column: "expires_at", .integer) }
            try db.create(index: "messages_v2_by_expiry", on: "messages_v2", columns: ["expires_at"])
        }
        // The outbox (our pending and failed messages), read for every chat at each start: a
        // partial index holds only those rows, so start-up no longer scans every stored message
        // of every chat (issue 27: 100,000 messages made the cold start scale with history).
        migrator.registerMigration("v4-outbox-index") { db in
            try db.execute(sql: """
                CREATE INDEX messages_v2_outbox ON messages_v2(group_ref, created_at)
                WHERE is_mine = 1 AND delivery_state IN ('pending', 'failed')
                """)
        }
        // A group's secret trees apart from the rest of its state (`MLSGroup.serializedApart()`):
        // an application message rewrites only them, not the whole group (issue 27: at 1,000
        // members every message rewrote a 214 KB state). Existing rows stay whole until their next save.
        migrator.registerMigration("v5-group-ratchets") { db in
            try db.alter(table: "groups_v2") { t in
                t.add(column: "sealed_ratchets", .blob)
                t.add(column: "ratchet_version", .integer).notNull().defaults(to: 0)
            }
        }
        // A group's sealed state in a table of its own: SQLite rewrites a row whole, so with the
        // state in `groups_v2` every message (its secret trees, its last-message time and unread
        // count) rewrote and re-read the state's pages too (issue 27: at 1,000 members an update of
        // that row cost twice that of a small one). `groups_v2.sealed_state` stays, empty.
        migrator.registerMigration("v6-group-states") { db in
            try db.create(table: "group_states_v2") { t in
                t.primaryKey("group_ref", .blob).references("groups_v2", onDelete: .cascade)
                t.column("sealed_state", .blob).notNull()
            }
            try db.execute(sql: "INSERT INTO group_states_v2 (group_ref, sealed_state) SELECT group_ref, sealed_state FROM groups_v2")
            try db.execute(sql: "UPDATE groups_v2 SET sealed_state = X''")
        }
        // The epoch each message was read or encrypted in, so a branch the group leaves finds its
        // messages after the fork (to mark others', to send ours again) after a restart too
        // (issue 24). Older rows stay without one.
        migrator.registerMigration("v7-message-epochs") { db in
            try db.alter(table: "messages_v2") { t in t.add(column: "epoch", .integer) }
            try db.execute(sql: "CREATE INDEX messages_v2_by_epoch ON messages_v2(group_ref, epoch) WHERE epoch IS NOT NULL")
        }
        // A group engine in rows (issue 24): one per engine for its rest, one per retained state
        // for its serialized state and link, one per state for its secret trees and witnesses
        // (rewritten per message: the state's row is not), one per seen digest (with the state a
        // shown message opened at). Each goes with its group.
        migrator.registerMigration("v8-group-engines") { db in
            try db.create(table: "engines_v2") { t in
                t.primaryKey("group_ref", .blob).references("groups_v2", onDelete: .cascade)
                t.column("version", .integer).notNull()
                t.column("sealed_rest", .blob).notNull()
            }
            try db.create(table: "engine_states_v2") { t in
                t.column("group_ref", .blob).notNull().references("engines_v2", onDelete: .cascade)
                t.column("node", .integer).notNull()
                t.column("version", .integer).notNull()
                t.column("sealed_state", .blob).notNull()
                t.column("sealed_link", .blob).notNull()
                t.primaryKey(["group_ref", "node"])
            }
            try db.create(table: "engine_nodes_v2") { t in
                t.column("group_ref", .blob).notNull().references("engines_v2", onDelete: .cascade)
                t.column("node", .integer).notNull()
                t.column("ratchet_version", .integer).notNull()
                t.column("sealed_ratchets", .blob).notNull()
                t.column("witness_version", .integer).notNull()
                t.column("sealed_witnesses", .blob).notNull()
                t.primaryKey(["group_ref", "node"])
            }
            try db.create(table: "engine_seen_v2") { t in
                t.column("group_ref", .blob).notNull().references("engines_v2", onDelete: .cascade)
                t.column("digest_ref", .blob).notNull()
                t.column("epoch", .integer).notNull()
                // The digest, and the state a shown message opened at (if shown), sealed.
                t.column("sealed_value", .blob).notNull()
                t.primaryKey(["group_ref", "digest_ref"])
            }
        }
        return migrator
    }
}
