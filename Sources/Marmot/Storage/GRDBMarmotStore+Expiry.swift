import Foundation
import GRDB
import MLS

/// Disappearing messages: deleting what expired so that nothing of it stays on disk.
extension GRDBMarmotStore {
    /// Deletes the expired rows in one transaction (each group's last-message time recomputed from
    /// what is left), then checkpoints the write-ahead log into the database and truncates it. With
    /// `secure_delete` on (set at open), SQLite overwrites the freed pages, so neither file keeps the
    /// sealed record of a deleted message (MIP-03 retention, as White Noise prunes at expiry).
    public func deleteExpiredMessages(at time: Int64) throws -> [StoredMessage] {
        let rows = try write { db in
            let expired = try MessageRow.filter(MessageRow.Columns.expiresAt != nil && MessageRow.Columns.expiresAt <= time)
                .fetchAll(db)
            guard !expired.isEmpty else { return expired }
            for row in expired {
                _ = try MessageRow.filter(key: ["group_ref": row.groupRef, "message_ref": row.messageRef]).deleteAll(db)
            }
            for groupRef in Set(expired.map(\.groupRef)) {
                try db.execute(
                    sql: """
                        UPDATE groups_v2 SET last_message_at = (SELECT max(created_at) FROM messages_v2 WHERE group_ref = ?)
                        WHERE group_ref = ?
                        """,
                    arguments: [groupRef, groupRef])
            }
            return expired
        }
        guard !rows.isEmpty else { return [] }
        try checkpointTruncating()
        return try rows.map(codec.storedMessage)
    }

    public func nextMessageExpiry() throws -> Int64? {
        try read { db in try Int64.fetchOne(db, sql: "SELECT min(expires_at) FROM messages_v2") }
    }

    /// Moves the write-ahead log into the database file and empties it (a no-op in memory).
    private func checkpointTruncating() throws {
        guard writer is DatabasePool else { return }
        try gate.enter()
        defer { gate.leave() }
        do {
            try writer.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        } catch {
            throw StorageError.database("checkpoint after deleting expired messages: \(error)")
        }
    }
}
