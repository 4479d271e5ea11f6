import GRDB

/// Migration "v3-message-expiry" (frozen: a shipped migration is never edited).
///
/// Disappearing messages (v2 component 0x8005): when each message expires, in clear and
/// indexed, so the sweep finds them without opening every sealed record.
enum MigrationV3MessageExpiry {
    static let name = "v3-message-expiry"

    static func migrate(_ db: Database) throws {
        try db.alter(table: "messages_v2") { t in t.add(column: "expires_at", .integer) }
        try db.create(index: "messages_v2_by_expiry", on: "messages_v2", columns: ["expires_at"])
    }
}
