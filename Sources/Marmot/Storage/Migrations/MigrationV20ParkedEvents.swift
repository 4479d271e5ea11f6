import GRDB

/// Migration "v20-parked-events" (frozen: a shipped migration is never edited).
///
/// A group's parked kind-445 events (`ParkedEvents`), one row each, gone with their group (surface
/// review 2026-12-01, N2): they were one sealed settings record per group (`client.parked.<group>`),
/// rewritten whole as junk was parked and read whole at every start. A home written before keeps
/// that record until the group's parked events are next loaded, which moves them here.
enum MigrationV20ParkedEvents {
    static let name = "v20-parked-events"

    static func migrate(_ db: Database) throws {
        try db.create(table: "parked_events_v2") { t in
            t.column("group_ref", .blob).notNull().references("groups_v2", onDelete: .cascade)
            // The order events were parked in, per group.
            t.column("position", .integer).notNull()
            // Why it waits: 0 it did not open, 1 it opened and waits for another event, 2 it is
            // held on a branch that is not selected.
            t.column("note", .integer).notNull().defaults(to: 0)
            // The event's JSON, sealed to its row.
            t.column("sealed_value", .blob).notNull()
            t.primaryKey(["group_ref", "position"])
        }
    }
}
