import Foundation
import GRDB

/// Migration "v23-media" (frozen: a shipped migration is never edited).
///
/// What the client keeps for encrypted media (MIP-04), as rows of their parents instead of
/// settings (architecture review §4.3):
/// - `media_secrets_v2`: the media secret of each state the group went through, several per epoch
///   (two branches of a fork share an epoch number, not a secret), gone with the group;
/// - `message_media_v2`: per message with files, the epoch they were encrypted in and the upload
///   a message of ours still owes, gone with the message;
/// - `media_files_v2`: the plaintext of a file or group picture sent from here or downloaded, by its
///   blob's hash, gone with the group.
/// The settings `client.media_secret.*`, `client.media_epoch.*`, `client.media_upload.*`,
/// `client.media.*` and `client.group_image.*` are sealed under the store key the migration does not
/// hold: it leaves a `store_meta` marker and the store moves them on open
/// (`GRDBMarmotStore.moveLegacyMedia`).
enum MigrationV23Media {
    static let name = "v23-media"
    /// The `store_meta` row that asks the store to move the old settings rows once.
    static let pendingMove = "move.v23-media"

    static func migrate(_ db: Database) throws {
        try db.create(table: "media_secrets_v2") { t in
            t.column("group_ref", .blob).notNull().references("groups_v2", onDelete: .cascade)
            t.column("epoch", .integer).notNull()
            // A keyed hash of the secret: one row per distinct secret of an epoch.
            t.column("secret_ref", .blob).notNull()
            t.column("sealed_secret", .blob).notNull()
            t.primaryKey(["group_ref", "epoch", "secret_ref"])
        }
        try db.create(table: "message_media_v2") { t in
            t.column("group_ref", .blob).notNull()
            t.column("message_ref", .blob).notNull()
            t.column("epoch", .integer).notNull()
            // The encrypted blob still to upload (server, type, ciphertext), sealed; NULL once up.
            t.column("sealed_upload", .blob)
            t.primaryKey(["group_ref", "message_ref"])
            t.foreignKey(["group_ref", "message_ref"], references: "messages_v2", columns: ["group_ref", "message_ref"], onDelete: .cascade)
        }
        try db.create(table: "media_files_v2") { t in
            t.column("group_ref", .blob).notNull().references("groups_v2", onDelete: .cascade)
            // 0 a message's attachment, 1 the group's picture.
            t.column("purpose", .integer).notNull()
            t.column("blob_ref", .blob).notNull()
            t.column("sealed_content", .blob).notNull()
            t.primaryKey(["group_ref", "purpose", "blob_ref"])
        }
        try db.execute(sql: "INSERT OR REPLACE INTO store_meta (name, value) VALUES (?, ?)", arguments: [pendingMove, Data()])
    }
}
