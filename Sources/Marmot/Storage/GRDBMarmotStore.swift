import Foundation
import GRDB
import MLS
import Nostr

/// `MarmotStore` on SQLite through GRDB: a `DatabasePool` (WAL) for a file, a `DatabaseQueue` in
/// memory. Secret columns (MLS state, KeyPackage private material, group name and description,
/// message content and tags, group-event keys, settings) are sealed with the `StorageKey`.
public final class GRDBMarmotStore: MarmotStore, Sendable {
    let writer: any DatabaseWriter
    let cipher: StorageCipher

    /// Opens (creating if needed) the database file at `path`; `.wrongKey` if it was made with another key.
    public convenience init(path: String, key: StorageKey) throws(StorageError) {
        let pool: DatabasePool
        do { pool = try DatabasePool(path: path) } catch { throw .database("\(error)") }
        try self.init(writer: pool, key: key)
    }

    /// A fresh store that lives in memory only.
    public static func inMemory(key: StorageKey) throws(StorageError) -> GRDBMarmotStore {
        let queue: DatabaseQueue
        do { queue = try DatabaseQueue() } catch { throw .database("\(error)") }
        return try GRDBMarmotStore(writer: queue, key: key)
    }

    init(writer: any DatabaseWriter, key: StorageKey) throws(StorageError) {
        self.writer = writer
        self.cipher = StorageCipher(key: key)
        do { try MarmotMigrations.migrator.migrate(writer) } catch { throw .database("migration failed: \(error)") }
        try checkKey()
    }

    /// Closes the database; later calls fail.
    public func close() throws(StorageError) {
        do { try writer.close() } catch { throw .database("\(error)") }
    }

    /// The migrations applied so far, in order.
    public func appliedMigrations() throws(StorageError) -> [String] {
        try read { db in try MarmotMigrations.migrator.appliedMigrations(db) }
    }

    private static let keyCheckName = "key_check"
    private static let keyCheckPlaintext = Data("marmot storage key check".utf8)

    private func checkKey() throws(StorageError) {
        let context = SealContext("store_meta", "value", row: Data(Self.keyCheckName.utf8))
        try write { db in
            if let row = try StoreMetaRow.fetchOne(db, key: Self.keyCheckName) {
                guard (try? self.cipher.open(row.value, context)) == Self.keyCheckPlaintext else { throw StorageError.wrongKey }
            } else {
                try StoreMetaRow(name: Self.keyCheckName, value: try self.cipher.seal(Self.keyCheckPlaintext, context)).insert(db)
            }
        }
    }

    // MARK: Access with typed errors

    func read<T>(_ body: (Database) throws -> T) throws(StorageError) -> T {
        do { return try writer.read(body) } catch let error as StorageError { throw error } catch {
            throw .database("\(error)")
        }
    }

    func write<T>(_ body: (Database) throws -> T) throws(StorageError) -> T {
        do { return try writer.write(body) } catch let error as StorageError { throw error } catch {
            throw .database("\(error)")
        }
    }

    // MARK: Groups

    public func saveGroup(_ group: StoredGroup) throws {
        let row = try groupRow(group)
        try write { db in try row.save(db) }
    }

    public func group(mlsGroupID: GroupID) throws -> StoredGroup? {
        try read { db in try GroupRow.fetchOne(db, key: mlsGroupID.bytes) }.map(storedGroup)
    }

    public func group(nostrGroupID: NostrGroupID) throws -> StoredGroup? {
        try read { db in
            try GroupRow.filter(GroupRow.Columns.nostrGroupID == Data(nostrGroupID.bytes)).fetchOne(db)
        }.map(storedGroup)
    }

    public func groups() throws -> [StoredGroup] {
        try read { db in
            try GroupRow.order(sql: "COALESCE(last_message_at, created_at) DESC, mls_group_id").fetchAll(db)
        }.map(storedGroup)
    }

    public func deleteGroup(mlsGroupID: GroupID) throws {
        try write { db in _ = try GroupRow.deleteOne(db, key: mlsGroupID.bytes) }
    }

    public func markGroupRead(mlsGroupID: GroupID) throws {
        try write { db in
            _ = try GroupRow.filter(key: mlsGroupID.bytes).updateAll(db, GroupRow.Columns.unreadCount.set(to: 0))
        }
    }

    private func groupRow(_ g: StoredGroup) throws(StorageError) -> GroupRow {
        let key = g.mlsGroupID.bytes
        let relays: String
        do { relays = String(decoding: try Self.jsonEncoder.encode(g.relays.map(\.string)), as: UTF8.self) } catch {
            throw .corruptRow("relays do not encode")
        }
        return GroupRow(
            mlsGroupID: key, nostrGroupID: Data(g.nostrGroupID.bytes),
            sealedMLSState: try cipher.seal(g.mlsState, SealContext("groups", "mls_state", row: key)),
            epoch: Int64(bitPattern: g.epoch),
            sealedName: try cipher.sealString(g.name, SealContext("groups", "name", row: key)),
            sealedDescription: try cipher.sealString(g.groupDescription, SealContext("groups", "description", row: key)),
            admins: Data(g.admins.flatMap(\.bytes)), relays: relays, peer: g.peer.map { Data($0.bytes) },
            status: g.status.rawValue, lastMessageAt: g.lastMessageAt, unreadCount: g.unreadCount, createdAt: g.createdAt)
    }

    private func storedGroup(_ row: GroupRow) throws -> StoredGroup {
        let key = row.mlsGroupID
        guard row.admins.count % 32 == 0 else { throw StorageError.corruptRow("groups.admins length") }
        let admins = try stride(from: 0, to: row.admins.count, by: 32).map { offset in
            try Self.publicKey(row.admins.dropFirst(offset).prefix(32), "groups.admins")
        }
        let relayStrings: [String]
        do { relayStrings = try JSONDecoder().decode([String].self, from: Data(row.relays.utf8)) } catch {
            throw StorageError.corruptRow("groups.relays")
        }
        guard let status = GroupStatus(rawValue: row.status) else { throw StorageError.corruptRow("groups.status \(row.status)") }
        let nostrGroupID: NostrGroupID
        do { nostrGroupID = try NostrGroupID(bytes: row.nostrGroupID) } catch { throw StorageError.corruptRow("groups.nostr_group_id") }
        return StoredGroup(
            mlsGroupID: GroupID(key), nostrGroupID: nostrGroupID,
            mlsState: try cipher.open(row.sealedMLSState, SealContext("groups", "mls_state", row: key)),
            epoch: UInt64(bitPattern: row.epoch),
            name: try cipher.openString(row.sealedName, SealContext("groups", "name", row: key)),
            groupDescription: try cipher.openString(row.sealedDescription, SealContext("groups", "description", row: key)),
            admins: admins, relays: try relayStrings.map { try RelayURL($0) },
            peer: try row.peer.map { try Self.publicKey($0, "groups.peer") }, status: status,
            lastMessageAt: row.lastMessageAt, unreadCount: row.unreadCount, createdAt: row.createdAt)
    }

    // MARK: Messages

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

    public func messages(mlsGroupID: GroupID, before: MessageCursor?, limit: Int) throws -> MessagePage {
        let pageSize = max(1, limit)
        let rows = try read { db in
            var request = MessageRow.filter(MessageRow.Columns.mlsGroupID == mlsGroupID.bytes)
            if let before {
                let id = Data(before.rumorID.bytes)
                request = request.filter(
                    MessageRow.Columns.createdAt < before.createdAt
                        || (MessageRow.Columns.createdAt == before.createdAt && MessageRow.Columns.rumorID < id))
            }
            return try request.order(MessageRow.Columns.createdAt.desc, MessageRow.Columns.rumorID.desc)
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

    private static func messageRowKey(_ groupID: Data, _ rumorID: Data) -> Data { groupID + rumorID }

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

    // MARK: Key packages

    public func saveKeyPackage(_ keyPackage: StoredKeyPackage) throws {
        let ref = keyPackage.ref.bytes
        let row = KeyPackageRow(
            ref: ref, sealedPrivate: try cipher.seal(keyPackage.privateMaterial, SealContext("key_packages", "private", row: ref)),
            dTag: keyPackage.dTag.value, eventID: keyPackage.eventID.map { Data($0.bytes) },
            legacyEventID: keyPackage.legacyEventID.map { Data($0.bytes) }, createdAt: keyPackage.createdAt)
        try write { db in try row.save(db) }
    }

    public func keyPackage(ref: KeyPackageRef) throws -> StoredKeyPackage? {
        try read { db in try KeyPackageRow.fetchOne(db, key: ref.bytes) }.map(storedKeyPackage)
    }

    public func keyPackages() throws -> [StoredKeyPackage] {
        try read { db in try KeyPackageRow.order(sql: "created_at DESC, ref").fetchAll(db) }.map(storedKeyPackage)
    }

    public func deleteKeyPackage(ref: KeyPackageRef) throws {
        try write { db in _ = try KeyPackageRow.deleteOne(db, key: ref.bytes) }
    }

    private func storedKeyPackage(_ row: KeyPackageRow) throws -> StoredKeyPackage {
        let dTag: KeyPackageDTag
        do { dTag = try KeyPackageDTag(row.dTag) } catch { throw StorageError.corruptRow("key_packages.d_tag") }
        return StoredKeyPackage(
            ref: KeyPackageRef(row.ref),
            privateMaterial: try cipher.open(row.sealedPrivate, SealContext("key_packages", "private", row: row.ref)),
            dTag: dTag, eventID: try row.eventID.map { try Self.eventID($0, "key_packages.event_id") },
            legacyEventID: try row.legacyEventID.map { try Self.eventID($0, "key_packages.legacy_event_id") },
            createdAt: row.createdAt)
    }

    // MARK: Processed events

    public func recordProcessedEvent(_ record: ProcessedEvent) throws {
        let row = ProcessedEventRow(eventID: Data(record.eventID.bytes), outcome: record.outcome.rawValue,
                                    processedAt: record.processedAt, mlsGroupID: record.mlsGroupID?.bytes)
        try write { db in try row.save(db) }
    }

    public func processedEvent(id: EventID) throws -> ProcessedEvent? {
        guard let row = try read({ db in try ProcessedEventRow.fetchOne(db, key: Data(id.bytes)) }) else { return nil }
        return ProcessedEvent(eventID: id, outcome: ProcessedOutcome(rawValue: row.outcome), processedAt: row.processedAt,
                              mlsGroupID: row.mlsGroupID.map { GroupID($0) })
    }

    @discardableResult
    public func pruneProcessedEvents(processedBefore time: Int64) throws -> Int {
        try write { db in try ProcessedEventRow.filter(Column("processed_at") < time).deleteAll(db) }
    }

    // MARK: Group-event keys

    public func saveGroupEventKey(_ key: GroupEventKey, epoch: UInt64, mlsGroupID: GroupID) throws {
        let row = GroupEventKeyRow(
            mlsGroupID: mlsGroupID.bytes, epoch: Int64(bitPattern: epoch),
            sealedKey: try cipher.seal(key.rawBytesForStorage, Self.epochKeyContext(mlsGroupID.bytes, epoch)))
        try write { db in
            guard try GroupRow.exists(db, key: mlsGroupID.bytes) else { throw StorageError.unknownGroup(mlsGroupID.description) }
            try row.save(db)
        }
    }

    public func groupEventKeys(mlsGroupID: GroupID) throws -> [StoredGroupEventKey] {
        let rows = try read { db in
            try GroupEventKeyRow.filter(Column("mls_group_id") == mlsGroupID.bytes).order(Column("epoch").desc).fetchAll(db)
        }
        return try rows.map { row in
            let epoch = UInt64(bitPattern: row.epoch)
            let bytes = try cipher.open(row.sealedKey, Self.epochKeyContext(row.mlsGroupID, epoch))
            do { return StoredGroupEventKey(epoch: epoch, key: try GroupEventKey(bytes: bytes)) } catch {
                throw StorageError.corruptRow("group_event_keys.key length")
            }
        }
    }

    public func pruneGroupEventKeys(mlsGroupID: GroupID, keepingFrom epoch: UInt64) throws {
        try write { db in
            _ = try GroupEventKeyRow.filter(Column("mls_group_id") == mlsGroupID.bytes && Column("epoch") < Int64(bitPattern: epoch))
                .deleteAll(db)
        }
    }

    private static func epochKeyContext(_ groupID: Data, _ epoch: UInt64) -> SealContext {
        var w = TLSWriter()
        w.writeOpaque(groupID)
        w.write(epoch)
        return SealContext("group_event_keys", "key", row: w.data)
    }

    // MARK: Settings

    public func setting(_ key: String) throws -> Data? {
        guard let row = try read({ db in try SettingRow.fetchOne(db, key: key) }) else { return nil }
        return try cipher.open(row.sealedValue, SealContext("settings", "value", row: Data(key.utf8)))
    }

    public func setSetting(_ key: String, _ value: Data?) throws {
        if let value {
            let row = SettingRow(key: key, sealedValue: try cipher.seal(value, SealContext("settings", "value", row: Data(key.utf8))))
            try write { db in try row.save(db) }
        } else {
            try write { db in _ = try SettingRow.deleteOne(db, key: key) }
        }
    }

    private static var jsonEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }

    // MARK: Typed ids from columns

    private static func publicKey<D: Collection>(_ bytes: D, _ column: String) throws -> PublicKey where D.Element == UInt8 {
        do { return try PublicKey(bytes: bytes) } catch { throw StorageError.corruptRow("\(column) is not a public key") }
    }

    private static func eventID(_ bytes: Data, _ column: String) throws -> EventID {
        do { return try EventID(bytes: bytes) } catch { throw StorageError.corruptRow("\(column) is not an event id") }
    }
}
