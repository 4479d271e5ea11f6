import Foundation
import Logging
import Nostr

/// One relay's status change: its connection, why it last failed and when it last sent anything
/// (issue 17; see `RelayReport`).
public struct RelayStatusChange: Sendable, Hashable {
    public let relay: String
    public let status: RelayConnectionStatus
    /// The relay's most recent failure (kept after it recovers; `report.failingReason` tells
    /// whether it still applies).
    public let lastFailure: RelayFailure?
    /// When the last message arrived from the relay (moves at most once per
    /// `RelayClientConfiguration.activityReportInterval`).
    public let lastMessageAt: Date?
    /// Since when the relay has been down (`RelayReport.downSince`).
    public let downSince: Date?
    /// NIP-42 authentication on its current connection (`RelayReport.auth`).
    public let auth: RelayAuthState

    public init(
        relay: String, status: RelayConnectionStatus, lastFailure: RelayFailure? = nil, lastMessageAt: Date? = nil,
        downSince: Date? = nil, auth: RelayAuthState = .notAsked
    ) {
        self.relay = relay
        self.status = status
        self.lastFailure = lastFailure
        self.lastMessageAt = lastMessageAt
        self.downSince = downSince
        self.auth = auth
    }

    public init(relay: String, report: RelayReport) {
        self.init(
            relay: relay, status: report.status, lastFailure: report.lastFailure, lastMessageAt: report.lastMessageAt,
            downSince: report.downSince, auth: report.auth)
    }

    public var report: RelayReport {
        RelayReport(status: status, lastFailure: lastFailure, lastMessageAt: lastMessageAt, downSince: downSince, auth: auth)
    }
}

/// What a pool subscription yields. Events are de-duplicated by id across relays.
public enum PoolSubscriptionMessage: Sendable, Hashable {
    case event(Event, relay: String)
    case endOfStoredEvents(relay: String)
    /// Every relay of the subscription has sent EOSE (or closed it), or is known not to answer
    /// soon (`CatchUpTracker`: its connection failed, it did not upgrade in time, or it stayed
    /// silent while another answered); reported once. Relays let go still deliver later events.
    case caughtUp
    case closed(relay: String, reason: String)
}

/// A pool subscription's messages.
///
/// What is delivered and not yet taken is bounded (`RelayClientConfiguration.subscriptionBuffer`):
/// past it the pool stops taking events from the relays' subscriptions, which in turn stop reading
/// their relays, until the consumer takes more (`StreamBudget`; nothing is dropped).
public struct PoolSubscription: AsyncSequence, Sendable {
    public typealias Element = PoolSubscriptionMessage
    public let id: SubscriptionID
    let stream: AsyncStream<PoolSubscriptionMessage>
    let budget: StreamBudget

    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncStream<PoolSubscriptionMessage>.AsyncIterator
        let budget: StreamBudget

        public mutating func next() async -> PoolSubscriptionMessage? {
            guard let message = await base.next() else { return nil }
            budget.taken(StreamBudget.size(of: message))
            return message
        }
    }

    public func makeAsyncIterator() -> Iterator { Iterator(base: stream.makeAsyncIterator(), budget: budget) }
}

/// Several relays used together: publish to all, subscribe on all, observe each one's status.
public actor RelayPool {
    private struct Member {
        let client: RelayClient
        /// Forwards the client's status changes; started on first use of the pool.
        var statusTask: Task<Void, Never>?
        var report = RelayReport(status: .disconnected)
    }

    private struct ActiveSubscription {
        let token: Int
        let filters: [Filter]
        /// Per relay filters of a routed subscription (only these relays get it); nil: every relay
        /// gets `filters`.
        var routes: [String: [Filter]]?
        let continuation: AsyncStream<PoolSubscriptionMessage>.Continuation
        /// What the consumer has not taken yet (back-pressure on the forwarders).
        let budget: StreamBudget
        var forwarders: [String: Task<Void, Never>] = [:]
        var seen: BoundedIDSet
        /// Which relays still hold the catch-up (`caughtUp`), and its timers.
        var catchUp: CatchUpTracker
        var catchUpTimers: [CatchUpTracker.Timer: Task<Void, Never>] = [:]
        /// When the subscription started (the first answer's delay scales the others' grace).
        let started = ContinuousClock.now

        /// Whether the subscription is sent to `url`.
        func targets(_ url: String) -> Bool { routes.map { $0[url] != nil } ?? true }
    }

    public nonisolated let configuration: RelayClientConfiguration
    /// Which key answers each relay's NIP-42 challenges (nil: no relay of the pool authenticates).
    public nonisolated let authPolicy: RelayAuthPolicy?
    private let logger: Logger
    private var members: [String: Member] = [:]
    private var order: [String] = []
    private var subscriptions: [SubscriptionID: ActiveSubscription] = [:]
    private var watchers: [Int: AsyncStream<RelayStatusChange>.Continuation] = [:]
    private var nextWatcher = 0
    private var wantsConnection = false
    /// Publishes whose caller has its answer (the first acceptance) and whose other relays have not
    /// all answered yet.
    private var publishing: [UInt64: Task<Void, Never>] = [:]
    private var nextPublish: UInt64 = 0

    /// A pool of `relays`; `authPolicy` picks, per relay, the key that answers its NIP-42 challenges.
    public init(relays: [String] = [], configuration: RelayClientConfiguration = RelayClientConfiguration(),
                logger: Logger = Logger(label: "NostrClient.RelayPool"), authPolicy: RelayAuthPolicy? = nil) {
        self.configuration = configuration
        self.logger = logger
        self.authPolicy = authPolicy
        for url in relays where members[url] == nil {
            members[url] = Member(client: Self.client(url, configuration, authPolicy, logger))
            order.append(url)
        }
    }

    private static func client(
        _ url: String, _ configuration: RelayClientConfiguration, _ authPolicy: RelayAuthPolicy?, _ logger: Logger
    ) -> RelayClient {
        RelayClient(url: url, configuration: configuration, authenticator: authPolicy?(url), logger: logger)
    }

    deinit {
        for member in members.values { member.statusTask?.cancel() }
        for subscription in subscriptions.values {
            subscription.forwarders.values.forEach { $0.cancel() }
            subscription.catchUpTimers.values.forEach { $0.cancel() }
            subscription.continuation.finish()
            subscription.budget.close()
        }
    }

    /// Relay URLs in the order they were added.
    public var relays: [String] { order }

    /// The client of one relay.
    public func client(for url: String) -> RelayClient? { members[url]?.client }

    /// Current status of every relay.
    public var statuses: [String: RelayConnectionStatus] {
        watchStatuses()
        return members.mapValues(\.report.status)
    }

    /// Current report (status, last failure, last activity) of every relay.
    public var reports: [String: RelayReport] {
        watchStatuses()
        return members.mapValues(\.report)
    }

    /// Changes of any relay's report (its status, a failure, or new activity at most once per
    /// `configuration.activityReportInterval`), starting with one entry per relay for the current state.
    public func statusUpdates() -> AsyncStream<RelayStatusChange> {
        watchStatuses()
        let (stream, continuation) = AsyncStream.makeStream(of: RelayStatusChange.self, bufferingPolicy: .bufferingNewest(256))
        let key = nextWatcher
        nextWatcher += 1
        watchers[key] = continuation
        for url in order { if let member = members[url] { continuation.yield(.init(relay: url, report: member.report)) } }
        continuation.onTermination = { [weak self] _ in Task { await self?.removeWatcher(key) } }
        return stream
    }

    /// Connects every relay (and relays added later).
    public func connect() async {
        watchStatuses()
        wantsConnection = true
        for url in order { await members[url]?.client.connect() }
    }

    /// Disconnects every relay.
    public func disconnect() async {
        wantsConnection = false
        for url in order { await members[url]?.client.disconnect() }
    }

    /// Adds a relay; it joins the live pool subscriptions and connects if the pool is connected.
    public func add(_ url: String) async {
        guard members[url] == nil else { return }
        let member = Member(client: Self.client(url, configuration, authPolicy, logger))
        members[url] = member
        order.append(url)
        watchStatuses()
        for id in subscriptions.keys.sorted(by: { $0.rawValue < $1.rawValue }) where subscriptions[id]?.targets(url) == true {
            await attach(id, to: url, client: member.client)
        }
        if wantsConnection { await member.client.connect() }
    }

    /// Removes a relay (disconnecting it).
    public func remove(_ url: String) async {
        guard let member = members.removeValue(forKey: url) else { return }
        order.removeAll { $0 == url }
        member.statusTask?.cancel()
        for id in Array(subscriptions.keys) {
            subscriptions[id]?.forwarders.removeValue(forKey: url)?.cancel()
            await member.client.unsubscribe(id)
            track(id, .removed(url))
        }
        await member.client.disconnect()
    }

    /// When a publish returns.
    public enum PublishWait: Sendable, Equatable {
        /// At the first `OK true` (or once every relay answered when none accepts).
        case firstAcceptance
        /// At the first `OK true` of one of `relays` (those the event is for: an invitee's inbox
        /// relays), or at any once all of those among the targets answered; as `firstAcceptance`
        /// when none of them is a target.
        case acceptance(among: Set<String>)
        /// Once every relay answered or timed out (each relay's verdict is in the result).
        case everyRelay

        /// Whether the verdicts in so far answer the publish, of `targets`.
        func isMet(by results: [String: PublishResult], targets: [String]) -> Bool {
            let accepted = results.contains { $0.value.isAccepted }
            switch self {
            case .firstAcceptance: return accepted
            case .everyRelay: return false
            case .acceptance(let relays):
                let wanted = targets.filter { relays.contains($0) }
                guard !wanted.isEmpty else { return accepted }
                if wanted.contains(where: { results[$0]?.isAccepted == true }) { return true }
                return accepted && wanted.allSatisfy { results[$0] != nil }
            }
        }
    }

    /// Publishes to every relay at once; returns at the first acceptance (see `publish(_:to:until:)`).
    public func publish(_ event: Event, until wait: PublishWait = .firstAcceptance) async -> PoolPublishResult {
        await publish(event, to: nil, until: wait)
    }

    /// Publishes to the pool's relays among `relays` (every relay with nil) at once, and returns as
    /// soon as one relay accepted the event (`.firstAcceptance`), or once every relay answered when
    /// none did or `.everyRelay` is asked; a relay not in the pool is left out (so is absent from
    /// the result).
    ///
    /// A dead relay must not hold a send up (issue 50): "sent" is one relay's `OK true`. The relays
    /// that have not answered yet are `PoolPublishResult.pending`; their publishes go on in the
    /// background (a relay that is down gets the event when it reconnects within the publish
    /// timeout), and `settled()` waits for them.
    public func publish(
        _ event: Event, to relays: Set<String>?, until wait: PublishWait = .firstAcceptance
    ) async -> PoolPublishResult {
        let targets = order.filter { relays?.contains($0) ?? true }.compactMap { url in members[url].map { (url, $0.client) } }
        guard !targets.isEmpty else { return PoolPublishResult(eventID: event.id, results: [:]) }
        let (answers, sink) = AsyncStream.makeStream(of: (String, PublishResult).self)
        let logger = self.logger
        let id = nextPublish
        nextPublish += 1
        publishing[id] = Task { [weak self] in
            var results: [String: PublishResult] = [:]
            await withTaskGroup(of: (String, PublishResult).self) { group in
                for (url, client) in targets {
                    group.addTask { (url, await client.publish(event)) }
                }
                for await (url, result) in group {
                    results[url] = result
                    sink.yield((url, result))
                }
            }
            sink.finish()
            let outcome = PoolPublishResult(eventID: event.id, results: results)
            if !outcome.failed.isEmpty {
                logger.info("publish \(event.id.hex): accepted by \(outcome.accepted.count)/\(results.count)")
            }
            await self?.publishDone(id)
        }
        var results: [String: PublishResult] = [:]
        for await (url, result) in answers {
            results[url] = result
            if wait.isMet(by: results, targets: targets.map(\.0)) { break }
        }
        let pending = targets.map(\.0).filter { results[$0] == nil }
        return PoolPublishResult(eventID: event.id, results: results, pending: pending)
    }

    /// Waits until every publish still going on in the background has its relays' answers.
    public func settled() async {
        while let task = publishing.values.first { await task.value }
    }

    private func publishDone(_ id: UInt64) { publishing[id] = nil }

    /// Subscribes on every relay; each event is delivered once, whichever relay sends it first. A
    /// `lookup` waits longer for slow relays before `caughtUp` (`RelayClientConfiguration.lookupGrace`).
    public func subscribe(_ filters: [Filter], id: SubscriptionID = .random(), lookup: Bool = false) async -> PoolSubscription {
        await startSubscription(id, filters: filters, routes: nil, lookup: lookup)
    }

    /// Subscribes each relay of `routes` with its own filters, and no other relay: a relay is told
    /// only what it serves (a relay chosen by one group never sees another group's `h` tag). A relay
    /// of `routes` that joins the pool later is subscribed then; `caughtUp` comes once every routed
    /// relay in the pool has sent EOSE (at once when none is in the pool).
    public func subscribe(routes: [String: [Filter]], id: SubscriptionID = .random(), lookup: Bool = false) async -> PoolSubscription {
        await startSubscription(id, filters: [], routes: routes.filter { !$0.value.isEmpty }, lookup: lookup)
    }

    private func startSubscription(
        _ id: SubscriptionID, filters: [Filter], routes: [String: [Filter]]?, lookup: Bool
    ) async -> PoolSubscription {
        if let old = subscriptions[id] { await end(id, old) }
        let (stream, continuation) = AsyncStream.makeStream(of: PoolSubscriptionMessage.self)
        let token = nextWatcher
        nextWatcher += 1
        let budget = StreamBudget(limits: configuration.subscriptionBuffer)
        subscriptions[id] = ActiveSubscription(
            token: token, filters: filters, routes: routes, continuation: continuation, budget: budget,
            seen: BoundedIDSet(capacity: configuration.deduplicationCapacity),
            catchUp: lookup
                ? CatchUpTracker(connectBound: configuration.lookupConnectBound, grace: configuration.lookupGrace)
                : CatchUpTracker(connectBound: configuration.catchUpConnectBound, grace: configuration.catchUpGrace))
        continuation.onTermination = { [weak self] _ in
            budget.close()
            Task { await self?.consumerGone(id, token: token) }
        }
        for url in order where subscriptions[id]?.targets(url) == true {
            if let client = members[url]?.client { await attach(id, to: url, client: client) }
        }
        if let actions = subscriptions[id]?.catchUp.start() { perform(actions, for: id) }
        return PoolSubscription(id: id, stream: stream, budget: budget)
    }

    /// Changes the relays and filters of a routed subscription (`subscribe(routes:id:)`): a relay
    /// left out is sent CLOSE, one whose filters changed gets the new REQ under the same id, a new
    /// one is subscribed; relays whose filters are unchanged are left alone. Nothing for an
    /// unrouted or unknown subscription.
    public func reroute(_ id: SubscriptionID, routes: [String: [Filter]]) async {
        guard let old = subscriptions[id]?.routes else { return }
        let new = routes.filter { !$0.value.isEmpty }
        guard new != old else { return }
        subscriptions[id]?.routes = new
        for url in order where old[url] != new[url] {
            subscriptions[id]?.forwarders.removeValue(forKey: url)?.cancel()
            guard let client = members[url]?.client else { continue }
            await client.unsubscribe(id)
            track(id, .removed(url))
            if new[url] != nil { await attach(id, to: url, client: client) }
        }
    }

    /// Ends a pool subscription on every relay.
    public func unsubscribe(_ id: SubscriptionID) async {
        guard let subscription = subscriptions.removeValue(forKey: id) else { return }
        await end(id, subscription)
    }

    // MARK: Internals

    /// Starts forwarding status changes of relays not yet watched.
    private func watchStatuses() {
        for (url, member) in members where member.statusTask == nil {
            let client = member.client
            members[url]?.statusTask = Task { [weak self] in
                for await report in await client.reportUpdates() {
                    await self?.reportChanged(url, report)
                }
            }
        }
    }

    private func reportChanged(_ url: String, _ report: RelayReport) {
        guard members[url] != nil, members[url]?.report != report else { return }
        let before = members[url].map { Self.connection($0.report) }
        members[url]?.report = report
        for watcher in watchers.values { watcher.yield(.init(relay: url, report: report)) }
        let connection = Self.connection(report)
        guard connection != before else { return }
        for id in subscriptions.keys.sorted(by: { $0.rawValue < $1.rawValue }) where subscriptions[id]?.forwarders[url] != nil {
            track(id, .connection(url, connection))
        }
    }

    /// A relay's report as the catch-up sees it: a relay that is retrying after a failure is
    /// "failed" (it will not answer soon), one not connected yet is "connecting".
    static func connection(_ report: RelayReport) -> CatchUpTracker.Connection {
        switch report.status {
        case .connected: .connected
        case .disconnected: .connecting
        case .connecting(let attempt): attempt == 0 ? .connecting : .failed
        case .waitingToReconnect: .failed
        }
    }

    private func attach(_ id: SubscriptionID, to url: String, client: RelayClient) async {
        guard let subscription = subscriptions[id] else { return }
        let filters = subscription.routes.map { $0[url] ?? [] } ?? subscription.filters
        guard !filters.isEmpty else { return }
        let relaySubscription = await client.subscribe(filters, id: id)
        let budget = subscription.budget
        let forwarder = Task { [weak self] in
            for await message in relaySubscription {
                await self?.forward(id, relay: url, message)
                // The relay's next message once the consumer has room (its stream then fills, and
                // the connection stops reading that relay).
                if budget.isFull { await budget.waitForRoom() }
            }
        }
        subscriptions[id]?.forwarders[url] = forwarder
        track(id, .added(url, members[url].map { Self.connection($0.report) } ?? .connecting))
    }

    /// Hands one relay's message on. The subscription is changed in place in `subscriptions`,
    /// never through a copy: its de-duplication set holds up to `deduplicationCapacity` ids, and
    /// a copy alive while it is changed would copy the set for every event.
    private func forward(_ id: SubscriptionID, relay: String, _ message: SubscriptionMessage) {
        guard let started = subscriptions[id]?.started else { return }
        switch message {
        case .event(let event):
            // A relay still sending stored events is not mute: its grace starts again.
            track(id, .activity(relay))
            guard subscriptions[id]?.seen.insert(event.id) == true else { return }
            yield(.event(event, relay: relay), to: id)
        case .endOfStoredEvents:
            yield(.endOfStoredEvents(relay: relay), to: id)
            track(id, .answered(relay, after: started.duration(to: .now)))
        case .closed(let reason):
            yield(.closed(relay: relay, reason: reason), to: id)
            track(id, .answered(relay, after: started.duration(to: .now)))
        }
    }

    /// Yields `message` to subscription `id`'s consumer, counted against its budget.
    private func yield(_ message: PoolSubscriptionMessage, to id: SubscriptionID) {
        // Only these two fields: a copy of the subscription would copy its de-duplication set.
        guard let continuation = subscriptions[id]?.continuation, let budget = subscriptions[id]?.budget,
              case .enqueued = continuation.yield(message) else { return }
        budget.added(StreamBudget.size(of: message))
    }

    /// Feeds one input to the subscription's catch-up tracker (in place; once caught up it
    /// changes nothing) and performs what it asks.
    private func track(_ id: SubscriptionID, _ input: CatchUpTracker.Input) {
        guard let actions = subscriptions[id]?.catchUp.handle(input), !actions.isEmpty else { return }
        perform(actions, for: id)
    }

    private func perform(_ actions: [CatchUpTracker.Action], for id: SubscriptionID) {
        for action in actions {
            switch action {
            case .scheduleTimer(let timer, let token, let delay):
                subscriptions[id]?.catchUpTimers[timer]?.cancel()
                subscriptions[id]?.catchUpTimers[timer] = Task { [weak self] in
                    try? await Task.sleep(for: delay)
                    guard !Task.isCancelled else { return }
                    await self?.track(id, .timerFired(timer, token: token))
                }
            case .cancelTimer(let timer):
                subscriptions[id]?.catchUpTimers.removeValue(forKey: timer)?.cancel()
            case .released(let relay, let why):
                logger.info("subscription \(id): not waiting for \(relay) to catch up (\(why)); it keeps syncing")
            case .caughtUp:
                yield(.caughtUp, to: id)
            }
        }
    }

    private func end(_ id: SubscriptionID, _ subscription: ActiveSubscription) async {
        for task in subscription.forwarders.values { task.cancel() }
        for task in subscription.catchUpTimers.values { task.cancel() }
        for url in order where subscription.targets(url) { await members[url]?.client.unsubscribe(id) }
        subscription.continuation.finish()
        subscription.budget.close()
    }

    private func removeWatcher(_ key: Int) { watchers[key] = nil }

    /// The consumer stopped iterating: end the subscription unless it was replaced meanwhile.
    private func consumerGone(_ id: SubscriptionID, token: Int) async {
        guard subscriptions[id]?.token == token else { return }
        await unsubscribe(id)
    }
}
