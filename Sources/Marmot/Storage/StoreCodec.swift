import Foundation
import MLS
import Nostr

/// Turns public `Stored…` values into rows of the keyed-lookup layout and back, under one
/// `StorageKey`: lookup columns are HMAC-SHA256 hashes under the key's lookup key, everything else
/// that names a person, group, relay, event or message is sealed. Two codecs (old and new key) let
/// the store rekey a database row by row.
struct StoreCodec: Sendable {
    let cipher: StorageCipher
    let lookup: LookupKey

    init(key: StorageKey) {
        cipher = StorageCipher(key: key)
        lookup = key.lookupKey
    }

    // MARK: Lookup hashes

    func groupRef(_ mlsGroupID: Data) -> Data { lookup.hash(.group, mlsGroupID) }
    /// The `GroupVersions` entry of a group's secret trees stored apart (their own counter).
    func ratchetsRef(_ groupRef: Data) -> Data { lookup.hash(.groupRatchets, groupRef) }
    func nostrRef(_ nostrGroupID: NostrGroupID) -> Data { lookup.hash(.nostrGroup, Data(nostrGroupID.bytes)) }
    func messageRef(_ mlsGroupID: Data, _ rumorID: EventID) -> Data {
        lookup.message(groupID: mlsGroupID, rumorID: Data(rumorID.bytes))
    }
    func keyPackageRef(_ ref: KeyPackageRef) -> Data { lookup.hash(.keyPackage, ref.bytes) }
    func eventRef(_ id: EventID) -> Data { lookup.hash(.processedEvent, Data(id.bytes)) }
    func settingRef(_ name: String) -> Data { lookup.hash(.setting, Data(name.utf8)) }

    // MARK: Groups

    /// The associated data of a group's sealed values: its lookup hash and its version, so a sealed
    /// state from another group or an older version does not open in this row.
    private static func groupContext(_ column: String, _ groupRef: Data, _ version: Int64) -> SealContext {
        var row = groupRef
        withUnsafeBytes(of: version.bigEndian) { row.append(contentsOf: $0) }
        return SealContext("groups", column, row: row)
    }

    /// The associated data of a group's sealed secret trees: the row's version and theirs, so
    /// neither an older copy of them nor one of another state of the group opens.
    static func ratchetsContext(_ groupRef: Data, _ version: Int64, _ ratchetVersion: Int64) -> SealContext {
        var row = groupRef
        withUnsafeBytes(of: version.bigEndian) { row.append(contentsOf: $0) }
        withUnsafeBytes(of: ratchetVersion.bigEndian) { row.append(contentsOf: $0) }
        return SealContext("groups", "ratchets", row: row)
    }

    /// `g` as a row of `version`; its secret trees, when stored apart, at `ratchetVersion`.
    func groupRow(_ g: StoredGroup, version: Int64, ratchetVersion: Int64 = 0) throws(StorageError) -> GroupRow {
        let ref = groupRef(g.mlsGroupID.bytes)
        let meta = GroupMeta(
            mlsGroupID: g.mlsGroupID.bytes, nostrGroupID: Data(g.nostrGroupID.bytes), epoch: g.epoch, name: g.name,
            groupDescription: g.groupDescription, admins: g.admins.map { Data($0.bytes) }, relays: g.relays.map(\.string),
            peer: g.peer.map { Data($0.bytes) }, version: g.version.rawValue)
        return GroupRow(
            groupRef: ref, nostrRef: nostrRef(g.nostrGroupID), version: version,
            sealedState: try cipher.seal(g.mlsState, Self.groupContext("state", ref, version)),
            sealedMeta: try cipher.seal(try Self.encode(meta, "groups.meta"), Self.groupContext("meta", ref, version)),
            status: g.status.rawValue, lastMessageAt: g.lastMessageAt, unreadCount: g.unreadCount, createdAt: g.createdAt,
            sealedRatchets: try g.mlsRatchets.map { ratchets throws(StorageError) in
                try cipher.seal(ratchets, Self.ratchetsContext(ref, version, ratchetVersion))
            },
            ratchetVersion: g.mlsRatchets == nil ? 0 : ratchetVersion)
    }

    /// Opens a group row whose version `versions` records; `.rollback` when the row is not the one
    /// this store wrote last (an older row copied back, or a row without a version record).
    func storedGroup(_ row: GroupRow, versions: GroupVersions) throws -> StoredGroup {
        let label = "group \(Hex.encode(row.groupRef.prefix(8)))"
        guard let expected = versions[row.groupRef] else { throw StorageError.rollback("\(label) (no version record)") }
        guard expected == row.version else {
            throw StorageError.rollback("\(label) (version \(row.version), expected \(expected))")
        }
        let state = try cipher.open(row.sealedState, Self.groupContext("state", row.groupRef, row.version))
        var ratchets: Data?
        if let sealed = row.sealedRatchets {
            guard versions[ratchetsRef(row.groupRef)] == row.ratchetVersion else {
                throw StorageError.rollback("\(label) (secret trees at version \(row.ratchetVersion))")
            }
            ratchets = try cipher.open(sealed, Self.ratchetsContext(row.groupRef, row.version, row.ratchetVersion))
        }
        let meta = try Self.decode(
            GroupMeta.self, try cipher.open(row.sealedMeta, Self.groupContext("meta", row.groupRef, row.version)), "groups.meta")
        guard groupRef(meta.mlsGroupID) == row.groupRef else { throw StorageError.corruptRow("groups.group_ref") }
        guard let status = GroupStatus(rawValue: row.status) else { throw StorageError.corruptRow("groups.status \(row.status)") }
        let nostrGroupID: NostrGroupID
        do { nostrGroupID = try NostrGroupID(bytes: meta.nostrGroupID) } catch { throw StorageError.corruptRow("groups.nostr_group_id") }
        let relays: [RelayURL]
        do { relays = try meta.relays.map { try RelayURL($0) } } catch { throw StorageError.corruptRow("groups.relays") }
        guard let version = MarmotVersion(rawValue: meta.version ?? MarmotVersion.v1.rawValue) else {
            throw StorageError.corruptRow("groups.version \(meta.version ?? 0)")
        }
        var group = StoredGroup(
            mlsGroupID: GroupID(meta.mlsGroupID), nostrGroupID: nostrGroupID, mlsState: state, epoch: meta.epoch,
            name: meta.name, groupDescription: meta.groupDescription,
            admins: try meta.admins.map { try Self.publicKey($0, "groups.admins") }, relays: relays,
            peer: try meta.peer.map { try Self.publicKey($0, "groups.peer") }, status: status,
            lastMessageAt: row.lastMessageAt, unreadCount: row.unreadCount, createdAt: row.createdAt, version: version)
        group.mlsRatchets = ratchets
        return group
    }

    static let groupVersionsName = "group_versions"
    private static let groupVersionsContext = SealContext("store_meta", "value", row: Data(groupVersionsName.utf8))

    func sealVersions(_ versions: GroupVersions) throws(StorageError) -> Data {
        try cipher.seal(versions.encoded, Self.groupVersionsContext)
    }

    func openVersions(_ sealed: Data?) throws(StorageError) -> GroupVersions {
        guard let sealed else { return GroupVersions() }
        return try GroupVersions(decoding: try cipher.open(sealed, Self.groupVersionsContext))
    }

    // MARK: Messages

    private static func messageContext(_ column: String, _ row: MessageRow) -> SealContext {
        SealContext("messages", column, row: row.groupRef + row.messageRef)
    }

    func messageRow(_ m: StoredMessage) throws(StorageError) -> MessageRow {
        let record = MessageRecord(
            rumorID: Data(m.rumorID.bytes), mlsGroupID: m.mlsGroupID.bytes, sender: Data(m.sender.bytes),
            kind: m.kind.rawValue, content: m.content, tags: m.tags.map(\.fields))
        var row = MessageRow(
            groupRef: groupRef(m.mlsGroupID.bytes), messageRef: messageRef(m.mlsGroupID.bytes, m.rumorID), sealedRecord: Data(),
            sealedOuterEventID: nil, createdAt: m.createdAt, isMine: m.isMine, deliveryState: m.deliveryState.rawValue,
            expiresAt: m.expiresAt, epoch: m.epoch.map { Int64(clamping: $0) })
        row.sealedRecord = try cipher.seal(try Self.encode(record, "messages.record"), Self.messageContext("record", row))
        row.sealedOuterEventID = try m.outerEventID.map { id throws(StorageError) in try sealOuterEventID(id, row) }
        return row
    }

    func sealOuterEventID(_ id: EventID, _ row: MessageRow) throws(StorageError) -> Data {
        try cipher.seal(Data(id.bytes), Self.messageContext("outer_event_id", row))
    }

    func sealOuterEventID(_ id: EventID, groupRef: Data, messageRef: Data) throws(StorageError) -> Data {
        try cipher.seal(Data(id.bytes), SealContext("messages", "outer_event_id", row: groupRef + messageRef))
    }

    func storedMessage(_ row: MessageRow) throws -> StoredMessage {
        let record = try Self.decode(
            MessageRecord.self, try cipher.open(row.sealedRecord, Self.messageContext("record", row)), "messages.record")
        let outer = try row.sealedOuterEventID.map { sealed in
            try Self.eventID(try cipher.open(sealed, Self.messageContext("outer_event_id", row)), "messages.outer_event_id")
        }
        var message = StoredMessage(
            rumorID: try Self.eventID(record.rumorID, "messages.rumor_id"), mlsGroupID: GroupID(record.mlsGroupID),
            sender: try Self.publicKey(record.sender, "messages.sender"), kind: Kind(record.kind), content: record.content,
            tags: record.tags.map { Tag($0) }, createdAt: row.createdAt, isMine: row.isMine,
            deliveryState: DeliveryState(rawValue: row.deliveryState), outerEventID: outer, expiresAt: row.expiresAt)
        message.epoch = row.epoch.flatMap { $0 >= 0 ? UInt64($0) : nil }
        return message
    }

    // MARK: Key packages

    func keyPackageRow(_ kp: StoredKeyPackage) throws(StorageError) -> KeyPackageRow {
        let refHash = keyPackageRef(kp.ref)
        let record = KeyPackageRecord(
            ref: kp.ref.bytes, privateMaterial: kp.privateMaterial, dTag: kp.dTag.value, eventID: kp.eventID.map { Data($0.bytes) },
            legacyEventID: kp.legacyEventID.map { Data($0.bytes) })
        return KeyPackageRow(
            refHash: refHash,
            sealedRecord: try cipher.seal(try Self.encode(record, "key_packages.record"), SealContext("key_packages", "record", row: refHash)),
            createdAt: kp.createdAt)
    }

    func storedKeyPackage(_ row: KeyPackageRow) throws -> StoredKeyPackage {
        let record = try Self.decode(
            KeyPackageRecord.self, try cipher.open(row.sealedRecord, SealContext("key_packages", "record", row: row.refHash)),
            "key_packages.record")
        let dTag: KeyPackageDTag
        do { dTag = try KeyPackageDTag(record.dTag) } catch { throw StorageError.corruptRow("key_packages.d_tag") }
        return StoredKeyPackage(
            ref: KeyPackageRef(record.ref), privateMaterial: record.privateMaterial, dTag: dTag,
            eventID: try record.eventID.map { try Self.eventID($0, "key_packages.event_id") },
            legacyEventID: try record.legacyEventID.map { try Self.eventID($0, "key_packages.legacy_event_id") },
            createdAt: row.createdAt)
    }

    // MARK: Processed events

    func processedEventRow(_ e: ProcessedEvent) throws(StorageError) -> ProcessedEventRow {
        let ref = eventRef(e.eventID)
        let record = ProcessedEventRecord(eventID: Data(e.eventID.bytes), mlsGroupID: e.mlsGroupID?.bytes)
        return ProcessedEventRow(
            eventRef: ref, outcome: e.outcome.rawValue, processedAt: e.processedAt,
            sealedRecord: try cipher.seal(try Self.encode(record, "processed_events.record"),
                                          SealContext("processed_events", "record", row: ref)))
    }

    func processedEvent(_ row: ProcessedEventRow) throws -> ProcessedEvent {
        let record = try Self.decode(
            ProcessedEventRecord.self, try cipher.open(row.sealedRecord, SealContext("processed_events", "record", row: row.eventRef)),
            "processed_events.record")
        return ProcessedEvent(
            eventID: try Self.eventID(record.eventID, "processed_events.event_id"), outcome: ProcessedOutcome(rawValue: row.outcome),
            processedAt: row.processedAt, mlsGroupID: record.mlsGroupID.map { GroupID($0) })
    }

    // MARK: Group-event keys

    private static func epochKeyContext(_ groupRef: Data, _ epoch: Int64) -> SealContext {
        var row = groupRef
        withUnsafeBytes(of: epoch.bigEndian) { row.append(contentsOf: $0) }
        return SealContext("group_event_keys", "key", row: row)
    }

    func groupEventKeyRow(_ key: GroupEventKey, epoch: UInt64, mlsGroupID: GroupID) throws(StorageError) -> GroupEventKeyRow {
        let ref = groupRef(mlsGroupID.bytes)
        let epoch = Int64(bitPattern: epoch)
        return GroupEventKeyRow(groupRef: ref, epoch: epoch, sealedKey: try cipher.seal(key.rawBytesForStorage, Self.epochKeyContext(ref, epoch)))
    }

    func storedGroupEventKey(_ row: GroupEventKeyRow) throws -> StoredGroupEventKey {
        let bytes = try cipher.open(row.sealedKey, Self.epochKeyContext(row.groupRef, row.epoch))
        do { return StoredGroupEventKey(epoch: UInt64(bitPattern: row.epoch), key: try GroupEventKey(bytes: bytes)) } catch {
            throw StorageError.corruptRow("group_event_keys.key length")
        }
    }

    // MARK: Settings

    func settingRow(_ name: String, _ value: Data) throws(StorageError) -> SettingRow {
        let ref = settingRef(name)
        return SettingRow(
            keyRef: ref,
            sealedValue: try cipher.seal(try Self.encode(SettingRecord(name: name, value: value), "settings.value"),
                                         SealContext("settings", "value", row: ref)))
    }

    func setting(_ row: SettingRow) throws -> SettingRecord {
        try Self.decode(SettingRecord.self, try cipher.open(row.sealedValue, SealContext("settings", "value", row: row.keyRef)), "settings.value")
    }

    // MARK: Key check

    static let keyCheckName = "key_check_v2"
    private static let keyCheckPlaintext = Data("marmot storage key check v2".utf8)
    private static let keyCheckContext = SealContext("store_meta", "value", row: Data(keyCheckName.utf8))

    func sealKeyCheck() throws(StorageError) -> Data { try cipher.seal(Self.keyCheckPlaintext, Self.keyCheckContext) }

    func opensKeyCheck(_ sealed: Data) -> Bool { (try? cipher.open(sealed, Self.keyCheckContext)) == Self.keyCheckPlaintext }

    // MARK: Encoding

    static func encode<T: Encodable>(_ value: T, _ what: String) throws(StorageError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        do { return try encoder.encode(value) } catch { throw .corruptRow("\(what) does not encode") }
    }

    static func decode<T: Decodable>(_ type: T.Type, _ data: Data, _ what: String) throws(StorageError) -> T {
        do { return try JSONDecoder().decode(type, from: data) } catch { throw .corruptRow(what) }
    }

    static func publicKey<D: Collection>(_ bytes: D, _ column: String) throws -> PublicKey where D.Element == UInt8 {
        do { return try PublicKey(bytes: bytes) } catch { throw StorageError.corruptRow("\(column) is not a public key") }
    }

    static func eventID(_ bytes: Data, _ column: String) throws -> EventID {
        do { return try EventID(bytes: bytes) } catch { throw StorageError.corruptRow("\(column) is not an event id") }
    }
}

/// The current version of every stored group, by lookup hash: sealed as one `store_meta` record, so
/// rolling back one group's anchor means rolling back every group's (which the newer rows of the
/// others then reveal).
struct GroupVersions: Sendable, Equatable {
    private(set) var versions: [Data: Int64] = [:]

    init() {}

    init(decoding data: Data) throws(StorageError) {
        let entry = 32 + 8
        guard data.count % entry == 0 else { throw .corruptRow("store_meta.group_versions length") }
        var offset = data.startIndex
        while offset < data.endIndex {
            let ref = Data(data[offset..<offset + 32])
            var version: Int64 = 0
            for byte in data[offset + 32..<offset + entry] { version = version << 8 | Int64(byte) }
            versions[ref] = version
            offset += entry
        }
    }

    subscript(ref: Data) -> Int64? {
        get { versions[ref] }
        set { versions[ref] = newValue }
    }

    /// Entries sorted by hash, each `ref ‖ version (big-endian)`.
    var encoded: Data {
        var out = Data()
        for ref in versions.keys.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            out.append(ref)
            withUnsafeBytes(of: versions[ref, default: 0].bigEndian) { out.append(contentsOf: $0) }
        }
        return out
    }
}
