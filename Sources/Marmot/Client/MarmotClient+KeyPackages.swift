import Foundation
import MLS
import Nostr
import NostrClient

/// MIP-00: publishing our KeyPackages.
extension MarmotClient {
    /// Creates a last-resort KeyPackage (basic credential = our raw 32-byte key, MDK's capabilities
    /// with GREASE), stores its private keys sealed under its KeyPackageRef, then publishes the
    /// kind-30443 event (our stable `d` tag, so relays replace the previous one) and its legacy
    /// kind-443 twin. The private keys are kept after Welcomes use them (last resort, as OpenMLS).
    public func publishKeyPackage() async throws -> KeyPackagePublication {
        guard !relays.isEmpty else { throw MarmotClientError.noRelays }
        let created: (keyPackage: KeyPackage, privateMaterial: KeyPackagePrivateMaterial)
        do {
            created = try KeyPackage.create(
                identity: Data(publicKey.bytes), capabilities: .marmotDefault(grease: true),
                keyPackageExtensions: [Extension(LastResortExtension())])
        } catch {
            throw MarmotClientError.encoding("key package: \(error)")
        }
        let dTag = try keyPackageDTag()
        let createdAt = nextKeyPackageTimestamp()
        let published: KeyPackageEvent.Published
        do {
            published = try KeyPackageEvent.build(
                keyPackage: created.keyPackage, relays: relays, keys: keys, dTag: dTag, client: options.clientTag,
                createdAt: createdAt)
        } catch {
            throw MarmotClientError.encoding("key package event: \(error)")
        }
        let record = OwnKeyPackageRecord(keyPackage: created.keyPackage, privateMaterial: created.privateMaterial)
        try storage {
            try store.saveKeyPackage(StoredKeyPackage(
                ref: published.ref, privateMaterial: record.encoded(), dTag: dTag, eventID: published.addressable.id,
                legacyEventID: published.legacy.id, createdAt: createdAt))
        }
        async let addressable = pool.publish(published.addressable)
        async let legacy = pool.publish(published.legacy)
        let result = KeyPackagePublication(ref: published.ref, dTag: dTag, addressable: await addressable, legacy: await legacy)
        logger.info("published key package \(published.ref): \(result.addressable.accepted.count) relays")
        return result
    }

    /// A created_at later than any key package event of ours: relays keep, of two addressable events
    /// with one `d` tag and one created_at, the lower id (NIP-01), so a rotation in the same second
    /// could otherwise lose to the event it replaces.
    func nextKeyPackageTimestamp() -> Int64 {
        let newest = (try? store.keyPackages().map(\.createdAt).max()) ?? nil
        return max(now(), (newest ?? 0) + 1)
    }

    /// The `d` tag of our kind-30443 events, made once and kept in the settings.
    func keyPackageDTag() throws -> KeyPackageDTag {
        if let data = try storage({ try store.setting(ClientSettings.keyPackageDTag) }),
           let tag = try? KeyPackageDTag(String(decoding: data, as: UTF8.self)) {
            return tag
        }
        let tag = KeyPackageDTag.random()
        try storage { try store.setSetting(ClientSettings.keyPackageDTag, Data(tag.value.utf8)) }
        return tag
    }

    /// Our stored KeyPackage that the Welcome has an entry for.
    func ownKeyPackage(for welcome: Welcome) throws -> OwnKeyPackageRecord? {
        for secrets in welcome.secrets {
            guard let stored = try store.keyPackage(ref: secrets.newMember) else { continue }
            return try OwnKeyPackageRecord(encoded: stored.privateMaterial)
        }
        return nil
    }
}
