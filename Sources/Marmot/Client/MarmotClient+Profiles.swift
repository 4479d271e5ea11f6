import Foundation
import Nostr
import NostrClient

/// Profiles (NIP-01 kind 0) of the people we chat with, cached in the store and refreshed from
/// our relays; and our own.
extension MarmotClient {
    /// The cached profile of `person`, without touching the network.
    public func cachedProfile(of person: PublicKey) -> Profile? {
        guard let data = (try? store.profile(of: person)).flatMap({ $0 }) else { return nil }
        return Profile(encoded: data)
    }

    /// Fetches the newest kind-0 of each of `people` from our relays, caches the ones newer than
    /// the cache, and returns the people whose shown name changed.
    @discardableResult
    public func refreshProfiles(of people: [PublicKey]) async -> [PublicKey: Profile] {
        let unique = Array(Set(people)).sorted { $0.hex < $1.hex }
        guard !unique.isEmpty else { return [:] }
        var changed: [PublicKey: Profile] = [:]
        for batch in stride(from: 0, to: unique.count, by: 100).map({ Array(unique[$0..<min($0 + 100, unique.count)]) }) {
            let events = await fetch(Filter(authors: batch, kinds: [.metadata]), on: pool)
            for person in batch {
                let newest = events.filter { $0.pubkey == person }.max { $0.createdAt < $1.createdAt }
                guard let newest, let profile = Profile(event: newest) else { continue }
                let cached = cachedProfile(of: person)
                guard cached.map({ $0.updatedAt < profile.updatedAt }) ?? true else { continue }
                do {
                    try store.saveProfile(profile.encoded(), of: person)
                } catch {
                    logger.warning("cannot cache the profile of \(person.hex): \(error)")
                }
                if cached?.shownName != profile.shownName { changed[person] = profile }
            }
        }
        return changed
    }

    /// Publishes our own name (kind 0) on our relays and caches it; the name is sanitized first, and
    /// every other field of our newest kind 0 on our relays is kept (NIP-01 kind 0 is replaced whole).
    public func publishProfile(name: String) async throws -> Profile {
        guard let clean = Profile.sanitize(name) else { throw MarmotClientError.encoding("that name is empty or looks like a key") }
        let current = await fetch(Filter(authors: [publicKey], kinds: [.metadata]), on: pool, relays: ownRoute)
            .filter { $0.pubkey == publicKey }.max { $0.createdAt < $1.createdAt }
        let event: Event
        do {
            event = try UnsignedEvent(
                pubkey: publicKey, createdAt: max(now(), (current?.createdAt ?? 0) + 1), kind: .metadata, tags: [],
                content: Profile.content(name: clean, existing: current?.content)
            ).signed(with: keys)
        } catch {
            throw MarmotClientError.encoding("profile: \(error)")
        }
        let result = await pool.publish(event, to: ownRoute)
        guard result.isSent else { throw MarmotClientError.notPublished(result) }
        let profile = Profile(name: clean, displayName: clean, updatedAt: event.createdAt)
        try storage { try store.saveProfile(profile.encoded(), of: publicKey) }
        return profile
    }
}
