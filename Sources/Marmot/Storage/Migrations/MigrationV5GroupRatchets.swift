import GRDB

/// Migration "v5-group-ratchets" (frozen: a shipped migration is never edited).
///
/// A group's secret trees apart from the rest of its state (`MLSGroup.serializedApart()`):
/// an application message rewrites only them, not the whole group (issue 27: at 1,000
/// members every message rewrote a 214 KB state). Existing rows stay whole until their next save.
enum MigrationV5GroupRatchets {
    static let name = "v5-group-ratchets"

    static func migrate(_ db: Database) throws {
        try db.alter(table: "groups_v2") { t in
            t.add(column: "sealed_ratchets", .blob)
            t.add(column: "ratchet_version", .integer).notNull().defaults(to: 0)
        }
    }
}
