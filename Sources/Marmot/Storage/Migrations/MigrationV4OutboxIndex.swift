import GRDB

/// Migration "v4-outbox-index" (frozen: a shipped migration is never edited).
///
/// The outbox (our pending and failed messages), read for every chat at each start: a
/// partial index holds only those rows, so start-up no longer scans every stored message
/// of every chat (issue 27: 100,000 messages made the cold start scale with history).
enum MigrationV4OutboxIndex {
    static let name = "v4-outbox-index"

    static func migrate(_ db: Database) throws {
        try db.execute(sql: """
            CREATE INDEX messages_v2_outbox ON messages_v2(group_ref, created_at)
            WHERE is_mine = 1 AND delivery_state IN ('pending', 'failed')
            """)
    }
}
