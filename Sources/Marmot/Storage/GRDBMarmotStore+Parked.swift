import Foundation
import GRDB
import MLS
import Nostr

/// One parked kind-445 event as the store keeps it (`parked_events_v2`, migration
/// `v20-parked-events`): where it was parked in its group's order, and why it waits.
struct StoredParkedEvent: Sendable, Equatable {
    /// Why a parked event waits (the row's `note`).
    enum Note: Int, Sendable {
        /// It did not open (anyone who knows the `h` tag can send such bytes).
        case unopened = 0
        /// It opened and waits for another event.
        case waiting = 1
        /// It opened on a branch that is not selected.
        case held = 2
    }

    var position: Int64
    var event: Event
    var note: Note
}

/// What changed in a group's parked events since they were last written: rows added, removed, or
/// whose note changed; each park or retry writes only these (N2: the whole list was re-sealed).
struct ParkedEventChanges: Sendable, Equatable {
    var added: [StoredParkedEvent] = []
    var removed: Set<Int64> = []
    var notes: [Int64: StoredParkedEvent.Note] = [:]

    var isEmpty: Bool { added.isEmpty && removed.isEmpty && notes.isEmpty }
}

/// Parked group events, one row each (surface review 2026-12-01, N2).
extension GRDBMarmotStore {
    /// Group `mlsGroupID`'s parked events in the order they were parked; a row that does not open
    /// or read as an event is skipped (and deleted with the next change of its position).
    func parkedEvents(mlsGroupID: GroupID) throws(StorageError) -> [StoredParkedEvent] {
        let ref = codec.groupRef(mlsGroupID.bytes)
        let codec = self.codec
        let rows = try read { db in
            try ParkedEventRow.filter(ParkedEventRow.Columns.groupRef == ref).order(ParkedEventRow.Columns.position).fetchAll(db)
        }
        return rows.compactMap { row in
            guard let json = try? codec.cipher.open(row.sealedValue, Self.parkedContext(ref, row.position)),
                  let event = try? Event(jsonData: json) else { return nil }
            return StoredParkedEvent(position: row.position, event: event, note: .init(rawValue: row.note) ?? .unopened)
        }
    }

    /// Writes `changes` to group `mlsGroupID`'s parked rows in one transaction.
    func writeParked(_ changes: ParkedEventChanges, mlsGroupID: GroupID) throws(StorageError) {
        guard !changes.isEmpty else { return }
        let ref = codec.groupRef(mlsGroupID.bytes)
        let codec = self.codec
        try write { db in
            for position in changes.removed {
                try db.cachedStatement(sql: "DELETE FROM parked_events_v2 WHERE group_ref = ? AND position = ?")
                    .execute(arguments: [ref, position])
            }
            for parked in changes.added where !changes.removed.contains(parked.position) {
                let sealed = try codec.cipher.seal(Data(parked.event.jsonBytes), Self.parkedContext(ref, parked.position))
                try ParkedEventRow(groupRef: ref, position: parked.position, note: parked.note.rawValue, sealedValue: sealed).save(db)
            }
            for (position, note) in changes.notes where !changes.removed.contains(position) {
                try db.cachedStatement(sql: "UPDATE parked_events_v2 SET note = ? WHERE group_ref = ? AND position = ?")
                    .execute(arguments: [note.rawValue, ref, position])
            }
        }
    }

    /// Deletes every parked row of group `mlsGroupID`.
    func deleteParkedEvents(mlsGroupID: GroupID) throws(StorageError) {
        let ref = codec.groupRef(mlsGroupID.bytes)
        try write { db in _ = try ParkedEventRow.filter(ParkedEventRow.Columns.groupRef == ref).deleteAll(db) }
    }

    private static func parkedContext(_ ref: Data, _ position: Int64) -> SealContext {
        var row = ref
        withUnsafeBytes(of: UInt64(bitPattern: position).bigEndian) { row.append(contentsOf: $0) }
        return SealContext("parked_events", "value", row: row)
    }
}
