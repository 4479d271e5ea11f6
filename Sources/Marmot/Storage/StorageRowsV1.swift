import Foundation
import GRDB

// The GRDB records of the first layout (migration `v1-initial`), columns as stored. Read only by the
// key-aware data migration that moves their rows to the keyed-lookup layout (`StorageRows.swift`).

struct V1GroupRow: Codable, FetchableRecord, TableRecord {
    static let databaseTableName = "groups"
    var mlsGroupID: Data
    var nostrGroupID: Data
    var sealedMLSState: Data
    var epoch: Int64
    var sealedName: Data
    var sealedDescription: Data
    var admins: Data
    var relays: String
    var peer: Data?
    var status: String
    var lastMessageAt: Int64?
    var unreadCount: Int
    var createdAt: Int64

    enum CodingKeys: String, CodingKey {
        case mlsGroupID = "mls_group_id", nostrGroupID = "nostr_group_id", sealedMLSState = "sealed_mls_state"
        case epoch, sealedName = "sealed_name", sealedDescription = "sealed_description", admins, relays, peer, status
        case lastMessageAt = "last_message_at", unreadCount = "unread_count", createdAt = "created_at"
    }

    enum Columns {
        static let mlsGroupID = Column(CodingKeys.mlsGroupID)
        static let nostrGroupID = Column(CodingKeys.nostrGroupID)
        static let unreadCount = Column(CodingKeys.unreadCount)
        static let lastMessageAt = Column(CodingKeys.lastMessageAt)
        static let createdAt = Column(CodingKeys.createdAt)
    }
}

struct V1KeyPackageRow: Codable, FetchableRecord, TableRecord {
    static let databaseTableName = "key_packages"
    var ref: Data
    var sealedPrivate: Data
    var dTag: String
    var eventID: Data?
    var legacyEventID: Data?
    var createdAt: Int64

    enum CodingKeys: String, CodingKey {
        case ref, sealedPrivate = "sealed_private", dTag = "d_tag", eventID = "event_id"
        case legacyEventID = "legacy_event_id", createdAt = "created_at"
    }
}

struct V1ProcessedEventRow: Codable, FetchableRecord, TableRecord {
    static let databaseTableName = "processed_events"
    var eventID: Data
    var outcome: String
    var processedAt: Int64
    var mlsGroupID: Data?

    enum CodingKeys: String, CodingKey {
        case eventID = "event_id", outcome, processedAt = "processed_at", mlsGroupID = "mls_group_id"
    }
}

struct V1MessageRow: Codable, FetchableRecord, TableRecord {
    static let databaseTableName = "messages"
    var mlsGroupID: Data
    var rumorID: Data
    var sender: Data
    var kind: Int
    var sealedBody: Data
    var createdAt: Int64
    var isMine: Bool
    var deliveryState: String
    var outerEventID: Data?

    enum CodingKeys: String, CodingKey {
        case mlsGroupID = "mls_group_id", rumorID = "rumor_id", sender, kind, sealedBody = "sealed_body"
        case createdAt = "created_at", isMine = "is_mine", deliveryState = "delivery_state", outerEventID = "outer_event_id"
    }

    enum Columns {
        static let mlsGroupID = Column(CodingKeys.mlsGroupID)
        static let rumorID = Column(CodingKeys.rumorID)
        static let createdAt = Column(CodingKeys.createdAt)
    }
}

/// The sealed part of a message: the rumor's content and tags.
struct V1MessageBody: Codable {
    var content: String
    var tags: [[String]]
}

struct V1GroupEventKeyRow: Codable, FetchableRecord, TableRecord {
    static let databaseTableName = "group_event_keys"
    var mlsGroupID: Data
    var epoch: Int64
    var sealedKey: Data

    enum CodingKeys: String, CodingKey {
        case mlsGroupID = "mls_group_id", epoch, sealedKey = "sealed_key"
    }
}

struct V1SettingRow: Codable, FetchableRecord, TableRecord {
    static let databaseTableName = "settings"
    var key: String
    var sealedValue: Data

    enum CodingKeys: String, CodingKey {
        case key, sealedValue = "sealed_value"
    }
}
