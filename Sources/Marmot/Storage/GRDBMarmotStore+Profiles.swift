import Foundation
import GRDB
import Nostr

/// Cached profiles (migration `v12-profiles`): a row per person, nothing readable without the key.
extension GRDBMarmotStore {
    /// The name prefix of the settings rows older versions kept a profile in.
    static let legacyProfilePrefix = "client.profile."

    /// The encoded profile kept for `person`, if any.
    public func profile(of person: PublicKey) throws -> Data? {
        let ref = codec.lookup.hash(.profile, Data(person.bytes))
        guard let row = try read({ db in try ProfileRow.fetchOne(db, key: ref) }) else { return nil }
        let record = try StoreCodec.decode(ProfileRecord.self, try codec.cipher.open(row.sealedProfile, ProfileRow.context(ref)), "profiles.profile")
        guard record.person == Data(person.bytes) else { throw StorageError.corruptRow("profiles.person_ref") }
        return record.profile
    }

    /// Keeps `profile` (encoded) for `person`, replacing the one kept before.
    public func saveProfile(_ profile: Data, of person: PublicKey) throws {
        let row = try profileRow(profile, of: Data(person.bytes))
        try write { db in try row.save(db) }
    }

    func profileRow(_ profile: Data, of person: Data) throws(StorageError) -> ProfileRow {
        let ref = codec.lookup.hash(.profile, person)
        let sealed = try codec.cipher.seal(try StoreCodec.encode(ProfileRecord(person: person, profile: profile), "profiles.profile"), ProfileRow.context(ref))
        return ProfileRow(personRef: ref, sealedProfile: sealed)
    }

    /// Moves the profiles older versions kept as `client.profile.<pubkey>` settings into
    /// `profiles_v2`, once (the migration's `store_meta` marker), then deletes those rows. A row
    /// whose name holds no valid key is dropped.
    func moveLegacyProfiles() throws {
        let marker = MigrationV12Profiles.pendingMove
        guard try read({ db in try StoreMetaRow.fetchOne(db, key: marker) }) != nil else { return }
        let codec = self.codec
        let prefix = Self.legacyProfilePrefix
        let legacy: [(ref: Data, person: PublicKey?, value: Data)] = try read { db in
            try SettingRow.fetchAll(db).compactMap { row in
                let record = try codec.setting(row)
                guard record.name.hasPrefix(prefix) else { return nil }
                return (row.keyRef, try? PublicKey(hex: String(record.name.dropFirst(prefix.count))), record.value)
            }
        }
        let rows = try legacy.compactMap { entry in try entry.person.map { try profileRow(entry.value, of: Data($0.bytes)) } }
        try write { db in
            for row in rows { try row.save(db) }
            for entry in legacy { _ = try SettingRow.deleteOne(db, key: entry.ref) }
            _ = try StoreMetaRow.deleteOne(db, key: marker)
        }
    }
}
