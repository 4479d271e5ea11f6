import GRDB

/// Migration "v7-message-epochs" (frozen: a shipped migration is never edited).
///
/// The epoch each message was read or encrypted in, so a branch the group leaves finds its
/// messages after the fork (to mark others', to send ours again) after a restart too
/// (issue 24). Older rows stay without one.
enum MigrationV7MessageEpochs {
    static let name = "v7-message-epochs"

    static func migrate(_ db: Database) throws {
        try db.alter(table: "messages_v2") { t in t.add(column: "epoch", .integer) }
        try db.execute(sql: "CREATE INDEX messages_v2_by_epoch ON messages_v2(group_ref, epoch) WHERE epoch IS NOT NULL")
    }
}
