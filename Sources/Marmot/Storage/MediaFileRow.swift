import Foundation
import GRDB

/// A `media_files_v2` row (migration `v23-media`): the plaintext of one file of a group, a
/// message's attachment or the group's picture, by its blob's hash.
///
/// Keyed by the group, the purpose and a keyed hash of the blob's SHA-256; deleted with its group.
struct MediaFileRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "media_files_v2"
    var groupRef: Data
    var purpose: Int
    var blobRef: Data
    var sealedContent: Data

    enum CodingKeys: String, CodingKey {
        case groupRef = "group_ref", purpose, blobRef = "blob_ref", sealedContent = "sealed_content"
    }

    static func context(_ groupRef: Data, _ purpose: Int, _ blobRef: Data) -> SealContext {
        SealContext("media_files", "content", row: groupRef + Data([UInt8(purpose)]) + blobRef)
    }
}
