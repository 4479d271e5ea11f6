import Foundation
import GRDB
import MLS
import Nostr

/// Pending invitations (migration `v22-invitations`), one row per group, gone with the group.
extension GRDBMarmotStore {
    /// The name prefixes of the settings rows older versions kept an invitation and a former state in.
    static let legacyInvitePrefix = "client.invite."
    static let legacyFormerStatePrefix = "client.former_state."

    /// The encoded invitation to group `mlsGroupID`, if one waits.
    public func invitation(mlsGroupID: GroupID) throws -> Data? {
        let ref = codec.groupRef(mlsGroupID.bytes)
        guard let row = try read({ db in try InvitationRow.fetchOne(db, key: ref) }) else { return nil }
        return try codec.cipher.open(row.sealedRecord, InvitationRow.context(ref, "record"))
    }

    /// The MLS state we had left, kept with the invitation back into group `mlsGroupID`.
    public func formerState(mlsGroupID: GroupID) throws -> Data? {
        let ref = codec.groupRef(mlsGroupID.bytes)
        guard let sealed = try read({ db in try InvitationRow.fetchOne(db, key: ref) })?.sealedFormerState else { return nil }
        return try codec.cipher.open(sealed, InvitationRow.context(ref, "former_state"))
    }

    /// Keeps the invitation `record` to group `mlsGroupID` (and the state we had left there),
    /// replacing one kept before; `.unknownGroup` when the group has no row.
    public func saveInvitation(_ record: Data, formerState: Data?, mlsGroupID: GroupID) throws {
        let row = try invitationRow(record, formerState: formerState, groupRef: codec.groupRef(mlsGroupID.bytes))
        try write { db in
            try Self.requireGroup(row.groupRef, db, "invitation to a group without a row")
            try row.save(db)
        }
    }

    /// Forgets the invitation to group `mlsGroupID` (answered) and the former state with it.
    public func deleteInvitation(mlsGroupID: GroupID) throws {
        let ref = codec.groupRef(mlsGroupID.bytes)
        try write { db in _ = try InvitationRow.deleteOne(db, key: ref) }
    }

    func invitationRow(_ record: Data, formerState: Data?, groupRef: Data) throws(StorageError) -> InvitationRow {
        InvitationRow(
            groupRef: groupRef, sealedRecord: try codec.cipher.seal(record, InvitationRow.context(groupRef, "record")),
            sealedFormerState: try formerState.map { state throws(StorageError) in
                try codec.cipher.seal(state, InvitationRow.context(groupRef, "former_state"))
            })
    }

    /// Moves the invitations and former states older versions kept as `client.invite.<group>` and
    /// `client.former_state.<group>` settings into `invitations_v2`, once (the migration's
    /// `store_meta` marker), then deletes those rows. An entry for a group without a row is
    /// dropped, as is a former state without an invitation (nothing would read it again).
    func moveLegacyInvitations() throws {
        let marker = MigrationV22Invitations.pendingMove
        guard try read({ db in try StoreMetaRow.fetchOne(db, key: marker) }) != nil else { return }
        let codec = self.codec
        var refs: [Data] = []
        var invites: [Data: Data] = [:]
        var formers: [Data: Data] = [:]
        try read { db in
            for row in try SettingRow.fetchAll(db) {
                let record = try codec.setting(row)
                for (prefix, isInvite) in [(Self.legacyInvitePrefix, true), (Self.legacyFormerStatePrefix, false)]
                where record.name.hasPrefix(prefix) {
                    refs.append(row.keyRef)
                    guard let group = Hex.decode(String(record.name.dropFirst(prefix.count))), !group.isEmpty else { continue }
                    let ref = codec.groupRef(Data(group))
                    if isInvite { invites[ref] = record.value } else { formers[ref] = record.value }
                }
            }
        }
        let rows = try invites.map { ref, value in try invitationRow(value, formerState: formers[ref], groupRef: ref) }
        try write { db in
            for row in rows where try Self.groupExists(row.groupRef, db) { try row.save(db) }
            for ref in refs { _ = try SettingRow.deleteOne(db, key: ref) }
            _ = try StoreMetaRow.deleteOne(db, key: marker)
        }
    }
}
