import Foundation
import GRDB
import MLS
import Nostr

/// KeyPackage private material, processed event ids, per-epoch group-event keys and settings.
extension GRDBMarmotStore {
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
}
