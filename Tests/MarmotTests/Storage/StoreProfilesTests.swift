import Foundation
import GRDB
import MLS
import Nostr
import Testing
@testable import Marmot

/// The `profiles_v2` table (migration `v12-profiles`): cached profiles by a keyed hash of the
/// person, sealed, and the old `client.profile.<pubkey>` settings moved on open.
@Suite struct StoreProfilesTests {
    let account = Keys.generate()
    let installation = InstallationSecret.generate()
    var key: StorageKey { StorageKey(deriving: account.secretKey, installationSecret: installation) }

    @Test func profilesAreKeptAcrossReopenWithNothingReadableInTheFile() throws {
        let folder = TemporaryStoreFolder()
        defer { folder.remove() }
        let (alice, bob) = (Keys.generate().publicKey, Keys.generate().publicKey)
        let encoded = Profile(name: "Alice Marker", displayName: "Alice Marker", updatedAt: 1_800_000_000).encoded()
        do {
            let store = try GRDBMarmotStore(path: folder.path, key: key)
            try store.saveProfile(Data("old".utf8), of: alice)
            try store.saveProfile(encoded, of: alice)
            try store.close()
        }
        let dump = try DatabaseDump(path: folder.path)
        #expect(dump.cells.filter { $0.table == "profiles_v2" }.count == 2, "control: one row (two cells)")
        #expect(dump.locations(of: Data(alice.bytes)).isEmpty && dump.locations(of: Data("Alice Marker".utf8)).isEmpty)

        let store = try GRDBMarmotStore(path: folder.path, key: key)
        #expect(try store.profile(of: alice) == encoded)
        #expect(try store.profile(of: bob) == nil)
        #expect(try store.appliedMigrations().contains(MigrationV12Profiles.name))
    }

    /// A home written before v12 (profiles as settings, as the old client wrote them) opens with
    /// every profile readable from the table and the old rows gone.
    @Test func oldSettingsRowsAreMovedOnOpen() throws {
        let folder = TemporaryStoreFolder()
        defer { folder.remove() }
        let (alice, bob) = (Keys.generate().publicKey, Keys.generate().publicKey)
        let (forAlice, forBob) = (Data("alice's".utf8), Data("bob's".utf8))
        let names = [GRDBMarmotStore.legacyProfilePrefix + alice.hex, GRDBMarmotStore.legacyProfilePrefix + bob.hex]
        do {
            let store = try GRDBMarmotStore(path: folder.path, key: key)
            try store.setSetting(names[0], forAlice)
            try store.setSetting(names[1], forBob)
            try store.setSetting(GRDBMarmotStore.legacyProfilePrefix + "not-a-key", Data([1]))
            try store.setSetting("client.other", Data([7]))
            try store.close()
        }
        let queue = try DatabaseQueue(path: folder.path)
        try queue.write { db in
            try db.execute(sql: "DROP TABLE profiles_v2")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = ?", arguments: [MigrationV12Profiles.name])
        }
        try queue.close()

        let store = try GRDBMarmotStore(path: folder.path, key: key)
        #expect(try store.profile(of: alice) == forAlice)
        #expect(try store.profile(of: bob) == forBob)
        #expect(try store.presentSettings(names + [GRDBMarmotStore.legacyProfilePrefix + "not-a-key"]).isEmpty)
        #expect(try store.setting("client.other") == Data([7]))
    }
}
