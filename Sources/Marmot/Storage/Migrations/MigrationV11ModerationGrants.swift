import Foundation
import GRDB

/// Migration "v11-moderation-grants" (frozen: a shipped migration is never edited).
///
/// An admin deletion's moderation grant (MDK 0.9.14, spec `features/content-moderation.md`) as a row
/// of its group, keyed by the group AND the deletion's rumor (security review D3: keyed by the rumor
/// alone, a grant earned in one group applied to the identical rumor sent in another). The rows are
/// gone with their group. The old `client.moderation_grant.<rumor>` settings are sealed under the
/// store key, which a migration does not hold: the migration leaves a `store_meta` marker and the
/// store moves them on open (`GRDBMarmotStore.moveLegacyModerationGrants`).
enum MigrationV11ModerationGrants {
    static let name = "v11-moderation-grants"
    /// The `store_meta` row that asks the store to move the old settings rows once.
    static let pendingMove = "move.v11-moderation-grants"

    static func migrate(_ db: Database) throws {
        try db.create(table: "moderation_grants_v2") { t in
            t.column("group_ref", .blob).notNull().references("groups_v2", onDelete: .cascade)
            // The deletion's message lookup hash (keyed by group and rumor id): no plaintext id.
            t.column("message_ref", .blob).notNull()
            t.column("granted_at", .integer).notNull()
            t.primaryKey(["group_ref", "message_ref"])
        }
        try db.execute(sql: "INSERT OR REPLACE INTO store_meta (name, value) VALUES (?, ?)", arguments: [pendingMove, Data()])
    }
}
