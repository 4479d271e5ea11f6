import Foundation
import GRDB

/// An `invitations_v2` row (migration `v22-invitations`): the pending invitation to one group.
///
/// Keyed by the group's lookup hash; deleted with its group.
struct InvitationRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "invitations_v2"
    var groupRef: Data
    /// The encoded invitation record, sealed with `InvitationRow.context(_, "record")`.
    var sealedRecord: Data
    /// The serialized MLS state we had left, sealed with `InvitationRow.context(_, "former_state")`.
    var sealedFormerState: Data?

    enum CodingKeys: String, CodingKey {
        case groupRef = "group_ref", sealedRecord = "sealed_record", sealedFormerState = "sealed_former_state"
    }

    /// The associated data of a sealed column: the table, the column and the row's key.
    static func context(_ groupRef: Data, _ column: String) -> SealContext {
        SealContext("invitations", column, row: groupRef)
    }
}
