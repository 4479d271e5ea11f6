import Foundation
import GRDB

/// A `profiles_v2` row (migration `v12-profiles`): one person's cached profile.
///
/// Keyed by a keyed hash of the public key (domain `profile`); the key and the encoded profile are
/// sealed to the row (`ProfileRecord`).
struct ProfileRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "profiles_v2"
    var personRef: Data
    var sealedProfile: Data

    enum CodingKeys: String, CodingKey {
        case personRef = "person_ref", sealedProfile = "sealed_profile"
    }

    /// The associated data of the sealed profile: its table, column and row.
    static func context(_ personRef: Data) -> SealContext { SealContext("profiles", "profile", row: personRef) }
}
