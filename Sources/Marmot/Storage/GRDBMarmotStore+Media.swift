import Foundation
import GRDB
import MLS
import Nostr

/// Encrypted media's records (migration `v23-media`): media secrets per state, each message's
/// media epoch and pending upload, and the plaintext of files sent or downloaded.
extension GRDBMarmotStore {
    /// The most media secrets kept for one epoch: one per state of that epoch the group held, as
    /// MDK keeps at most 8 branch contexts; beyond it the oldest goes.
    static let mediaSecretsPerEpoch = 8

    // MARK: Secrets

    /// The media secrets kept for `epoch` of group `mlsGroupID`, the latest kept first.
    public func mediaSecrets(mlsGroupID: GroupID, epoch: UInt64) throws -> [Data] {
        let group = codec.groupRef(mlsGroupID.bytes)
        let codec = self.codec
        let rows = try read { db in
            try MediaSecretRow.fetchAll(
                db.cachedStatement(sql: "SELECT * FROM media_secrets_v2 WHERE group_ref = ? AND epoch = ? ORDER BY rowid DESC"),
                arguments: [group, Int64(bitPattern: epoch)])
        }
        return try rows.map { row throws(StorageError) in try codec.cipher.open(row.sealedSecret, MediaSecretRow.context(group, row.secretRef)) }
    }

    /// Keeps each of `secrets` (a state's epoch and media secret) of group `mlsGroupID` in one
    /// transaction; one already kept is left as it is; `.unknownGroup` when the group has no row.
    public func saveMediaSecrets(_ secrets: [(epoch: UInt64, secret: Data)], mlsGroupID: GroupID) throws {
        guard !secrets.isEmpty else { return }
        let group = codec.groupRef(mlsGroupID.bytes)
        let codec = self.codec
        let rows = try secrets.map { entry throws(StorageError) -> MediaSecretRow in
            let ref = codec.lookup.hash(.mediaSecret, entry.secret)
            return MediaSecretRow(
                groupRef: group, epoch: Int64(bitPattern: entry.epoch), secretRef: ref,
                sealedSecret: try codec.cipher.seal(entry.secret, MediaSecretRow.context(group, ref)))
        }
        try write { db in try Self.insertMediaSecrets(rows, db) }
    }

    private static func insertMediaSecrets(_ rows: [MediaSecretRow], _ db: Database) throws {
        guard let group = rows.first?.groupRef else { return }
        try requireGroup(group, db, "media secret of a group without a row")
        let exists = try db.cachedStatement(sql: "SELECT 1 FROM media_secrets_v2 WHERE group_ref = ? AND epoch = ? AND secret_ref = ?")
        let count = try db.cachedStatement(sql: "SELECT COUNT(*) FROM media_secrets_v2 WHERE group_ref = ? AND epoch = ?")
        let dropOldest = try db.cachedStatement(sql: """
            DELETE FROM media_secrets_v2 WHERE rowid = (SELECT rowid FROM media_secrets_v2 WHERE group_ref = ? AND epoch = ? ORDER BY rowid LIMIT 1)
            """)
        for row in rows where try Row.fetchOne(exists, arguments: [row.groupRef, row.epoch, row.secretRef]) == nil {
            if try Int.fetchOne(count, arguments: [row.groupRef, row.epoch]) ?? 0 >= mediaSecretsPerEpoch {
                try dropOldest.execute(arguments: [row.groupRef, row.epoch])
            }
            try row.insert(db)
        }
    }

    // MARK: A message's media

    /// Records the epoch message `rumorID`'s files were encrypted in and the upload it still owes
    /// (nil: none), replacing what was recorded; the message must be stored (the row references it).
    public func saveMessageMedia(mlsGroupID: GroupID, rumorID: EventID, epoch: UInt64, upload: Data?) throws {
        let (group, message) = (codec.groupRef(mlsGroupID.bytes), codec.messageRef(mlsGroupID.bytes, rumorID))
        let row = MessageMediaRow(
            groupRef: group, messageRef: message, epoch: Int64(bitPattern: epoch),
            sealedUpload: try upload.map { bytes throws(StorageError) in try codec.cipher.seal(bytes, MessageMediaRow.context(group, message)) })
        try write { db in
            guard try Self.messageExists(group, message, db) else { throw StorageError.corruptRow("media of a message that is not stored") }
            try row.save(db)
        }
    }

    /// The epoch message `rumorID`'s files were encrypted in, if recorded.
    public func messageMediaEpoch(mlsGroupID: GroupID, rumorID: EventID) throws -> UInt64? {
        try messageMediaRow(mlsGroupID, rumorID).map { UInt64(bitPattern: $0.epoch) }
    }

    /// The upload message `rumorID` of ours still owes, if any.
    public func pendingUpload(mlsGroupID: GroupID, rumorID: EventID) throws -> Data? {
        guard let row = try messageMediaRow(mlsGroupID, rumorID), let sealed = row.sealedUpload else { return nil }
        return try codec.cipher.open(sealed, MessageMediaRow.context(row.groupRef, row.messageRef))
    }

    /// Forgets the upload message `rumorID` owed (done, or unreadable); its epoch stays.
    public func clearPendingUpload(mlsGroupID: GroupID, rumorID: EventID) throws {
        let (group, message) = (codec.groupRef(mlsGroupID.bytes), codec.messageRef(mlsGroupID.bytes, rumorID))
        try write { db in
            try db.cachedStatement(sql: "UPDATE message_media_v2 SET sealed_upload = NULL WHERE group_ref = ? AND message_ref = ?")
                .execute(arguments: [group, message])
        }
    }

    /// Forgets what was recorded of message `rumorID`'s media.
    public func deleteMessageMedia(mlsGroupID: GroupID, rumorID: EventID) throws {
        let (group, message) = (codec.groupRef(mlsGroupID.bytes), codec.messageRef(mlsGroupID.bytes, rumorID))
        try write { db in _ = try MessageMediaRow.deleteOne(db, key: ["group_ref": group, "message_ref": message]) }
    }

    private func messageMediaRow(_ mlsGroupID: GroupID, _ rumorID: EventID) throws(StorageError) -> MessageMediaRow? {
        let (group, message) = (codec.groupRef(mlsGroupID.bytes), codec.messageRef(mlsGroupID.bytes, rumorID))
        return try read { db in try MessageMediaRow.fetchOne(db, key: ["group_ref": group, "message_ref": message]) }
    }

    // MARK: Files

    /// The plaintext kept for the blob with SHA-256 `blob` of group `mlsGroupID`, if any.
    public func mediaFile(_ purpose: MediaFilePurpose, blob: Data, mlsGroupID: GroupID) throws -> Data? {
        let (group, ref) = (codec.groupRef(mlsGroupID.bytes), codec.lookup.hash(.mediaBlob, blob))
        guard let row = try read({ db in
            try MediaFileRow.fetchOne(db, key: ["group_ref": group, "purpose": purpose.rawValue, "blob_ref": ref])
        }) else { return nil }
        return try codec.cipher.open(row.sealedContent, MediaFileRow.context(group, purpose.rawValue, ref))
    }

    /// Whether a plaintext is kept for that blob (asked per shown file: nothing is opened).
    public func hasMediaFile(_ purpose: MediaFilePurpose, blob: Data, mlsGroupID: GroupID) throws -> Bool {
        let (group, ref) = (codec.groupRef(mlsGroupID.bytes), codec.lookup.hash(.mediaBlob, blob))
        return try read { db in
            try Row.fetchOne(
                db.cachedStatement(sql: "SELECT 1 FROM media_files_v2 WHERE group_ref = ? AND purpose = ? AND blob_ref = ?"),
                arguments: [group, purpose.rawValue, ref]) != nil
        }
    }

    /// Keeps `content` as the plaintext of that blob; `.unknownGroup` when the group has no row.
    public func saveMediaFile(_ content: Data, _ purpose: MediaFilePurpose, blob: Data, mlsGroupID: GroupID) throws {
        let row = try mediaFileRow(content, purpose, blob: blob, groupRef: codec.groupRef(mlsGroupID.bytes))
        try write { db in
            try Self.requireGroup(row.groupRef, db, "media file of a group without a row")
            try row.save(db)
        }
    }

    /// Forgets the plaintext of that blob.
    public func deleteMediaFile(_ purpose: MediaFilePurpose, blob: Data, mlsGroupID: GroupID) throws {
        let (group, ref) = (codec.groupRef(mlsGroupID.bytes), codec.lookup.hash(.mediaBlob, blob))
        try write { db in _ = try MediaFileRow.deleteOne(db, key: ["group_ref": group, "purpose": purpose.rawValue, "blob_ref": ref]) }
    }

    func mediaFileRow(_ content: Data, _ purpose: MediaFilePurpose, blob: Data, groupRef: Data) throws(StorageError) -> MediaFileRow {
        let ref = codec.lookup.hash(.mediaBlob, blob)
        return MediaFileRow(
            groupRef: groupRef, purpose: purpose.rawValue, blobRef: ref,
            sealedContent: try codec.cipher.seal(content, MediaFileRow.context(groupRef, purpose.rawValue, ref)))
    }
}
