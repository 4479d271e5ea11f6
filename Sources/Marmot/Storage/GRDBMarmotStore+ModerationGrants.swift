import Foundation
import GRDB
import MLS
import Nostr

/// Moderation grants (migration `v11-moderation-grants`): which admin deletions held the grant in the
/// group they were read in (MDK 0.9.14; spec `features/content-moderation.md`). Keyed by group and
/// rumor together, so a grant earned in one group never applies to the same rumor in another
/// (security review D3).
extension GRDBMarmotStore {
    /// The name prefix of the settings rows older versions kept a grant in, by rumor id alone.
    static let legacyModerationGrantPrefix = "client.moderation_grant."

    /// Those of `rumorIDs` that hold the grant in this group.
    public func moderationGrants(mlsGroupID: GroupID, rumorIDs: [EventID]) throws -> Set<EventID> {
        guard !rumorIDs.isEmpty else { return [] }
        let codec = self.codec
        let group = codec.groupRef(mlsGroupID.bytes)
        let byRef = Dictionary(rumorIDs.map { (codec.messageRef(mlsGroupID.bytes, $0), $0) }, uniquingKeysWith: { first, _ in first })
        return try read { db in
            let exists = try db.cachedStatement(sql: "SELECT 1 FROM moderation_grants_v2 WHERE group_ref = ? AND message_ref = ?")
            var granted: Set<EventID> = []
            for (ref, rumor) in byRef where try Row.fetchOne(exists, arguments: [group, ref]) != nil { granted.insert(rumor) }
            return granted
        }
    }

    /// Records that the deletion `rumorID` held the grant in this group; `.unknownGroup` when the
    /// group has no row.
    public func saveModerationGrant(mlsGroupID: GroupID, rumorID: EventID, at now: Int64) throws {
        let row = ModerationGrantRow(
            groupRef: codec.groupRef(mlsGroupID.bytes), messageRef: codec.messageRef(mlsGroupID.bytes, rumorID), grantedAt: now)
        try write { db in
            try Self.requireGroup(row.groupRef, db, "moderation grant of a group without a row")
            try row.save(db)
        }
    }

    /// Moves the grants older versions kept as `client.moderation_grant.<rumor>` settings into
    /// `moderation_grants_v2`, once (the migration's `store_meta` marker), then deletes those rows.
    ///
    /// An old grant names no group. It goes to the one group that holds a message with that rumor
    /// id; a rumor found in several groups is exactly the D3 case (the same deletion sent where its
    /// author is no admin) and keeps no grant anywhere, as does one found in none.
    func moveLegacyModerationGrants() throws {
        let marker = MigrationV11ModerationGrants.pendingMove
        guard try read({ db in try StoreMetaRow.fetchOne(db, key: marker) }) != nil else { return }
        let codec = self.codec
        let prefix = Self.legacyModerationGrantPrefix
        let legacy: [(ref: Data, rumor: EventID?)] = try read { db in
            try SettingRow.fetchAll(db).compactMap { row in
                let record = try codec.setting(row)
                guard record.name.hasPrefix(prefix) else { return nil }
                let hex = String(record.name.dropFirst(prefix.count))
                return (row.keyRef, try? EventID(hex: hex))
            }
        }
        let groups = legacy.isEmpty ? [] : try groups().map(\.mlsGroupID)
        let now = Int64(Date().timeIntervalSince1970)
        try write { db in
            for (ref, rumor) in legacy {
                if let rumor {
                    var holders: [GroupID] = []
                    for group in groups
                    where try Self.messageExists(codec.groupRef(group.bytes), codec.messageRef(group.bytes, rumor), db) {
                        holders.append(group)
                    }
                    if holders.count == 1, let group = holders.first {
                        try ModerationGrantRow(
                            groupRef: codec.groupRef(group.bytes), messageRef: codec.messageRef(group.bytes, rumor), grantedAt: now
                        ).save(db)
                    }
                }
                _ = try SettingRow.deleteOne(db, key: ref)
            }
            _ = try StoreMetaRow.deleteOne(db, key: marker)
        }
    }
}
