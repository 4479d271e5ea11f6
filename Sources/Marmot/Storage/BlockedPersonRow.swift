import Foundation
import GRDB

/// A `blocked_people_v2` row (migration `v10-chat-preferences`): one person this account blocked.
///
/// Keyed by a keyed hash of the public key (domain `blocked-person`), so the table names nobody to
/// someone who copied the file; the key itself is sealed to its row.
struct BlockedPersonRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "blocked_people_v2"
    var personRef: Data
    var sealedPerson: Data
    var blockedAt: Int64

    enum CodingKeys: String, CodingKey {
        case personRef = "person_ref", sealedPerson = "sealed_person", blockedAt = "blocked_at"
    }

    enum Columns {
        static let blockedAt = Column(CodingKeys.blockedAt)
    }

    /// The associated data of the sealed key: its table, column and row.
    static func context(_ personRef: Data) -> SealContext { SealContext("blocked_people", "person", row: personRef) }
}
