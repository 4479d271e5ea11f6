import Foundation
import GRDB

/// A `message_media_v2` row (migration `v23-media`): for one message with files, the epoch they
/// were encrypted in (their key derives from it, MIP-04) and the upload a message of ours still owes.
///
/// Keyed by the message's group and lookup hash; deleted with its message.
struct MessageMediaRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "message_media_v2"
    var groupRef: Data
    var messageRef: Data
    var epoch: Int64
    var sealedUpload: Data?

    enum CodingKeys: String, CodingKey {
        case groupRef = "group_ref", messageRef = "message_ref", epoch, sealedUpload = "sealed_upload"
    }

    static func context(_ groupRef: Data, _ messageRef: Data) -> SealContext {
        SealContext("message_media", "upload", row: groupRef + messageRef)
    }
}
