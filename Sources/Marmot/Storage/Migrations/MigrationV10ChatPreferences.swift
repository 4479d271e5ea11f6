import GRDB

/// Migration "v10-chat-preferences" (frozen: a shipped migration is never edited).
///
/// What the user decided about chats and people on this device (issue 48): a row per chat that is
/// muted or archived, gone with its group, and a row per blocked person. Plaintext columns hold only
/// keyed hashes, sealed blobs, timestamps and flags, like every table of the keyed-lookup layout.
enum MigrationV10ChatPreferences {
    static let name = "v10-chat-preferences"

    static func migrate(_ db: Database) throws {
        try db.create(table: "chat_preferences_v2") { t in
            t.primaryKey("group_ref", .blob).references("groups_v2", onDelete: .cascade)
            // 0 not muted, 1 muted until `muted_until` (Unix seconds), 2 muted for good.
            t.column("mute", .integer).notNull().defaults(to: 0)
            t.column("muted_until", .integer)
            // When the chat was archived (Unix seconds); NULL while it is not.
            t.column("archived_at", .integer)
            t.column("updated_at", .integer).notNull()
        }
        try db.create(table: "blocked_people_v2") { t in
            // A keyed hash of the person's public key; the key itself is sealed beside it.
            t.primaryKey("person_ref", .blob)
            t.column("sealed_person", .blob).notNull()
            t.column("blocked_at", .integer).notNull()
        }
    }
}
