import Foundation
import GRDB

/// A `parked_events_v2` row (migration `v20-parked-events`): one parked kind-445 event of a group.
///
/// Keyed by the group's lookup hash and the position it was parked at; deleted with its group.
struct ParkedEventRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "parked_events_v2"
    var groupRef: Data
    var position: Int64
    /// `StoredParkedEvent.Note`'s code.
    var note: Int
    /// The event's JSON, sealed with `GRDBMarmotStore.parkedContext`.
    var sealedValue: Data

    enum CodingKeys: String, CodingKey {
        case groupRef = "group_ref", position, note, sealedValue = "sealed_value"
    }

    enum Columns {
        static let groupRef = Column(CodingKeys.groupRef)
        static let position = Column(CodingKeys.position)
    }
}
