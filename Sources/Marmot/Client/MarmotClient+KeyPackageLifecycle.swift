import Foundation
import MLS
import Nostr
import NostrClient

/// MIP-00 key package lifecycle, as MDK runs it: one last-resort key package per device, visible on
/// our relays under one `d` tag; replaced after a Welcome consumed it; superseded events deleted
/// (NIP-09); private halves forgotten once no late Welcome can need them.
extension MarmotClient {
    /// What `ensureKeyPackage` found or did.
    public enum KeyPackageUpkeep: Sendable, Equatable {
        /// Our current key package is visible on at least one relay; nothing was published.
        case visible(KeyPackageRef)
        /// The current key package was missing from the relays, or out in a form we no longer publish
        /// (`publishesAddressableV1`, `keyPackageDTag`), and was published again.
        case republished(KeyPackagePublication)
        /// A fresh key package was made and published (none usable was stored, or it was consumed).
        case published(KeyPackagePublication)

        /// Whether a relay holds our key package now.
        public var isAvailable: Bool {
            switch self {
            case .visible: true
            case .republished(let p), .published(let p): p.isPublished
            }
        }
    }

    /// Start-up repair for every version in `Options.keyPackageVersions`: keeps exactly one usable
    /// key package of each visible, so v1 and v2 peers can both invite us (`ensureKeyPackage`).
    public func ensureKeyPackages() async throws -> [MarmotVersion: KeyPackageUpkeep] {
        var upkeep: [MarmotVersion: KeyPackageUpkeep] = [:]
        for version in options.keyPackageVersions.sorted(by: { $0.rawValue < $1.rawValue }) {
            upkeep[version] = try await ensureKeyPackage(version: version)
        }
        return upkeep
    }

    /// Start-up repair: keeps exactly one usable key package of `version` visible. The newest stored
    /// one that no Welcome consumed and that is valid for `keyPackageMinimumValidity` more is reused
    /// (published again if no relay shows it, or if it went out in a form we no longer publish:
    /// `publishesAddressableV1`, `keyPackageDTag`); otherwise a new one is made. Stale private
    /// records and our superseded key package events are cleaned up afterwards.
    public func ensureKeyPackage(version: MarmotVersion = .v1) async throws -> KeyPackageUpkeep {
        guard !relays.isEmpty else { throw MarmotClientError.noRelays }
        let onRelays = await ownKeyPackageEvents()
        let upkeep: KeyPackageUpkeep
        if var current = try currentKeyPackage(version) {
            let slot = try keyPackageDTag(version)
            let twinned = version == .v1 && publishesAddressableV1
            if current.dTag != slot || (current.legacyEventID != nil) != twinned {
                current.dTag = slot
                upkeep = .republished(try await republish(current))
            } else if let eventID = current.eventID, onRelays.contains(where: { $0.id == eventID }) {
                upkeep = .visible(current.ref)
            } else {
                upkeep = .republished(try await republish(current))
            }
        } else {
            upkeep = .published(try await publishKeyPackage(version: version))
        }
        await cleanUpKeyPackages(seen: onRelays)
        return upkeep
    }

    /// The newest usable stored key package of `version`.
    func currentKeyPackage(_ version: MarmotVersion) throws -> StoredKeyPackage? {
        try storage { try store.keyPackages() }.first { isUsable($0) && Self.version(of: $0) == version }
    }

    static func version(of stored: StoredKeyPackage) -> MarmotVersion? {
        (try? OwnKeyPackageRecord(encoded: stored.privateMaterial))?.version
    }

    /// Marks the key package a Welcome used as consumed; the caller then rotates (`rotateKeyPackage`).
    func markConsumed(_ ref: KeyPackageRef) {
        do {
            try store.setSetting(ClientSettings.keyPackageConsumed(ref), Data(String(now()).utf8))
        } catch {
            logger.error("cannot mark key package \(ref) consumed: \(error)")
        }
    }

    /// After a Welcome consumed our key package of `version`: a fresh one replaces it under the same
    /// `d` tag and the consumed one's events are deleted; its private half is kept for late Welcomes
    /// until `consumedKeyPackageGrace` has passed.
    func rotateKeyPackage(_ version: MarmotVersion) async {
        do {
            let published = try await publishKeyPackage(version: version)
            logger.info("key package rotated after a Welcome: \(published.ref)")
            await cleanUpKeyPackages(seen: await ownKeyPackageEvents())
            // A v1 key package that goes out as kind 443 is known to our other devices only by
            // its reference: they hear of the new one.
            if version == .v1, !publishesAddressableV1 { await announceThisDevice() }
        } catch {
            logger.warning("key package rotation failed: \(error)")
            emit(.failure(chat: nil, reason: "key package rotation: \(error)"))
        }
    }

    // MARK: Steps

    /// Unconsumed and valid long enough to be offered.
    func isUsable(_ stored: StoredKeyPackage) -> Bool {
        guard (try? store.setting(ClientSettings.keyPackageConsumed(stored.ref))) == nil,
              let record = try? OwnKeyPackageRecord(encoded: stored.privateMaterial),
              case .keyPackage(let lifetime) = record.keyPackage.leafNode.source
        else { return false }
        let time = UInt64(max(0, now()))
        return lifetime.notBefore <= time && time + UInt64(options.keyPackageMinimumValidity) < lifetime.notAfter
    }

    /// Publishes a stored key package again in fresh events under its (possibly new) `d` tag.
    private func republish(_ stored: StoredKeyPackage) async throws -> KeyPackagePublication {
        let record: OwnKeyPackageRecord
        do { record = try OwnKeyPackageRecord(encoded: stored.privateMaterial) } catch {
            throw MarmotClientError.storage("\(error)")
        }
        let result = try await publishEvents(of: stored, keyPackage: record.keyPackage)
        logger.info("\(record.version) key package \(stored.ref) published again (missing from the relays, or in an old form)")
        return result
    }

    /// Every `d` tag this device ever published key packages under, including one v2 gave up for
    /// v1's (`keyPackageDTag`); another installation of the account publishes under its own.
    func ownDTags() -> Set<String> {
        Set(MarmotVersion.allCases.compactMap { version in
            (try? store.setting(ClientSettings.keyPackageDTag(version))).flatMap { $0 }.map { String(decoding: $0, as: UTF8.self) }
        })
    }

    /// Our kind 30443/443 events on the relays (until EOSE or the fetch timeout).
    func ownKeyPackageEvents() async -> [Event] {
        await fetch(Filter(authors: [publicKey], kinds: [.addressableKeyPackage, .keyPackage]), on: pool, relays: ownRoute)
            .filter { $0.pubkey == publicKey }
    }

    /// Deletes (NIP-09) our key package events that are not a current one's (each version keeps
    /// its own), and forgets private halves that are superseded and past the grace period (consumed
    /// ones) or expired.
    private func cleanUpKeyPackages(seen: [Event]) async {
        guard let stored = try? store.keyPackages() else { return }
        let current = MarmotVersion.allCases.compactMap { version in
            stored.first { isUsable($0) && Self.version(of: $0) == version }
        }
        let keep = Set(current.flatMap { [$0.eventID, $0.legacyEventID] }.compactMap { $0 })
        let dTags = ownDTags()
        // Legacy kind-443 events are never replaced by relays; one is ours to delete only when this
        // device published it (another device of the account publishes its own, issue 29), as a
        // kind-30443 event is only under one of this device's `d` tags.
        let published = Set(stored.flatMap { [$0.eventID, $0.legacyEventID] }.compactMap { $0 })
        let stale = seen.filter { event in
            guard !keep.contains(event.id) else { return false }
            if event.kind == .keyPackage { return published.contains(event.id) }
            return dTags.contains(event.tags.first { $0.name == "d" }?.value ?? "")
        }
        if !stale.isEmpty {
            do {
                var tags = stale.map { Tag(["e", $0.id.hex]) }
                tags += Set(stale.map(\.kind)).sorted().map { Tag(["k", String($0.rawValue)]) }
                let deletion = try UnsignedEvent(
                    pubkey: publicKey, createdAt: now(), kind: .deletion, tags: tags,
                    content: "superseded Marmot key package").signed(with: keys)
                let result = await pool.publish(deletion, to: ownRoute)
                logger.info("asked relays to delete \(stale.count) superseded key package events: \(result.accepted.count) accepted")
            } catch {
                logger.warning("cannot build the key package deletion: \(error)")
            }
        }
        forgetSpentKeyPackages(keeping: Set(current.map(\.ref)))
    }
}
