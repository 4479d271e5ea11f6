import Foundation
import GRDB

/// Migration "v12-profiles" (frozen: a shipped migration is never edited).
///
/// The cached kind-0 profiles (NIP-01) of the people we chat with, and ours: a row per person,
/// keyed by a keyed hash of the public key, the profile sealed. They were `client.profile.<pubkey>`
/// settings, sealed under the store key the migration does not hold: the migration leaves a
/// `store_meta` marker and the store moves them on open (`GRDBMarmotStore.moveLegacyProfiles`).
enum MigrationV12Profiles {
    static let name = "v12-profiles"
    /// The `store_meta` row that asks the store to move the old settings rows once.
    static let pendingMove = "move.v12-profiles"

    static func migrate(_ db: Database) throws {
        try db.create(table: "profiles_v2") { t in
            t.primaryKey("person_ref", .blob)
            // The person's key and the profile, sealed together.
            t.column("sealed_profile", .blob).notNull()
        }
        try db.execute(sql: "INSERT OR REPLACE INTO store_meta (name, value) VALUES (?, ?)", arguments: [pendingMove, Data()])
    }
}
