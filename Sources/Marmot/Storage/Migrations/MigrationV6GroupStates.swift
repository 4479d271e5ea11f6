import GRDB

/// Migration "v6-group-states" (frozen: a shipped migration is never edited).
///
/// A group's sealed state in a table of its own: SQLite rewrites a row whole, so with the
/// state in `groups_v2` every message (its secret trees, its last-message time and unread
/// count) rewrote and re-read the state's pages too (issue 27: at 1,000 members an update of
/// that row cost twice that of a small one). `groups_v2.sealed_state` stays, empty.
enum MigrationV6GroupStates {
    static let name = "v6-group-states"

    static func migrate(_ db: Database) throws {
        try db.create(table: "group_states_v2") { t in
            t.primaryKey("group_ref", .blob).references("groups_v2", onDelete: .cascade)
            t.column("sealed_state", .blob).notNull()
        }
        try db.execute(sql: "INSERT INTO group_states_v2 (group_ref, sealed_state) SELECT group_ref, sealed_state FROM groups_v2")
        try db.execute(sql: "UPDATE groups_v2 SET sealed_state = X''")
    }
}
