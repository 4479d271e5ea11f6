import Foundation
import GRDB

// The GRDB records of the keyed-lookup layout (migration `v2-keyed-lookups`): one per table, columns
// as stored. Plaintext columns hold only keyed hashes (`…_ref`), sealed blobs (`sealed_…`), counters,
// timestamps and enums. The public `Stored…` values are made from them by `StoreCodec`.

/// A group as the store reads and writes it: the `groups_v2` row with its sealed state, which lives
/// in `group_states_v2` (migration `v6-group-states`). Neither a `FetchableRecord` nor a
/// `PersistableRecord`: a read of `groups_v2` alone would take its empty `sealed_state` for the
/// state, so every read goes through `fetchRows` and every write through `save(_:)`.
struct GroupRow: TableRecord {
    static let databaseTableName = "groups_v2"
    var groupRef: Data
    var nostrRef: Data
    var version: Int64
    var sealedState: Data
    var sealedMeta: Data
    var status: String
    var lastMessageAt: Int64?
    var unreadCount: Int
    var createdAt: Int64
    /// The secret trees of a state stored apart (migration `v5-group-ratchets`), sealed under the
    /// row's version and their own `ratchetVersion`, which advances with every write of them.
    var sealedRatchets: Data?
    var ratchetVersion: Int64

    enum CodingKeys: String, CodingKey {
        case groupRef = "group_ref", nostrRef = "nostr_ref", version, sealedState = "sealed_state"
        case sealedMeta = "sealed_meta", status, lastMessageAt = "last_message_at", unreadCount = "unread_count"
        case createdAt = "created_at", sealedRatchets = "sealed_ratchets", ratchetVersion = "ratchet_version"
    }

    enum Columns {
        static let groupRef = Column(CodingKeys.groupRef)
        static let nostrRef = Column(CodingKeys.nostrRef)
        static let unreadCount = Column(CodingKeys.unreadCount)
        static let lastMessageAt = Column(CodingKeys.lastMessageAt)
    }
}

extension GroupRow {
    /// Every column, in the order `arguments` uses.
    static let columnList = """
        group_ref, nostr_ref, version, sealed_state, sealed_meta, status, last_message_at, unread_count, created_at, \
        sealed_ratchets, ratchet_version
        """

    /// The row's values in `columnList` order, for the store's prepared statements.
    var arguments: StatementArguments {
        [groupRef, nostrRef, version, sealedState, sealedMeta, status, lastMessageAt, unreadCount, createdAt, sealedRatchets,
         ratchetVersion]
    }

    /// Selects every column of `columnList`, the state from its own table; append a `WHERE` or an
    /// `ORDER BY` on `g.` columns.
    static let selectSQL = """
        SELECT g.group_ref, g.nostr_ref, g.version, s.sealed_state, g.sealed_meta, g.status, g.last_message_at, \
        g.unread_count, g.created_at, g.sealed_ratchets, g.ratchet_version \
        FROM groups_v2 g JOIN group_states_v2 s ON s.group_ref = g.group_ref
        """

    static func fetchRows(_ db: Database, _ suffix: String, arguments: StatementArguments = []) throws -> [GroupRow] {
        try Row.fetchAll(db.cachedStatement(sql: selectSQL + " " + suffix), arguments: arguments).map(GroupRow.init(row:))
    }

    /// Inserts or replaces the group: its row (with an empty `sealed_state`) and its state.
    func save(_ db: Database) throws {
        var row = self
        row.sealedState = Data()
        try db.cachedStatement(sql: """
            INSERT INTO groups_v2 (\(Self.columnList)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(group_ref) DO UPDATE SET nostr_ref = excluded.nostr_ref, version = excluded.version,
            sealed_state = excluded.sealed_state, sealed_meta = excluded.sealed_meta, status = excluded.status,
            last_message_at = excluded.last_message_at, unread_count = excluded.unread_count, created_at = excluded.created_at,
            sealed_ratchets = excluded.sealed_ratchets, ratchet_version = excluded.ratchet_version
            """).execute(arguments: row.arguments)
        try db.cachedStatement(sql: """
            INSERT INTO group_states_v2 (group_ref, sealed_state) VALUES (?, ?)
            ON CONFLICT(group_ref) DO UPDATE SET sealed_state = excluded.sealed_state
            """).execute(arguments: [groupRef, sealedState])
    }

    /// Read by column name rather than through `Decodable`, which GRDB runs through a `Decoder` per
    /// row (issue 27: the hot reads of the store paid it on every row); a value of the wrong type (a
    /// damaged file) throws, as the decoder did.
    init(row: Row) throws {
        groupRef = try row.decode(forColumn: "group_ref")
        nostrRef = try row.decode(forColumn: "nostr_ref")
        version = try row.decode(forColumn: "version")
        sealedState = try row.decode(forColumn: "sealed_state")
        sealedMeta = try row.decode(forColumn: "sealed_meta")
        status = try row.decode(forColumn: "status")
        lastMessageAt = try row.decode(forColumn: "last_message_at")
        unreadCount = try row.decode(forColumn: "unread_count")
        createdAt = try row.decode(forColumn: "created_at")
        sealedRatchets = try row.decode(forColumn: "sealed_ratchets")
        ratchetVersion = try row.decode(forColumn: "ratchet_version")
    }
}

/// The sealed, non-state part of a group.
struct GroupMeta: Codable {
    var mlsGroupID: Data
    var nostrGroupID: Data
    var epoch: UInt64
    var name: String
    var groupDescription: String
    var admins: [Data]
    var relays: [String]
    var peer: Data?
    /// The Marmot version's raw value; absent in rows written before v2 existed (v1).
    var version: UInt8?
}

struct MessageRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "messages_v2"
    var groupRef: Data
    var messageRef: Data
    var sealedRecord: Data
    var sealedOuterEventID: Data?
    var createdAt: Int64
    var isMine: Bool
    var deliveryState: String
    /// In clear so expired messages are found without opening every record (`v3-message-expiry`).
    var expiresAt: Int64?
    /// The MLS epoch it was read or encrypted in (`v7-message-epochs`), in clear like its time, so
    /// the messages of a branch the group leaves are found without opening every record.
    var epoch: Int64?

    enum CodingKeys: String, CodingKey {
        case groupRef = "group_ref", messageRef = "message_ref", sealedRecord = "sealed_record"
        case sealedOuterEventID = "sealed_outer_event_id", createdAt = "created_at", isMine = "is_mine"
        case deliveryState = "delivery_state", expiresAt = "expires_at", epoch
    }

    enum Columns {
        static let groupRef = Column(CodingKeys.groupRef)
        static let messageRef = Column(CodingKeys.messageRef)
        static let createdAt = Column(CodingKeys.createdAt)
        static let deliveryState = Column(CodingKeys.deliveryState)
        static let sealedOuterEventID = Column(CodingKeys.sealedOuterEventID)
        static let expiresAt = Column(CodingKeys.expiresAt)
        static let epoch = Column(CodingKeys.epoch)
    }
}

extension MessageRow {
    /// Every column, in the order `init(row:)` and `arguments` use.
    static let columnList =
        "group_ref, message_ref, sealed_record, sealed_outer_event_id, created_at, is_mine, delivery_state, expires_at, epoch"

    /// Read by column name rather than through `Decodable` (see `GroupRow.init(row:)`).
    init(row: Row) throws {
        groupRef = try row.decode(forColumn: "group_ref")
        messageRef = try row.decode(forColumn: "message_ref")
        sealedRecord = try row.decode(forColumn: "sealed_record")
        sealedOuterEventID = try row.decode(forColumn: "sealed_outer_event_id")
        createdAt = try row.decode(forColumn: "created_at")
        isMine = try row.decode(forColumn: "is_mine")
        deliveryState = try row.decode(forColumn: "delivery_state")
        expiresAt = try row.decode(forColumn: "expires_at")
        epoch = try row.decode(forColumn: "epoch")
    }

    /// The row's values in `columnList` order, for the store's prepared statements.
    var arguments: StatementArguments {
        [groupRef, messageRef, sealedRecord, sealedOuterEventID, createdAt, isMine, deliveryState, expiresAt, epoch]
    }
}

/// The sealed part of a message: the rumor's id, author, kind, content and tags, and its group.
struct MessageRecord: Codable {
    var rumorID: Data
    var mlsGroupID: Data
    var sender: Data
    var kind: UInt16
    var content: String
    var tags: [[String]]
}

struct KeyPackageRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "key_packages_v2"
    var refHash: Data
    var sealedRecord: Data
    var createdAt: Int64

    enum CodingKeys: String, CodingKey {
        case refHash = "ref_hash", sealedRecord = "sealed_record", createdAt = "created_at"
    }
}

/// The sealed part of a key package.
struct KeyPackageRecord: Codable {
    var ref: Data
    var privateMaterial: Data
    var dTag: String
    var eventID: Data?
    var legacyEventID: Data?
}

struct ProcessedEventRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "processed_events_v2"
    var eventRef: Data
    var outcome: String
    var processedAt: Int64
    var sealedRecord: Data

    enum CodingKeys: String, CodingKey {
        case eventRef = "event_ref", outcome, processedAt = "processed_at", sealedRecord = "sealed_record"
    }
}

/// The sealed part of a processed-event record.
struct ProcessedEventRecord: Codable {
    var eventID: Data
    var mlsGroupID: Data?
}

struct GroupEventKeyRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "group_event_keys_v2"
    var groupRef: Data
    var epoch: Int64
    var sealedKey: Data

    enum CodingKeys: String, CodingKey {
        case groupRef = "group_ref", epoch, sealedKey = "sealed_key"
    }
}

struct SettingRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "settings_v2"
    var keyRef: Data
    var sealedValue: Data

    enum CodingKeys: String, CodingKey {
        case keyRef = "key_ref", sealedValue = "sealed_value"
    }
}

/// The sealed part of a setting: its name (so a rekey can recompute the lookup hash) and value.
struct SettingRecord: Codable {
    var name: String
    var value: Data
}

struct StoreMetaRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "store_meta"
    var name: String
    var value: Data
}
