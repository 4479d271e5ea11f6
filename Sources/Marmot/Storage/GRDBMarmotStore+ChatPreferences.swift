import Foundation
import GRDB
import MLS
import Nostr

/// Whether a chat is muted: not, until a moment, or for good (issue 48).
public enum StoredMute: Sendable, Equatable, Hashable {
    case off
    /// Muted until these Unix seconds; afterwards it counts as off.
    case until(Int64)
    case forever
}

/// What the user chose for one chat on this device: muted, archived (issue 48).
public struct StoredChatPreferences: Sendable, Equatable, Hashable {
    public var mute: StoredMute
    /// When the chat was archived (Unix seconds); nil while it is not.
    public var archivedAt: Int64?

    public init(mute: StoredMute = .off, archivedAt: Int64? = nil) {
        self.mute = mute
        self.archivedAt = archivedAt
    }

    /// Neither muted nor archived: the store keeps no row for it.
    public var isDefault: Bool { mute == .off && archivedAt == nil }
}

/// A person this account blocked, and since when (Unix seconds).
public struct StoredBlockedPerson: Sendable, Equatable, Hashable {
    public var person: PublicKey
    public var blockedAt: Int64

    public init(person: PublicKey, blockedAt: Int64) {
        self.person = person
        self.blockedAt = blockedAt
    }
}

/// Chat preferences and blocked people (migration `v10-chat-preferences`, issue 48): kept on this
/// device only, never sent to anyone.
extension GRDBMarmotStore {
    /// The preferences of those of `groups` that have any; a group missing here has the defaults.
    public func chatPreferences(of groups: [GroupID]) throws(StorageError) -> [GroupID: StoredChatPreferences] {
        let codec = self.codec
        let byRef = Dictionary(groups.map { (codec.groupRef($0.bytes), $0) }, uniquingKeysWith: { first, _ in first })
        let rows = try read { db in try ChatPreferenceRow.fetchAll(db) }
        var result: [GroupID: StoredChatPreferences] = [:]
        for row in rows {
            guard let group = byRef[row.groupRef] else { continue }
            result[group] = try row.preferences()
        }
        return result
    }

    /// Keeps `preferences` for the group (the defaults delete its row); `.unknownGroup` when the
    /// group has no row.
    public func saveChatPreferences(_ preferences: StoredChatPreferences, mlsGroupID: GroupID, at now: Int64) throws(StorageError) {
        let ref = codec.groupRef(mlsGroupID.bytes)
        try write { db in
            try Self.requireGroup(ref, db, "preferences of a group without a row")
            if preferences.isDefault {
                _ = try ChatPreferenceRow.deleteOne(db, key: ref)
            } else {
                try ChatPreferenceRow(groupRef: ref, preferences, at: now).save(db)
            }
        }
    }

    /// Everyone this account blocked, longest blocked first.
    public func blockedPeople() throws(StorageError) -> [StoredBlockedPerson] {
        let codec = self.codec
        let rows = try read { db in try BlockedPersonRow.order(BlockedPersonRow.Columns.blockedAt, Column("person_ref")).fetchAll(db) }
        return try rows.map { row throws(StorageError) in
            let bytes = try codec.cipher.open(row.sealedPerson, BlockedPersonRow.context(row.personRef))
            let person: PublicKey
            do { person = try PublicKey(bytes: bytes) } catch { throw .corruptRow("blocked_people.person") }
            guard codec.lookup.hash(.blockedPerson, Data(person.bytes)) == row.personRef else {
                throw .corruptRow("blocked_people.person_ref")
            }
            return StoredBlockedPerson(person: person, blockedAt: row.blockedAt)
        }
    }

    /// Blocks `person` from `now` on; blocking someone already blocked keeps the first moment.
    public func block(_ person: PublicKey, at now: Int64) throws(StorageError) {
        let ref = codec.lookup.hash(.blockedPerson, Data(person.bytes))
        let sealed = try codec.cipher.seal(Data(person.bytes), BlockedPersonRow.context(ref))
        try write { db in
            guard try BlockedPersonRow.filter(key: ref).fetchCount(db) == 0 else { return }
            try BlockedPersonRow(personRef: ref, sealedPerson: sealed, blockedAt: now).insert(db)
        }
    }

    /// Unblocks `person`; nothing happens for someone not blocked.
    public func unblock(_ person: PublicKey) throws(StorageError) {
        let ref = codec.lookup.hash(.blockedPerson, Data(person.bytes))
        _ = try write { db in try BlockedPersonRow.deleteOne(db, key: ref) }
    }
}
