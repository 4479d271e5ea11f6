import Foundation
import GRDB
import MLS
import Nostr

/// Application messages: sealed content and tags, newest-first pages.
extension GRDBMarmotStore {
    public func saveMessage(_ message: StoredMessage) throws {
        let row = try messageRow(message)
        try write { db in
            guard let group = try GroupRow.fetchOne(db, key: row.mlsGroupID) else {
                throw StorageError.unknownGroup(message.mlsGroupID.description)
            }
            let isNew = try !MessageRow.exists(db, key: ["mls_group_id": row.mlsGroupID, "rumor_id": row.rumorID])
            try row.save(db)
            guard isNew else { return }
            let latest = max(group.lastMessageAt ?? row.createdAt, row.createdAt)
            var changes = [GroupRow.Columns.lastMessageAt.set(to: latest)]
            if !message.isMine { changes.append(GroupRow.Columns.unreadCount += 1) }
            _ = try GroupRow.filter(key: row.mlsGroupID).updateAll(db, changes)
        }
    }

    public func message(mlsGroupID: GroupID, rumorID: EventID) throws -> StoredMessage? {
        try read { db in
            try MessageRow.fetchOne(db, key: ["mls_group_id": mlsGroupID.bytes, "rumor_id": Data(rumorID.bytes)])
        }.map(storedMessage)
    }

    /// Newest first; messages of the same second in the order they were stored (rowid), which for a
    /// sender is the order they were written.
    public func messages(mlsGroupID: GroupID, before: MessageCursor?, limit: Int) throws -> MessagePage {
        let pageSize = max(1, limit)
        let rows = try read { db in
            var request = MessageRow.filter(MessageRow.Columns.mlsGroupID == mlsGroupID.bytes)
            if let before {
                let id = Data(before.rumorID.bytes)
                let anchor = try Int64.fetchOne(
                    db, sql: "SELECT rowid FROM messages WHERE mls_group_id = ? AND rumor_id = ?",
                    arguments: [mlsGroupID.bytes, id])
                let sameSecond: SQLExpression =
                    if let anchor { Column.rowID < anchor } else { MessageRow.Columns.rumorID < id }
                request = request.filter(
                    MessageRow.Columns.createdAt < before.createdAt
                        || (MessageRow.Columns.createdAt == before.createdAt && sameSecond))
            }
            return try request.order(MessageRow.Columns.createdAt.desc, Column.rowID.desc)
                .limit(pageSize + 1).fetchAll(db)
        }
        let messages = try rows.prefix(pageSize).map(storedMessage)
        return MessagePage(messages: messages, nextCursor: rows.count > pageSize ? messages.last?.cursor : nil)
    }

    public func updateDeliveryState(mlsGroupID: GroupID, rumorID: EventID, state: DeliveryState, outerEventID: EventID?) throws {
        try write { db in
            var changes = [Column("delivery_state").set(to: state.rawValue)]
            if let outerEventID { changes.append(Column("outer_event_id").set(to: Data(outerEventID.bytes))) }
            _ = try MessageRow.filter(key: ["mls_group_id": mlsGroupID.bytes, "rumor_id": Data(rumorID.bytes)])
                .updateAll(db, changes)
        }
    }

    static func messageRowKey(_ groupID: Data, _ rumorID: Data) -> Data { groupID + rumorID }

    private func messageRow(_ m: StoredMessage) throws(StorageError) -> MessageRow {
        let body: Data
        do { body = try Self.jsonEncoder.encode(MessageBody(content: m.content, tags: m.tags.map(\.fields))) } catch {
            throw .corruptRow("message body does not encode")
        }
        let rumorID = Data(m.rumorID.bytes)
        return MessageRow(
            mlsGroupID: m.mlsGroupID.bytes, rumorID: rumorID, sender: Data(m.sender.bytes), kind: Int(m.kind.rawValue),
            sealedBody: try cipher.seal(body, SealContext("messages", "body", row: Self.messageRowKey(m.mlsGroupID.bytes, rumorID))),
            createdAt: m.createdAt, isMine: m.isMine, deliveryState: m.deliveryState.rawValue,
            outerEventID: m.outerEventID.map { Data($0.bytes) })
    }

    private func storedMessage(_ row: MessageRow) throws -> StoredMessage {
        let plain = try cipher.open(row.sealedBody, SealContext("messages", "body", row: Self.messageRowKey(row.mlsGroupID, row.rumorID)))
        let body: MessageBody
        do { body = try JSONDecoder().decode(MessageBody.self, from: plain) } catch { throw StorageError.corruptRow("messages.body") }
        guard let kind = UInt16(exactly: row.kind) else { throw StorageError.corruptRow("messages.kind") }
        return StoredMessage(
            rumorID: try Self.eventID(row.rumorID, "messages.rumor_id"), mlsGroupID: GroupID(row.mlsGroupID),
            sender: try Self.publicKey(row.sender, "messages.sender"), kind: Kind(kind), content: body.content,
            tags: body.tags.map { Tag($0) }, createdAt: row.createdAt, isMine: row.isMine,
            deliveryState: DeliveryState(rawValue: row.deliveryState),
            outerEventID: try row.outerEventID.map { try Self.eventID($0, "messages.outer_event_id") })
    }
}
