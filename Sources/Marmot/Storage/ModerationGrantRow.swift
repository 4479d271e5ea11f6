import Foundation
import GRDB

/// A `moderation_grants_v2` row (migration `v11-moderation-grants`): the deletion with this message
/// lookup hash held the moderation grant in this group when it was read.
///
/// Keyed by the group's lookup hash and the message's (group and rumor, security review D3);
/// deleted with its group.
struct ModerationGrantRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "moderation_grants_v2"
    var groupRef: Data
    var messageRef: Data
    var grantedAt: Int64

    enum CodingKeys: String, CodingKey {
        case groupRef = "group_ref", messageRef = "message_ref", grantedAt = "granted_at"
    }

    enum Columns {
        static let groupRef = Column(CodingKeys.groupRef)
        static let messageRef = Column(CodingKeys.messageRef)
    }
}
