import Foundation
import GRDB
import MLS
import Nostr

/// Application messages: sealed records under keyed-hash lookups, newest-first pages.
extension GRDBMarmotStore {
    public func saveMessage(_ message: StoredMessage) throws {
        let row = try codec.messageRow(message)
        try write { db in
            // Prepared once per connection (`cachedStatement`): building the SQL of GRDB's query
            // interface on every call was most of a save (issue 27).
            guard let group = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT last_message_at FROM groups_v2 WHERE group_ref = ?"), arguments: [row.groupRef])
            else {
                throw StorageError.unknownGroup(message.mlsGroupID.description)
            }
            let lastMessageAt: Int64? = try group.decode(atIndex: 0)
            let key: StatementArguments = [row.groupRef, row.messageRef]
            let isNew = try !Self.messageExists(row.groupRef, row.messageRef, db)
            if isNew {
                try db.cachedStatement(sql: "INSERT INTO messages_v2 (\(MessageRow.columnList)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
                    .execute(arguments: row.arguments)
                let latest = max(lastMessageAt ?? row.createdAt, row.createdAt)
                let unread = message.countsAsUnread ? 1 : 0
                try db.cachedStatement(
                    sql: "UPDATE groups_v2 SET last_message_at = ?, unread_count = unread_count + ? WHERE group_ref = ?"
                ).execute(arguments: [latest, unread, row.groupRef])
            } else {
                // Updated in place, keeping its rowid (the order of messages of the same second).
                try db.cachedStatement(sql: """
                    UPDATE messages_v2 SET sealed_record = ?, sealed_outer_event_id = ?, created_at = ?, is_mine = ?,
                    delivery_state = ?, expires_at = ?, epoch = COALESCE(?, epoch) WHERE group_ref = ? AND message_ref = ?
                    """).execute(arguments: [
                        row.sealedRecord, row.sealedOuterEventID, row.createdAt, row.isMine, row.deliveryState, row.expiresAt,
                        row.epoch,
                    ] + key)
            }
        }
    }

    public func message(mlsGroupID: GroupID, rumorID: EventID) throws -> StoredMessage? {
        let key: StatementArguments = [codec.groupRef(mlsGroupID.bytes), codec.messageRef(mlsGroupID.bytes, rumorID)]
        return try read { db in
            try Row.fetchOne(
                db.cachedStatement(sql: "SELECT \(MessageRow.columnList) FROM messages_v2 WHERE group_ref = ? AND message_ref = ?"),
                arguments: key
            ).map(MessageRow.init(row:))
        }.map(codec.storedMessage)
    }

    /// Newest first; messages of the same second in the order they were stored (rowid), which for a
    /// sender is the order they were written.
    public func messages(mlsGroupID: GroupID, before: MessageCursor?, limit: Int) throws -> MessagePage {
        let pageSize = max(1, limit)
        let groupRef = codec.groupRef(mlsGroupID.bytes)
        let anchorRef = before.map { codec.messageRef(mlsGroupID.bytes, $0.rumorID) }
        let select = "SELECT \(MessageRow.columnList) FROM messages_v2 WHERE group_ref = ?"
        let order = "ORDER BY created_at DESC, rowid DESC LIMIT ?"
        let rows = try read { db in
            guard let before, let anchorRef else {
                return try Row.fetchAll(db.cachedStatement(sql: "\(select) \(order)"), arguments: [groupRef, pageSize + 1])
                    .map(MessageRow.init(row:))
            }
            let anchor = try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT rowid FROM messages_v2 WHERE group_ref = ? AND message_ref = ?"),
                arguments: [groupRef, anchorRef])
            let statement: Statement
            let arguments: StatementArguments
            if let anchor {
                statement = try db.cachedStatement(
                    sql: "\(select) AND (created_at < ? OR (created_at = ? AND rowid < ?)) \(order)")
                arguments = [groupRef, before.createdAt, before.createdAt, anchor, pageSize + 1]
            } else {
                statement = try db.cachedStatement(
                    sql: "\(select) AND (created_at < ? OR (created_at = ? AND message_ref < ?)) \(order)")
                arguments = [groupRef, before.createdAt, before.createdAt, anchorRef, pageSize + 1]
            }
            return try Row.fetchAll(statement, arguments: arguments).map(MessageRow.init(row:))
        }
        let messages = try rows.prefix(pageSize).map(codec.storedMessage)
        return MessagePage(messages: messages, nextCursor: rows.count > pageSize ? messages.last?.cursor : nil)
    }

    public func unsentMessages(mlsGroupID: GroupID) throws -> [StoredMessage] {
        let groupRef = codec.groupRef(mlsGroupID.bytes)
        // The terms of the partial index `messages_v2_outbox` (`v4-outbox-index`), written out so
        // SQLite can use it (a bound parameter would not match the index's WHERE).
        let pending = DeliveryState.pending.rawValue, failed = DeliveryState.failed.rawValue
        let rows = try read { db in
            try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT \(MessageRow.columnList) FROM messages_v2 INDEXED BY messages_v2_outbox
                    WHERE group_ref = ? AND is_mine = 1 AND delivery_state IN ('\(pending)', '\(failed)')
                    ORDER BY created_at ASC, rowid ASC
                    """), arguments: [groupRef]
            ).map(MessageRow.init(row:))
        }
        return try rows.map(codec.storedMessage)
    }

    public func deleteMessage(mlsGroupID: GroupID, rumorID: EventID) throws {
        let key = ["group_ref": codec.groupRef(mlsGroupID.bytes), "message_ref": codec.messageRef(mlsGroupID.bytes, rumorID)]
        try write { db in _ = try MessageRow.deleteOne(db, key: key) }
    }

    /// The group's messages read or encrypted in an epoch after `epoch` and not invalidated, oldest
    /// first: what a branch the group leaves at `epoch` takes with it (issue 24).
    public func messages(mlsGroupID: GroupID, afterEpoch epoch: UInt64) throws -> [StoredMessage] {
        let arguments: StatementArguments = [codec.groupRef(mlsGroupID.bytes), Int64(clamping: epoch), DeliveryState.invalidated.rawValue]
        return try read { db in
            try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT \(MessageRow.columnList) FROM messages_v2 WHERE group_ref = ? AND epoch > ? AND delivery_state != ?
                    ORDER BY epoch, created_at, rowid
                    """),
                arguments: arguments
            ).map(MessageRow.init(row:))
        }.map(codec.storedMessage)
    }

    public func updateDeliveryState(mlsGroupID: GroupID, rumorID: EventID, state: DeliveryState, outerEventID: EventID?) throws {
        let groupRef = codec.groupRef(mlsGroupID.bytes)
        let messageRef = codec.messageRef(mlsGroupID.bytes, rumorID)
        var changes = [MessageRow.Columns.deliveryState.set(to: state.rawValue)]
        if let outerEventID {
            let sealed = try codec.sealOuterEventID(outerEventID, groupRef: groupRef, messageRef: messageRef)
            changes.append(MessageRow.Columns.sealedOuterEventID.set(to: sealed))
        }
        try write { db in
            _ = try MessageRow.filter(key: ["group_ref": groupRef, "message_ref": messageRef]).updateAll(db, changes)
        }
    }
}
