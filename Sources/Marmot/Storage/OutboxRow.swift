import Foundation
import GRDB

/// An `outbox_v2` row (migration `v21-outbox`): the signed event of one message of ours not yet
/// accepted by a relay.
///
/// Keyed by the group's and the message's lookup hashes; deleted with its message (and so with its
/// group).
struct OutboxRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "outbox_v2"
    var groupRef: Data
    var messageRef: Data
    /// The event's JSON, sealed with `OutboxRow.context`.
    var sealedEvent: Data

    enum CodingKeys: String, CodingKey {
        case groupRef = "group_ref", messageRef = "message_ref", sealedEvent = "sealed_event"
    }

    /// The associated data of a row's sealed event: the row's key, so it opens in no other row.
    static func context(_ groupRef: Data, _ messageRef: Data) -> SealContext {
        SealContext("outbox", "event", row: groupRef + messageRef)
    }
}
