import Foundation
import MLS
import Nostr
import NostrClient

/// Relays named by others (issue 26): which ones we contact, for which group, and what each learns.
extension MarmotClient {
    /// The most of one group's relays we use (MDK's v2 cap, applied to v1 groups as well).
    public static let maxRelaysPerGroup = 16
    /// The most relays we did not choose that all groups together put in our pool.
    public static let maxForeignRelays = 32
    /// The most relays of a peer's lists (and hints) tried in one lookup or one Welcome delivery.
    public static let maxPeerRelaysPerLookup = 8

    /// The destination policy for URLs from others, given our relays.
    var destinationPolicy: RelayDestinationPolicy { RelayDestinationPolicy(own: relays) }

    /// `urls` from others (what `origin` names them as), allowed by the policy, de-duplicated, at
    /// most `limit`; each refusal is logged.
    func allowedRelays(_ urls: [RelayURL], from origin: @autoclosure () -> String, limit: Int = .max) -> [RelayURL] {
        destinationPolicy.filter(urls, limit: limit) { url, why in
            logger.notice("not contacting \(RelayDestinationPolicy.loggable(url)) (\(origin())): \(why)")
        }
    }

    /// Relays in our pool that we did not choose, each with the active groups that brought it.
    public func groupRelays() -> [GroupRelayPlan.ForeignRelay] { relayPlan.foreign }

    /// The relays (pool keys) group `id`'s events are published to and read from: its usable relays
    /// (`GroupRelayPlan`), else ours.
    func route(_ id: GroupID) -> Set<String> {
        Set(relayPlan.routes[id] ?? relays.map(\.string))
    }

    /// Our own relays as pool keys: where our key packages, profile, relay lists and gift-wrap
    /// subscription go (never to a relay a group chose).
    var ownRoute: Set<String> { Set(relays.map(\.string)) }

    /// Recomputes the plan from our relays and the active groups' relays and makes the pool hold
    /// exactly ours and the plan's: relays no active group names any more (a group left, removed,
    /// disbanded or whose relays changed) leave it. `formerlyOurs` are relays just removed from ours.
    func syncPoolRelays(formerlyOurs: [RelayURL] = []) async {
        let active = sessions.values.filter { $0.stored.status == .active }
            .sorted { a, b in
                a.stored.createdAt != b.stored.createdAt
                    ? a.stored.createdAt < b.stored.createdAt : a.id.bytes.lexicographicallyPrecedes(b.id.bytes)
            }
        let plan = GroupRelayPlan(
            own: relays, groups: active.map { ($0.id, $0.stored.relays.map { options.relayAliases[$0] ?? $0 }) },
            policy: destinationPolicy,
            perGroup: Self.maxRelaysPerGroup, foreignCap: Self.maxForeignRelays)
        for (url, why) in plan.refused.prefix(20) where !loggedRefusals.contains(url.string) {
            loggedRefusals.insert(url.string)
            logger.notice("not contacting group relay \(RelayDestinationPolicy.loggable(url)): \(why)")
        }
        if plan.refused.count > 20 { logger.notice("\(plan.refused.count) group relays refused by the destination policy") }
        if !plan.capped.isEmpty {
            logger.notice("\(plan.capped.count) group relays left out: at most \(Self.maxRelaysPerGroup) per group and \(Self.maxForeignRelays) not ours in all")
        }
        let keep = ownRoute.union(plan.foreignURLs)
        let inPool = Set(await pool.relays)
        for url in foreignInPool.union(formerlyOurs.map(\.string)) where !keep.contains(url) && inPool.contains(url) {
            logger.info("dropping relay \(url): no group names it any more")
            await pool.remove(url)
        }
        for relay in relays where !inPool.contains(relay.string) { await pool.add(relay.string) }
        for foreign in plan.foreign where !inPool.contains(foreign.url.string) {
            logger.info("adding group relay \(foreign.url.string)")
            await pool.add(foreign.url.string)
        }
        foreignInPool = plan.foreignURLs
        let changed = plan != relayPlan
        relayPlan = plan
        if changed { emit(.groupRelaysChanged(plan.foreign)) }
        // Open subscriptions follow: a new relay of ours gets the gift-wrap one, a group whose
        // relays changed or that closed is asked for only where it now is (or nowhere).
        for (id, feed) in feeds { await pool.reroute(id, routes: routes(for: feed.target)) }
    }

    /// The per-relay filters of a subscription to `target`: gift wraps on our relays only, each
    /// group's `h` on that group's relays only (`route(_:)`), so a relay learns only the groups it
    /// serves and never our key.
    func routes(for target: Feed.Target) -> [String: [Filter]] {
        switch target {
        case .giftWraps:
            let filter = Filter(kinds: [.giftWrap], tags: ["p": [publicKey.hex]])
            return Dictionary(uniqueKeysWithValues: ownRoute.map { ($0, [filter]) })
        case .group(let group):
            return routes(for: .groups([group]))
        case .groups(let groups):
            var tags: [String: [String]] = [:]
            for group in groups {
                // A group we left, were removed from or that was disbanded is read no more.
                guard let session = sessions[group], session.stored.status == .active else { continue }
                let h = session.stored.nostrGroupID.hex
                for relay in route(group) { tags[relay, default: []].append(h) }
            }
            return tags.mapValues { [Filter(kinds: [.groupMessage], tags: ["h": $0])] }
        }
    }
}
