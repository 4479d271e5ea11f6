import Foundation
import MLS
import Nostr
import NostrClient

/// MIP-00: publishing our KeyPackages.
extension MarmotClient {
    /// Creates a last-resort KeyPackage of `version`, stores its private keys sealed under its
    /// KeyPackageRef, then publishes its events under our `d` tag for that version, so relays replace
    /// the previous one. v1 (MIP-00 as MDK 0.8.0): basic credential = our raw 32-byte key, MDK's
    /// capabilities with GREASE, published as `publishesAddressableV1` says. v2 (MDK 0.9): the
    /// account proof in the leaf, the last-resort component, one kind-30443 event with v2's tag set.
    /// Each is parseable only by its own version's clients. The private keys are kept after Welcomes
    /// use them (last resort, as OpenMLS).
    public func publishKeyPackage(version: MarmotVersion = .v1) async throws -> KeyPackagePublication {
        guard !relays.isEmpty else { throw MarmotClientError.noRelays }
        let created: (keyPackage: KeyPackage, privateMaterial: KeyPackagePrivateMaterial)
        do {
            switch version {
            case .v1:
                created = try KeyPackage.create(
                    identity: Data(publicKey.bytes), capabilities: .marmotDefault(grease: true),
                    keyPackageExtensions: [Extension(LastResortExtension())])
            case .v2:
                created = try V2KeyPackage.create(keys: keys, proofCreatedAt: UInt64(max(1, now())))
            }
        } catch {
            throw MarmotClientError.encoding("key package: \(error)")
        }
        let record = OwnKeyPackageRecord(keyPackage: created.keyPackage, privateMaterial: created.privateMaterial)
        let stored = StoredKeyPackage(
            ref: CipherSuiteProvider.mls128X25519.keyPackageRef(encodedKeyPackage: created.keyPackage.tlsSerialized),
            privateMaterial: record.encoded(), dTag: try keyPackageDTag(version), createdAt: now())
        let result = try await publishEvents(of: stored, keyPackage: created.keyPackage)
        logger.info("published \(version) key package \(result.ref): \(result.event.accepted.count) relays")
        return result
    }

    /// Signs `stored`'s key package events (fresh created_at), records their ids with the private
    /// half, then publishes them.
    func publishEvents(of stored: StoredKeyPackage, keyPackage: KeyPackage) async throws -> KeyPackagePublication {
        let createdAt = nextKeyPackageTimestamp()
        var updated = stored
        updated.createdAt = createdAt
        let primary: Event
        var twin: Event?
        do {
            switch OwnKeyPackageRecord.version(of: keyPackage) {
            case .v1:
                let published = try KeyPackageEvent.build(
                    keyPackage: keyPackage, relays: relays, keys: keys, dTag: stored.dTag, client: options.clientTag,
                    createdAt: createdAt)
                (primary, twin) = publishesAddressableV1 ? (published.addressable, published.legacy) : (published.legacy, nil)
            case .v2:
                primary = try V2KeyPackageEvent.build(keyPackage: keyPackage, keys: keys, slot: stored.dTag, createdAt: createdAt)
            }
        } catch {
            throw MarmotClientError.encoding("key package event: \(error)")
        }
        updated.eventID = primary.id
        updated.legacyEventID = twin?.id
        try storage { try store.saveKeyPackage(updated) }
        let pool = self.pool
        let own = ownRoute
        async let first = pool.publish(primary, to: own)
        async let second: PoolPublishResult? = { if let twin { await pool.publish(twin, to: own) } else { nil } }()
        return KeyPackagePublication(
            ref: stored.ref, dTag: stored.dTag, event: await first, twin: await second,
            version: OwnKeyPackageRecord.version(of: keyPackage))
    }

    /// Whether v1 key packages go out as kind 30443 (with their kind-443 twin) or as kind 443 only.
    /// Only when v2 is not published beside them: MDK 0.9.14 reads every kind-30443 event of an
    /// author and fails on the first it cannot parse as v2 (`marmot-app/src/key_package_records.rs`
    /// 94-110, `key_package_from_record` 248-334), so a v1 event of that kind makes every White
    /// Noise invite of us fail. MDK 0.8.0 accepts the legacy kind 443 (marmot-wire §2).
    var publishesAddressableV1: Bool { !options.keyPackageVersions.contains(.v2) }

    /// A created_at later than any key package event of ours: relays keep, of two addressable events
    /// with one `d` tag and one created_at, the lower id (NIP-01), so a rotation in the same second
    /// could otherwise lose to the event it replaces.
    func nextKeyPackageTimestamp() -> Int64 {
        let newest = (try? store.keyPackages().map(\.createdAt).max()) ?? nil
        return max(now(), (newest ?? 0) + 1)
    }

    /// The `d` tag of our kind-30443 events of `version`, made once and kept in the settings. When
    /// v1 goes out as kind 443 only (`publishesAddressableV1`), v2 takes v1's slot, so the kind-30443
    /// event a v1 key package of ours left there is replaced by a v2 one on every relay (NIP-01
    /// addressable events), where a deletion request would depend on each relay honouring NIP-09.
    func keyPackageDTag(_ version: MarmotVersion = .v1) throws -> KeyPackageDTag {
        let key = ClientSettings.keyPackageDTag(version == .v2 && !publishesAddressableV1 ? .v1 : version)
        if let data = try storage({ try store.setting(key) }), let tag = try? KeyPackageDTag(String(decoding: data, as: UTF8.self)) {
            return tag
        }
        let tag = KeyPackageDTag.random()
        try storage { try store.setSetting(key, Data(tag.value.utf8)) }
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
