import Foundation
import MLS
import Nostr
import NostrClient

/// Relay routing on the open network (NIP-65, NIP-17 inboxes, MIP-00 key package relays): peers
/// whose relays do not overlap ours still find each other.
extension MarmotClient {
    /// Publishes our relay lists (kinds 10002, 10050, 10051) naming `relays`, on our relays.
    @discardableResult
    public func publishRelayLists() async -> Bool {
        var accepted = false
        for unsigned in RelayLists.announcements(of: relays, author: publicKey, createdAt: now()) {
            do {
                accepted = await pool.publish(try unsigned.signed(with: keys), to: ownRoute).isSent || accepted
            } catch {
                logger.warning("relay list kind \(unsigned.kind) not signed: \(error)")
            }
        }
        return accepted
    }

    /// Replaces our relays: the pool gains the new ones and drops the removed ones (unless a group we
    /// are in uses them: `syncPoolRelays`), and our relay lists are published again naming the new set.
    public func setRelays(_ new: [RelayURL]) async throws {
        var unique: [RelayURL] = []
        for relay in new where !unique.contains(relay) { unique.append(relay) }
        guard !unique.isEmpty else { throw MarmotClientError.noRelays }
        let removed = relays.filter { !unique.contains($0) }
        relays = unique
        await syncPoolRelays(formerlyOurs: removed)
        logger.info("relays now \(unique.map(\.string))")
        await publishRelayLists()
    }

    /// A peer's relay lists, read from our relays (and `extra` relays, e.g. an nprofile's hints, at
    /// most `maxPeerRelaysPerLookup` that the destination policy allows). Each list keeps only the
    /// relays the policy allows, at most `maxRelaysPerGroup` (a list naming 500 relays costs nothing).
    public func relayLists(of peer: PublicKey, extra: [RelayURL] = []) async -> RelayLists {
        let filter = Filter(authors: [peer], kinds: [.relayList, .dmRelays, .keyPackageRelays])
        var events = await fetch(filter, on: pool)
        let hints = allowedRelays(extra, from: "nprofile hint", limit: Self.maxPeerRelaysPerLookup)
            .map(\.string).filter { !ownRoute.contains($0) }
        if !hints.isEmpty {
            events += await withTemporaryPool(hints) { await self.fetch(filter, on: $0) }
        }
        let found = RelayLists(events: events, author: peer)
        let origin = "relay list of \(peer.hex.prefix(16))"
        let lists = RelayLists(
            read: allowedRelays(found.read, from: origin, limit: Self.maxRelaysPerGroup),
            write: allowedRelays(found.write, from: origin, limit: Self.maxRelaysPerGroup),
            inbox: allowedRelays(found.inbox, from: origin, limit: Self.maxRelaysPerGroup),
            keyPackages: allowedRelays(found.keyPackages, from: origin, limit: Self.maxRelaysPerGroup))
        peerRelayLists[peer] = lists
        return lists
    }

    /// Key package events of `peer`: from our relays, else from the relays the peer's lists name
    /// (read from our relays and `hints`) and from `hints` themselves.
    /// At most `maxPeerRelaysPerLookup` relays are tried, each allowed by the destination policy, for
    /// at most `keyPackageFetchTimeout`.
    func keyPackageEvents(of peer: PublicKey, hints: [RelayURL] = []) async -> [Event] {
        let filter = Filter(authors: [peer], kinds: [.addressableKeyPackage, .keyPackage])
        let ours = await fetch(filter, on: pool)
        if !ours.isEmpty { return ours }
        let lists = await relayLists(of: peer, extra: hints)
        let own = ownRoute
        let candidates = allowedRelays(
            (lists.keyPackageLookup + hints).filter { !own.contains($0.string) }, from: "key package relays of \(peer.hex.prefix(16))",
            limit: Self.maxPeerRelaysPerLookup)
        let elsewhere = candidates.map(\.string)
        guard !elsewhere.isEmpty else { return [] }
        logger.info("looking for \(peer.hex)'s key package on \(elsewhere.count) relays of their lists")
        return await withTemporaryPool(elsewhere) { await self.fetch(filter, on: $0) }
    }

    /// Publishes a gift-wrapped Welcome on our relays and the group's (`group`) and on the invitee's
    /// inbox relays (10050) not among them: at most `maxPeerRelaysPerLookup`, each allowed by the
    /// destination policy (the lists were filtered when read).
    func publishWelcome(_ wrap: Event, to invitee: PublicKey, group: GroupID) async -> PoolPublishResult {
        let targets = ownRoute.union(route(group))
        let lists: RelayLists
        if let known = peerRelayLists[invitee] { lists = known } else { lists = await relayLists(of: invitee) }
        // Delivered once a relay that is there for the invitee took it: one of their inbox relays,
        // or, when they publish none, a group relay that is not ours (the group names the relays
        // it found them on); else any.
        let inboxes = Set(lists.welcomeDelivery.map(\.string))
        let forInvitee = inboxes.isEmpty ? route(group).subtracting(ownRoute) : inboxes
        let ours = await pool.publish(wrap, to: targets, until: .acceptance(among: forInvitee))
        let inbox = Array(lists.welcomeDelivery.map(\.string).filter { !targets.contains($0) }.prefix(Self.maxPeerRelaysPerLookup))
        guard !inbox.isEmpty else { return ours }
        let theirs = await withTemporaryPool(inbox) { await $0.publish(wrap) }
        logger.info("welcome delivered to \(theirs.accepted.count) of \(inbox.count) inbox relays of \(invitee.hex)")
        return PoolPublishResult(
            eventID: wrap.id, results: ours.results.merging(theirs.results) { first, _ in first },
            pending: ours.pending + theirs.pending)  // `inbox` leaves out `targets`: no relay is in both
    }

    // MARK: Relays of a new group

    /// The most relays a new group names in its 0xF2EE `relays`: each is a connection every member
    /// keeps open and a copy of every group event, so the union of everyone's relays is bounded.
    static let maxGroupRelays = 8

    /// The relays a new group names (NostrGroupData `relays`, MIP-01), so an invitee whose relays do
    /// not overlap ours can still read and write the group.
    ///
    /// Rule: our relays, then each invitee's relays (`inviteeRelays(_:)`), de-duplicated, at most
    /// `cap`. When the cap bites, our first relay is kept, then each invitee none of whose relays is
    /// chosen yet gets its first one, then the rest are filled in candidate order; the result keeps
    /// that order (ours first, then the invitees' in invitation order). An invitee left without a
    /// relay of its own (more disjoint invitees than the cap) must follow the group's relays, as
    /// MIP-01 asks of every member.
    ///
    /// MDK 0.8.0 has no such rule: `create_group` stores whatever `NostrGroupConfigData.relays` its
    /// caller passes (as a sorted set) and puts the group's relays in every Welcome rumor's `relays`
    /// tag; choosing them is left to the app. Ours is that choice; the wire format is the same, and
    /// an MDK member accepts any relay list (it parses each URL).
    static func newGroupRelays(ours: [RelayURL], invitees: [[RelayURL]], cap: Int = maxGroupRelays) -> [RelayURL] {
        var candidates: [RelayURL] = []
        var seen: Set<String> = []
        for relay in ours + invitees.flatMap({ $0 }) where seen.insert(sameRelayKey(relay)).inserted { candidates.append(relay) }
        guard candidates.count > cap else { return candidates }
        var chosen = Set(ours.prefix(1).map(sameRelayKey))
        for theirs in invitees where chosen.count < cap && !theirs.contains(where: { chosen.contains(sameRelayKey($0)) }) {
            if let first = theirs.first { chosen.insert(sameRelayKey(first)) }
        }
        for relay in candidates where chosen.count < cap { chosen.insert(sameRelayKey(relay)) }
        return candidates.filter { chosen.contains(sameRelayKey($0)) }
    }

    /// `relay` without a bare trailing `/`: `ws://h:1` and `ws://h:1/` are one relay (MDK prints a
    /// relay URL as it was given, so both forms occur in tags and lists).
    static func sameRelayKey(_ relay: RelayURL) -> String { RelayDestinationPolicy.sameRelayKey(relay) }

    /// Where an invitee reads and writes: the relays of its NIP-65 list (10002, read and write), else
    /// the `relays` tag of the KeyPackage we invite it with (MIP-00). The lists come from the cache
    /// `fetchKeyPackage` may just have filled, else from our relays. Without any list, an nprofile's
    /// relay `hints` are added to the tag's relays.
    func inviteeRelays(_ package: PeerKeyPackage, hints: [RelayURL] = []) async -> [RelayURL] {
        let lists: RelayLists
        if let known = peerRelayLists[package.author] { lists = known } else { lists = await relayLists(of: package.author) }
        let listed = lists.allListed
        guard listed.isEmpty else { return listed }
        return allowedRelays(package.relays + hints, from: "key package relays of \(package.author.hex.prefix(16))",
                             limit: Self.maxPeerRelaysPerLookup)
    }

    /// The relays of a new group inviting `packages` (`newGroupRelays(ours:invitees:cap:)`); `hints`
    /// (an nprofile's relays) stand for an invitee that publishes no relay list.
    func newGroupRelays(inviting packages: [PeerKeyPackage], hints: [RelayURL] = []) async -> [RelayURL] {
        var theirs: [[RelayURL]] = []
        for package in packages { theirs.append(await inviteeRelays(package, hints: hints)) }
        let chosen = Self.newGroupRelays(ours: relays, invitees: theirs)
        if chosen != relays { logger.info("new group relays \(chosen.map(\.string)) (ours plus the invitees')") }
        return chosen
    }

    // MARK: Helpers

    /// Stored events matching `filter` on `pool` (on its `relays` only, when given), until every relay
    /// sent EOSE or the fetch timeout. A `lookup` (someone's key packages, relay lists, profile: what
    /// one relay may hold alone) waits longer for a slow relay once another answered.
    func fetch(_ filter: Filter, on pool: RelayPool, relays: Set<String>? = nil, lookup: Bool = true) async -> [Event] {
        let subscription: PoolSubscription
        if let relays {
            subscription = await pool.subscribe(
                routes: Dictionary(uniqueKeysWithValues: relays.map { ($0, [filter]) }), lookup: lookup)
        } else {
            subscription = await pool.subscribe([filter], lookup: lookup)
        }
        let timeout = options.keyPackageFetchTimeout
        let timer = Task {
            try? await Task.sleep(for: timeout)
            guard !Task.isCancelled else { return }
            await pool.unsubscribe(subscription.id)
        }
        var found: [EventID: Event] = [:]
        for await message in subscription {
            if case .event(let event, _) = message { found[event.id] = event }
            if message == .caughtUp { break }
        }
        timer.cancel()
        await pool.unsubscribe(subscription.id)
        return Array(found.values)
    }

    /// Runs `body` with a pool of `urls`, connected for the call only; NIP-42 answers follow the
    /// pool's policy (these are others' relays: a throw-away key, `relayAuthPolicy`).
    func withTemporaryPool<T: Sendable>(_ urls: [String], _ body: @Sendable (RelayPool) async -> T) async -> T {
        let temporary = RelayPool(relays: urls, configuration: pool.configuration, logger: logger, authPolicy: pool.authPolicy)
        await temporary.connect()
        let result = await body(temporary)
        // A publish returns at the first acceptance; the other relays still get it, then it closes.
        Task { await temporary.settled(); await temporary.disconnect() }
        return result
    }
}
