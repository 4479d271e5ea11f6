import Foundation
import GRDB
import MLS
import Nostr

/// The key-aware data migration that runs right after the schema migrations, in one transaction:
/// rows of the first layout (`v1-initial`, plaintext ids, sealed under the store key or the legacy
/// nsec-only key) are re-encoded into the keyed-lookup layout under the current key and the v1 tables
/// are dropped; a keyed-lookup database sealed under the legacy key is rekeyed. Recorded in
/// `store_meta` by the `key_check_v2` row, written in the same transaction.
extension GRDBMarmotStore {
    func prepareLayout(legacyCodec: StoreCodec?) throws(StorageError) {
        let codec = self.codec
        let rewrote: Bool = try write { db in
            if let check = try StoreMetaRow.fetchOne(db, key: StoreCodec.keyCheckName) {
                if codec.opensKeyCheck(check.value) { return false }
                guard let legacyCodec, legacyCodec.opensKeyCheck(check.value) else { throw StorageError.wrongKey }
                try Self.rekey(db, from: legacyCodec, to: codec)
                return true
            }
            var opening = codec.cipher
            if let check = try StoreMetaRow.fetchOne(db, key: V1Layout.keyCheckName) {
                if V1Layout.opensKeyCheck(check.value, codec.cipher) {
                    opening = codec.cipher
                } else if let legacyCodec, V1Layout.opensKeyCheck(check.value, legacyCodec.cipher) {
                    opening = legacyCodec.cipher
                } else {
                    throw StorageError.wrongKey
                }
            }
            try V1Layout.move(db, opening: opening, into: codec)
            try StoreMetaRow.deleteOne(db, key: V1Layout.keyCheckName)
            try StoreMetaRow(name: StoreCodec.keyCheckName, value: try codec.sealKeyCheck()).save(db)
            return true
        }
        // Old pages (zeroed by secure_delete) leave the write-ahead log too.
        if rewrote { try? writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") } }
    }

    /// Re-seals every row of the keyed-lookup layout under `new` (hashes change with the key).
    static func rekey(_ db: Database, from old: StoreCodec, to new: StoreCodec) throws {
        let versions = try groupVersions(db, old)
        let groupRows = try GroupRow.fetchRows(db, "")
        var groupIDs: [Data: GroupID] = [:]
        var groups: [(StoredGroup, Int64, Int64)] = []
        for row in groupRows {
            let group = try old.storedGroup(row, versions: versions)
            groupIDs[row.groupRef] = group.mlsGroupID
            groups.append((group, row.version, row.ratchetVersion))
        }
        let messages = try MessageRow.order(Column.rowID).fetchAll(db).map(old.storedMessage)
        let keyPackages = try KeyPackageRow.fetchAll(db).map(old.storedKeyPackage)
        let processed = try ProcessedEventRow.fetchAll(db).map(old.processedEvent)
        let epochKeys = try GroupEventKeyRow.fetchAll(db).map { row in
            guard let id = groupIDs[row.groupRef] else { throw StorageError.unknownGroup("group_event_keys.group_ref") }
            return (id, try old.storedGroupEventKey(row))
        }
        let settings = try SettingRow.fetchAll(db).map(old.setting)
        let engines = try groupRows.compactMap { row in
            try readEngine(db, row.groupRef, old, versions).map { (groupIDs[row.groupRef]!, $0) }
        }

        for table in [
            "engine_seen_v2", "engine_nodes_v2", "engine_states_v2", "engines_v2", "messages_v2", "group_event_keys_v2",
            "group_states_v2", "groups_v2", "key_packages_v2", "processed_events_v2",
            "settings_v2",
        ] {
            try db.execute(sql: "DELETE FROM \(table)")
        }
        var newVersions = GroupVersions()
        for (group, version, ratchetVersion) in groups {
            let row = try new.groupRow(group, version: version, ratchetVersion: ratchetVersion)
            try row.save(db)
            newVersions[row.groupRef] = version
            if row.sealedRatchets != nil { newVersions[new.ratchetsRef(row.groupRef)] = ratchetVersion }
        }
        for (id, rows) in engines {
            try writeEngine(db, new.groupRef(id.bytes), changesWritingAll(rows), new, &newVersions)
        }
        try StoreMetaRow(name: StoreCodec.groupVersionsName, value: try new.sealVersions(newVersions)).save(db)
        for message in messages { try new.messageRow(message).insert(db) }
        for keyPackage in keyPackages { try new.keyPackageRow(keyPackage).insert(db) }
        for event in processed { try new.processedEventRow(event).insert(db) }
        for (id, key) in epochKeys { try new.groupEventKeyRow(key.key, epoch: key.epoch, mlsGroupID: id).insert(db) }
        for setting in settings { try new.settingRow(setting.name, setting.value).insert(db) }
        try StoreMetaRow(name: StoreCodec.keyCheckName, value: try new.sealKeyCheck()).save(db)
    }
}

/// Reading the first layout (`v1-initial`): plaintext ids, values sealed with associated-data label
/// `marmot-storage-v1`.
enum V1Layout {
    static let keyCheckName = "key_check"
    static let keyCheckPlaintext = Data("marmot storage key check".utf8)
    static let keyCheckContext = SealContext.v1("store_meta", "value", row: Data(keyCheckName.utf8))
    /// Children before parents (foreign keys).
    static let tables = ["messages", "group_event_keys", "groups", "key_packages", "processed_events", "settings"]

    static func opensKeyCheck(_ sealed: Data, _ cipher: StorageCipher) -> Bool {
        (try? cipher.open(sealed, keyCheckContext)) == keyCheckPlaintext
    }

    /// Moves every v1 row into the keyed-lookup tables (groups at version 1), then drops the v1 tables.
    static func move(_ db: Database, opening cipher: StorageCipher, into codec: StoreCodec) throws {
        guard try db.tableExists("groups") else { return }
        var versions = try GRDBMarmotStore.groupVersions(db, codec)
        for row in try V1GroupRow.fetchAll(db) {
            let group = try storedGroup(row, cipher)
            let ref = codec.groupRef(group.mlsGroupID.bytes)
            try codec.groupRow(group, version: 1).save(db)
            versions[ref] = 1
        }
        try StoreMetaRow(name: StoreCodec.groupVersionsName, value: try codec.sealVersions(versions)).save(db)
        // Storage order decides the order of messages of the same second: keep it.
        for row in try V1MessageRow.order(Column.rowID).fetchAll(db) {
            try codec.messageRow(try storedMessage(row, cipher)).insert(db)
        }
        for row in try V1KeyPackageRow.fetchAll(db) {
            try codec.keyPackageRow(try storedKeyPackage(row, cipher)).insert(db)
        }
        for row in try V1ProcessedEventRow.fetchAll(db) {
            let event = ProcessedEvent(
                eventID: try StoreCodec.eventID(row.eventID, "processed_events.event_id"),
                outcome: ProcessedOutcome(rawValue: row.outcome), processedAt: row.processedAt,
                mlsGroupID: row.mlsGroupID.map { GroupID($0) })
            try codec.processedEventRow(event).insert(db)
        }
        for row in try V1GroupEventKeyRow.fetchAll(db) {
            let epoch = UInt64(bitPattern: row.epoch)
            let bytes = try cipher.open(row.sealedKey, epochKeyContext(row.mlsGroupID, epoch))
            let key: GroupEventKey
            do { key = try GroupEventKey(bytes: bytes) } catch { throw StorageError.corruptRow("group_event_keys.key length") }
            try codec.groupEventKeyRow(key, epoch: epoch, mlsGroupID: GroupID(row.mlsGroupID)).insert(db)
        }
        for row in try V1SettingRow.fetchAll(db) {
            let value = try cipher.open(row.sealedValue, SealContext.v1("settings", "value", row: Data(row.key.utf8)))
            try codec.settingRow(row.key, value).insert(db)
        }
        for table in tables { try db.drop(table: table) }
    }

    static func epochKeyContext(_ groupID: Data, _ epoch: UInt64) -> SealContext {
        var w = TLSWriter()
        w.writeOpaque(groupID)
        w.write(epoch)
        return SealContext.v1("group_event_keys", "key", row: w.data)
    }

    static func storedGroup(_ row: V1GroupRow, _ cipher: StorageCipher) throws -> StoredGroup {
        let key = row.mlsGroupID
        guard row.admins.count % 32 == 0 else { throw StorageError.corruptRow("groups.admins length") }
        let admins = try stride(from: 0, to: row.admins.count, by: 32).map { offset in
            try StoreCodec.publicKey(row.admins.dropFirst(offset).prefix(32), "groups.admins")
        }
        let relayStrings = try StoreCodec.decode([String].self, Data(row.relays.utf8), "groups.relays")
        guard let status = GroupStatus(rawValue: row.status) else { throw StorageError.corruptRow("groups.status \(row.status)") }
        let nostrGroupID: NostrGroupID
        do { nostrGroupID = try NostrGroupID(bytes: row.nostrGroupID) } catch { throw StorageError.corruptRow("groups.nostr_group_id") }
        let relays: [RelayURL]
        do { relays = try relayStrings.map { try RelayURL($0) } } catch { throw StorageError.corruptRow("groups.relays") }
        return StoredGroup(
            mlsGroupID: GroupID(key), nostrGroupID: nostrGroupID,
            mlsState: try cipher.open(row.sealedMLSState, SealContext.v1("groups", "mls_state", row: key)),
            epoch: UInt64(bitPattern: row.epoch),
            name: try cipher.openString(row.sealedName, SealContext.v1("groups", "name", row: key)),
            groupDescription: try cipher.openString(row.sealedDescription, SealContext.v1("groups", "description", row: key)),
            admins: admins, relays: relays, peer: try row.peer.map { try StoreCodec.publicKey($0, "groups.peer") }, status: status,
            lastMessageAt: row.lastMessageAt, unreadCount: row.unreadCount, createdAt: row.createdAt)
    }

    static func storedMessage(_ row: V1MessageRow, _ cipher: StorageCipher) throws -> StoredMessage {
        let plain = try cipher.open(row.sealedBody, SealContext.v1("messages", "body", row: row.mlsGroupID + row.rumorID))
        let body = try StoreCodec.decode(V1MessageBody.self, plain, "messages.body")
        guard let kind = UInt16(exactly: row.kind) else { throw StorageError.corruptRow("messages.kind") }
        return StoredMessage(
            rumorID: try StoreCodec.eventID(row.rumorID, "messages.rumor_id"), mlsGroupID: GroupID(row.mlsGroupID),
            sender: try StoreCodec.publicKey(row.sender, "messages.sender"), kind: Kind(kind), content: body.content,
            tags: body.tags.map { Tag($0) }, createdAt: row.createdAt, isMine: row.isMine,
            deliveryState: DeliveryState(rawValue: row.deliveryState),
            outerEventID: try row.outerEventID.map { try StoreCodec.eventID($0, "messages.outer_event_id") })
    }

    static func storedKeyPackage(_ row: V1KeyPackageRow, _ cipher: StorageCipher) throws -> StoredKeyPackage {
        let dTag: KeyPackageDTag
        do { dTag = try KeyPackageDTag(row.dTag) } catch { throw StorageError.corruptRow("key_packages.d_tag") }
        return StoredKeyPackage(
            ref: KeyPackageRef(row.ref),
            privateMaterial: try cipher.open(row.sealedPrivate, SealContext.v1("key_packages", "private", row: row.ref)),
            dTag: dTag, eventID: try row.eventID.map { try StoreCodec.eventID($0, "key_packages.event_id") },
            legacyEventID: try row.legacyEventID.map { try StoreCodec.eventID($0, "key_packages.legacy_event_id") },
            createdAt: row.createdAt)
    }
}

/// Owner-only permissions of the database folder (0700) and files (0600), set explicitly whatever the
/// umask, and tightened when an existing one is wider.
enum StoreFiles {
    static func prepare(databasePath path: String) throws(StorageError) {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        if !FileManager.default.fileExists(atPath: folder) {
            do {
                try FileManager.default.createDirectory(
                    atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch { throw .database("cannot create \(folder): \(error)") }
        }
        try setMode(folder, 0o700)
        // Created here with 0600 so SQLite, which gives its -wal and -shm files the database's mode,
        // never makes them readable by others.
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw .database("cannot create \(path)")
            }
        }
        try tighten(databasePath: path)
    }

    static func tighten(databasePath path: String) throws(StorageError) {
        for file in [path, path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: file) {
            try setMode(file, 0o600)
        }
    }

    private static func setMode(_ path: String, _ mode: Int) throws(StorageError) {
        do {
            let current = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            if current.map({ $0 & 0o777 }) != mode {
                try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
            }
        } catch {
            throw .database("cannot set the permissions of \(path): \(error)")
        }
    }
}
