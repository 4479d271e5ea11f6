import Foundation
import GRDB

/// Migration "v22-invitations" (frozen: a shipped migration is never edited).
///
/// A pending invitation (MIP-02: a Welcome waits for the user's answer) as a row of its group: who
/// invited us, the gift wrap, when it came, and, for an invitation back into a group we had left
/// or been removed from, the MLS state we held there (declining puts it back; MDK's
/// `readd-after-eviction`). `REFERENCES` the group with a cascading delete. These were the settings
/// `client.invite.<group>` and `client.former_state.<group>` (architecture review §4.3), sealed under
/// the store key the migration does not hold: it leaves a `store_meta` marker and the store moves
/// them on open (`GRDBMarmotStore.moveLegacyInvitations`).
enum MigrationV22Invitations {
    static let name = "v22-invitations"
    /// The `store_meta` row that asks the store to move the old settings rows once.
    static let pendingMove = "move.v22-invitations"

    static func migrate(_ db: Database) throws {
        try db.create(table: "invitations_v2") { t in
            t.primaryKey("group_ref", .blob).references("groups_v2", onDelete: .cascade)
            // The invitation (inviter, gift wrap id, time received), sealed to its row.
            t.column("sealed_record", .blob).notNull()
            // The state of the group we had left, sealed to its row; NULL for a first invitation.
            t.column("sealed_former_state", .blob)
        }
        try db.execute(sql: "INSERT OR REPLACE INTO store_meta (name, value) VALUES (?, ?)", arguments: [pendingMove, Data()])
    }
}
