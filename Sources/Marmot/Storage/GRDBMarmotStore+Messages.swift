import Foundation
import GRDB
import MLS
import Nostr

/// Application messages: sealed records under keyed-hash lookups, newest-first pages.
extension GRDBMarmotStore {
    public func saveMessage(_ message: StoredMessage) throws {
        let row = try codec.messageRow(message)
        try write { db in
            guard let group = try GroupRow.fetchOne(db, key: row.groupRef) else {
                throw StorageError.unknownGroup(message.mlsGroupID.description)
            }
            let isNew = try !MessageRow.exists(db, key: ["group_ref": row.groupRef, "message_ref": row.messageRef])
            try row.save(db)
            guard isNew else { return }
            let latest = max(group.lastMessageAt ?? row.createdAt, row.createdAt)
            var changes = [GroupRow.Columns.lastMessageAt.set(to: latest)]
            if !message.isMine, message.countsAsUnread { changes.append(GroupRow.Columns.unreadCount += 1) }
            _ = try GroupRow.filter(key: row.groupRef).updateAll(db, changes)
        }
    }

    public func message(mlsGroupID: GroupID, rumorID: EventID) throws -> StoredMessage? {
        let key = ["group_ref": codec.groupRef(mlsGroupID.bytes), "message_ref": codec.messageRef(mlsGroupID.bytes, rumorID)]
        return try read { db in try MessageRow.fetchOne(db, key: key) }.map(codec.storedMessage)
    }

    /// Newest first; messages of the same second in the order they were stored (rowid), which for a
    /// sender is the order they were written.
    public func messages(mlsGroupID: GroupID, before: MessageCursor?, limit: Int) throws -> MessagePage {
        let pageSize = max(1, limit)
        let groupRef = codec.groupRef(mlsGroupID.bytes)
        let anchorRef = before.map { codec.messageRef(mlsGroupID.bytes, $0.rumorID) }
        let rows = try read { db in
            var request = MessageRow.filter(MessageRow.Columns.groupRef == groupRef)
            if let before, let anchorRef {
                let anchor = try Int64.fetchOne(
                    db, sql: "SELECT rowid FROM messages_v2 WHERE group_ref = ? AND message_ref = ?",
                    arguments: [groupRef, anchorRef])
                let sameSecond: SQLExpression =
                    if let anchor { Column.rowID < anchor } else { MessageRow.Columns.messageRef < anchorRef }
                request = request.filter(
                    MessageRow.Columns.createdAt < before.createdAt
                        || (MessageRow.Columns.createdAt == before.createdAt && sameSecond))
            }
            return try request.order(MessageRow.Columns.createdAt.desc, Column.rowID.desc)
                .limit(pageSize + 1).fetchAll(db)
        }
        let messages = try rows.prefix(pageSize).map(codec.storedMessage)
        return MessagePage(messages: messages, nextCursor: rows.count > pageSize ? messages.last?.cursor : nil)
    }

    public func unsentMessages(mlsGroupID: GroupID) throws -> [StoredMessage] {
        let groupRef = codec.groupRef(mlsGroupID.bytes)
        let rows = try read { db in
            try MessageRow.filter(MessageRow.Columns.groupRef == groupRef)
                .filter(Column("is_mine") == true)
                .filter([DeliveryState.pending.rawValue, DeliveryState.failed.rawValue].contains(MessageRow.Columns.deliveryState))
                .order(MessageRow.Columns.createdAt.asc, Column.rowID.asc)
                .fetchAll(db)
        }
        return try rows.map(codec.storedMessage)
    }

    public func deleteMessage(mlsGroupID: GroupID, rumorID: EventID) throws {
        let key = ["group_ref": codec.groupRef(mlsGroupID.bytes), "message_ref": codec.messageRef(mlsGroupID.bytes, rumorID)]
        try write { db in _ = try MessageRow.deleteOne(db, key: key) }
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
