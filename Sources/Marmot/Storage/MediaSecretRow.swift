import Foundation
import GRDB

/// A `media_secrets_v2` row (migration `v23-media`): one media secret (MIP-04) of a state the
/// group was in at `epoch`.
///
/// Keyed by the group, the epoch and a keyed hash of the secret, so each state of a fork keeps its
/// own; deleted with its group.
struct MediaSecretRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "media_secrets_v2"
    var groupRef: Data
    var epoch: Int64
    var secretRef: Data
    var sealedSecret: Data

    enum CodingKeys: String, CodingKey {
        case groupRef = "group_ref", epoch, secretRef = "secret_ref", sealedSecret = "sealed_secret"
    }

    static func context(_ groupRef: Data, _ secretRef: Data) -> SealContext {
        SealContext("media_secrets", "secret", row: groupRef + secretRef)
    }
}
