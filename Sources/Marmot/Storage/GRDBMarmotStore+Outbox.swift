import Foundation
import GRDB
import MLS
import Nostr

/// The outbox (migration `v21-outbox`): the signed event of each message of ours no relay accepted
/// yet, a row that goes with its message. A retry sends the stored event again rather than encrypting
/// anew (MIP-03: one encryption per message; a second would spend another generation of the ratchet).
extension GRDBMarmotStore {
    /// The name prefix of the settings rows older versions kept an unsent event in
    /// (`client.outbox.<group hex>.<rumor hex>`).
    static let legacyOutboxPrefix = "client.outbox."

    /// The signed event kept for message `rumorID` of group `mlsGroupID`, if it is still unsent.
    public func outboxEvent(mlsGroupID: GroupID, rumorID: EventID) throws -> Event? {
        let (group, message) = (codec.groupRef(mlsGroupID.bytes), codec.messageRef(mlsGroupID.bytes, rumorID))
        guard let row = try read({ db in try OutboxRow.fetchOne(db, key: ["group_ref": group, "message_ref": message]) }) else {
            return nil
        }
        let json = try codec.cipher.open(row.sealedEvent, OutboxRow.context(group, message))
        do { return try Event(jsonData: json) } catch { throw StorageError.corruptRow("outbox.event") }
    }

    /// Keeps `event` as the unsent event of message `rumorID`, replacing one kept before. The
    /// message must be stored first (the row references it).
    public func saveOutboxEvent(_ event: Event, mlsGroupID: GroupID, rumorID: EventID) throws {
        let row = try outboxRow(Data(event.jsonBytes), mlsGroupID: mlsGroupID, rumorID: rumorID)
        try write { db in
            guard try Self.messageExists(row.groupRef, row.messageRef, db)
            else { throw StorageError.corruptRow("outbox event of a message that is not stored") }
            try row.save(db)
        }
    }

    /// Forgets the unsent event of message `rumorID` (a relay accepted it).
    public func deleteOutboxEvent(mlsGroupID: GroupID, rumorID: EventID) throws {
        let (group, message) = (codec.groupRef(mlsGroupID.bytes), codec.messageRef(mlsGroupID.bytes, rumorID))
        try write { db in _ = try OutboxRow.deleteOne(db, key: ["group_ref": group, "message_ref": message]) }
    }

    func outboxRow(_ json: Data, mlsGroupID: GroupID, rumorID: EventID) throws(StorageError) -> OutboxRow {
        let (group, message) = (codec.groupRef(mlsGroupID.bytes), codec.messageRef(mlsGroupID.bytes, rumorID))
        return OutboxRow(groupRef: group, messageRef: message, sealedEvent: try codec.cipher.seal(json, OutboxRow.context(group, message)))
    }

    /// Moves the unsent events older versions kept as `client.outbox.<group>.<rumor>` settings into
    /// `outbox_v2`, once (the migration's `store_meta` marker), then deletes those rows. An entry
    /// whose name does not parse, whose value is no event, or whose message is no longer stored has
    /// nothing left to send and is dropped.
    func moveLegacyOutbox() throws {
        let marker = MigrationV21Outbox.pendingMove
        guard try read({ db in try StoreMetaRow.fetchOne(db, key: marker) }) != nil else { return }
        let codec = self.codec
        let prefix = Self.legacyOutboxPrefix
        let legacy: [(ref: Data, group: GroupID?, rumor: EventID?, value: Data)] = try read { db in
            try SettingRow.fetchAll(db).compactMap { row in
                let record = try codec.setting(row)
                guard record.name.hasPrefix(prefix) else { return nil }
                let parts = record.name.dropFirst(prefix.count).split(separator: ".", omittingEmptySubsequences: false)
                guard parts.count == 2, let group = Hex.decode(String(parts[0])), !group.isEmpty else {
                    return (row.keyRef, nil, nil, record.value)
                }
                return (row.keyRef, GroupID(Data(group)), try? EventID(hex: String(parts[1])), record.value)
            }
        }
        let rows = try legacy.compactMap { entry -> OutboxRow? in
            guard let group = entry.group, let rumor = entry.rumor, (try? Event(jsonData: entry.value)) != nil else { return nil }
            return try outboxRow(entry.value, mlsGroupID: group, rumorID: rumor)
        }
        try write { db in
            for row in rows where try Self.messageExists(row.groupRef, row.messageRef, db) { try row.save(db) }
            for entry in legacy { _ = try SettingRow.deleteOne(db, key: entry.ref) }
            _ = try StoreMetaRow.deleteOne(db, key: marker)
        }
    }
}
