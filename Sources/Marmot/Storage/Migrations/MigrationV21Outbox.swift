import Foundation
import GRDB

/// Migration "v21-outbox" (frozen: a shipped migration is never edited).
///
/// The outbox: the signed kind-445 event of a message of ours that no relay has accepted yet, kept
/// so a retry or the next start sends the very same event (MIP-03: a message is encrypted once). One
/// row per message, `REFERENCES` the message's row with a cascading delete, so a message deleted or
/// expired (and a whole group) takes its unsent event with it. These were
/// `client.outbox.<group>.<rumor>` settings (architecture review §4.3), sealed under the store key the
/// migration does not hold: it leaves a `store_meta` marker and the store moves them on open
/// (`GRDBMarmotStore.moveLegacyOutbox`).
enum MigrationV21Outbox {
    static let name = "v21-outbox"
    /// The `store_meta` row that asks the store to move the old settings rows once.
    static let pendingMove = "move.v21-outbox"

    static func migrate(_ db: Database) throws {
        try db.create(table: "outbox_v2") { t in
            t.column("group_ref", .blob).notNull()
            t.column("message_ref", .blob).notNull()
            // The event's JSON, sealed to its row.
            t.column("sealed_event", .blob).notNull()
            t.primaryKey(["group_ref", "message_ref"])
            t.foreignKey(["group_ref", "message_ref"], references: "messages_v2", columns: ["group_ref", "message_ref"], onDelete: .cascade)
        }
        try db.execute(sql: "INSERT OR REPLACE INTO store_meta (name, value) VALUES (?, ?)", arguments: [pendingMove, Data()])
    }
}
