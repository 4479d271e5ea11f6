import Foundation
import GRDB
import MLS
import Nostr

/// KeyPackage private material, processed event ids, per-epoch group-event keys and settings, under
/// keyed-hash lookups with sealed values.
extension GRDBMarmotStore {
    // MARK: Key packages

    public func saveKeyPackage(_ keyPackage: StoredKeyPackage) throws {
        let row = try codec.keyPackageRow(keyPackage)
        try write { db in try row.save(db) }
    }

    public func keyPackage(ref: KeyPackageRef) throws -> StoredKeyPackage? {
        let key = codec.keyPackageRef(ref)
        return try read { db in try KeyPackageRow.fetchOne(db, key: key) }.map(codec.storedKeyPackage)
    }

    public func keyPackages() throws -> [StoredKeyPackage] {
        try read { db in try KeyPackageRow.order(sql: "created_at DESC, ref_hash").fetchAll(db) }.map(codec.storedKeyPackage)
    }

    public func deleteKeyPackage(ref: KeyPackageRef) throws {
        let key = codec.keyPackageRef(ref)
        try write { db in _ = try KeyPackageRow.deleteOne(db, key: key) }
    }

    // MARK: Processed events

    public func recordProcessedEvent(_ record: ProcessedEvent) throws {
        let row = try codec.processedEventRow(record)
        try write { db in try row.save(db) }
    }

    public func processedEvent(id: EventID) throws -> ProcessedEvent? {
        let key = codec.eventRef(id)
        return try read { db in
            try ProcessedEventRow.fetchOne(
                db.cachedStatement(sql: "SELECT * FROM processed_events_v2 WHERE event_ref = ?"), arguments: [key])
        }.map(codec.processedEvent)
    }

    @discardableResult
    public func pruneProcessedEvents(processedBefore time: Int64) throws -> Int {
        try write { db in try ProcessedEventRow.filter(Column("processed_at") < time).deleteAll(db) }
    }

    // MARK: Group-event keys

    public func saveGroupEventKey(_ key: GroupEventKey, epoch: UInt64, mlsGroupID: GroupID) throws {
        let row = try codec.groupEventKeyRow(key, epoch: epoch, mlsGroupID: mlsGroupID)
        try write { db in
            guard try GroupRow.exists(db, key: row.groupRef) else { throw StorageError.unknownGroup(mlsGroupID.description) }
            try row.save(db)
        }
    }

    public func groupEventKeys(mlsGroupID: GroupID) throws -> [StoredGroupEventKey] {
        let ref = codec.groupRef(mlsGroupID.bytes)
        return try read { db in
            try GroupEventKeyRow.fetchAll(
                db.cachedStatement(sql: "SELECT * FROM group_event_keys_v2 WHERE group_ref = ? ORDER BY epoch DESC"), arguments: [ref])
        }.map(codec.storedGroupEventKey)
    }

    public func groupEventKeys(of groups: [GroupID]) throws -> [GroupID: [StoredGroupEventKey]] {
        var byRef: [Data: GroupID] = [:]
        for group in groups { byRef[codec.groupRef(group.bytes)] = group }
        let rows = try read { db in
            // Every group's keys in one statement; a start-up reads all of them (issue 27).
            try GroupEventKeyRow.fetchAll(
                db.cachedStatement(sql: "SELECT * FROM group_event_keys_v2 ORDER BY group_ref, epoch DESC"))
        }
        var keys: [GroupID: [StoredGroupEventKey]] = [:]
        for group in groups { keys[group] = [] }
        for row in rows {
            guard let group = byRef[row.groupRef] else { continue }
            keys[group, default: []].append(try codec.storedGroupEventKey(row))
        }
        return keys
    }

    public func pruneGroupEventKeys(mlsGroupID: GroupID, keepingFrom epoch: UInt64) throws {
        let ref = codec.groupRef(mlsGroupID.bytes)
        try write { db in
            _ = try GroupEventKeyRow.filter(Column("group_ref") == ref && Column("epoch") < Int64(bitPattern: epoch)).deleteAll(db)
        }
    }

    // MARK: Settings

    public func setting(_ key: String) throws -> Data? {
        let ref = codec.settingRef(key)
        guard let row = try read({ db in
            try SettingRow.fetchOne(db.cachedStatement(sql: "SELECT * FROM settings_v2 WHERE key_ref = ?"), arguments: [ref])
        }) else { return nil }
        let record = try codec.setting(row)
        guard record.name == key else { throw StorageError.corruptRow("settings.key_ref") }
        return record.value
    }

    public func hasSetting(_ key: String) throws -> Bool {
        let ref = codec.settingRef(key)
        return try read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM settings_v2 WHERE key_ref = ?"), arguments: [ref]) != nil
        }
    }

    public func presentSettings(_ keys: [String]) throws -> Set<String> {
        var byRef: [Data: String] = [:]
        for key in keys { byRef[codec.settingRef(key)] = key }
        let statement = "SELECT 1 FROM settings_v2 WHERE key_ref = ?"
        return try read { db in
            // One transaction for all of them, each lookup by its primary key.
            let exists = try db.cachedStatement(sql: statement)
            var present: Set<String> = []
            for (ref, key) in byRef {
                if try Row.fetchOne(exists, arguments: [ref]) != nil { present.insert(key) }
            }
            return present
        }
    }

    public func setSetting(_ key: String, _ value: Data?) throws {
        if let value {
            let row = try codec.settingRow(key, value)
            try write { db in try row.save(db) }
        } else {
            let ref = codec.settingRef(key)
            try write { db in _ = try SettingRow.deleteOne(db, key: ref) }
        }
    }
}
