import GRDB

/// Migration "v9-engine-held" (frozen: a shipped migration is never edited).
///
/// The messages a group engine holds on competing branches, one row each (issue 43, D2): they
/// were part of the engine's rest, re-sealed whole whenever it changed, so a competing branch's
/// traffic rewrote everything held so far with each message. Rows of an engine written before
/// stay in its rest until the engine next opens, which moves them here.
enum MigrationV9EngineHeld {
    static let name = "v9-engine-held"

    static func migrate(_ db: Database) throws {
        try db.create(table: "engine_held_v2") { t in
            t.column("group_ref", .blob).notNull().references("engines_v2", onDelete: .cascade)
            t.column("node", .integer).notNull()
            t.column("position", .integer).notNull()
            // The held message (`EngineRecord.encoded(_: HeldMessage)`), sealed to its row.
            t.column("sealed_value", .blob).notNull()
            t.primaryKey(["group_ref", "node", "position"])
        }
    }
}
