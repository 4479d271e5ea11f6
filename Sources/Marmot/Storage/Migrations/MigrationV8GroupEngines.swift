import GRDB

/// Migration "v8-group-engines" (frozen: a shipped migration is never edited).
///
/// A group engine in rows (issue 24): one per engine for its rest, one per retained state
/// for its serialized state and link, one per state for its secret trees and witnesses
/// (rewritten per message: the state's row is not), one per seen digest (with the state a
/// shown message opened at). Each goes with its group.
enum MigrationV8GroupEngines {
    static let name = "v8-group-engines"

    static func migrate(_ db: Database) throws {
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
}
