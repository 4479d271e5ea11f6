import Foundation
import Logging
import Nostr

/// The messages of one subscription on one relay, in order, until it is closed.
///
/// What is delivered and not yet taken is bounded (`RelayClientConfiguration.subscriptionBuffer`):
/// past it the connection stops reading the relay until the consumer takes more (`StreamBudget`).
public struct RelaySubscription: AsyncSequence, Sendable {
    public typealias Element = SubscriptionMessage
    public let id: SubscriptionID
    let stream: AsyncStream<SubscriptionMessage>
    let budget: StreamBudget

    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncStream<SubscriptionMessage>.AsyncIterator
        let budget: StreamBudget

        public mutating func next() async -> SubscriptionMessage? {
            guard let message = await base.next() else { return nil }
            budget.taken(StreamBudget.size(of: message))
            return message
        }
    }

    public func makeAsyncIterator() -> Iterator { Iterator(base: stream.makeAsyncIterator(), budget: budget) }
}

/// What a relay's status line needs (issue 17): its connection, why it last failed, and when it
/// last sent anything.
public struct RelayReport: Sendable, Hashable {
    public var status: RelayConnectionStatus
    /// The most recent failure, kept after the relay recovers (the status says whether it still
    /// matters); a refusal (`OK false`, `CLOSED`) does not change the status.
    public var lastFailure: RelayFailure?
    /// When the last message (of any kind) arrived from the relay; watchers see it move at most once
    /// per `RelayClientConfiguration.activityReportInterval`.
    public var lastMessageAt: Date?
    /// Since when the relay has been down: the first failed attempt since it was last connected (or
    /// since the client started); nil while connected or not failing (issue 50: the relays screen
    /// says which relays are down and since when).
    public var downSince: Date?
    /// NIP-42 authentication on the current connection (issue 44: shown with the relay).
    public var auth: RelayAuthState

    public init(
        status: RelayConnectionStatus, lastFailure: RelayFailure? = nil, lastMessageAt: Date? = nil, downSince: Date? = nil,
        auth: RelayAuthState = .notAsked
    ) {
        self.status = status
        self.lastFailure = lastFailure
        self.lastMessageAt = lastMessageAt
        self.downSince = downSince
        self.auth = auth
    }

    /// The connection is down and its last attempt or connection failed: the relay is "failing"
    /// (nil while connected, connecting for the first time, or disconnected on purpose).
    public var failingReason: RelayFailure? {
        switch status {
        case .connected, .disconnected: return nil
        case .connecting(let attempt) where attempt == 0: return nil
        case .connecting, .waitingToReconnect:
            guard let lastFailure, lastFailure.isConnectionFailure else { return nil }
            return lastFailure
        }
    }
}

/// A connection to one relay: publish with `OK` tracking, subscriptions that survive reconnects,
/// automatic reconnect with backoff, and an observable status.
///
/// The protocol decisions are made by `RelayConnectionMachine`; this actor performs its actions with
/// a WebSocket (`ws://` or `wss://`) and timers, and hands results to the callers. NIP-42 challenges
/// are answered with `authenticator` (none: never authenticate).
public actor RelayClient {
    public nonisolated let url: String
    public nonisolated let configuration: RelayClientConfiguration
    private let authenticator: RelayAuthenticator?
    private var machine: RelayConnectionMachine
    private let logger: Logger
    private var transports: [UInt64: WebSocketTransport] = [:]
    private var timers: [RelayTimer: Task<Void, Never>] = [:]
    private var subscribers: [SubscriptionID: Subscriber] = [:]
    /// One subscription's consumer: its stream and what it has not taken yet.
    private struct Subscriber {
        let token: Int
        let continuation: AsyncStream<SubscriptionMessage>.Continuation
        let budget: StreamBudget

        /// Ends the stream; a connection waiting for room goes on.
        func finish() {
            continuation.finish()
            budget.close()
        }
    }
    private var publishWaiters: [EventID: [CheckedContinuation<PublishResult, Never>]] = [:]
    private var statusWatchers: [Int: AsyncStream<RelayConnectionStatus>.Continuation] = [:]
    private var reportWatchers: [Int: AsyncStream<RelayReport>.Continuation] = [:]
    private var nextWatcher = 0
    private var currentReport = RelayReport(status: .disconnected)
    /// When `lastMessageAt` was last reported to watchers (the throttle of activity reports).
    private var activityReportedAt: Date?
    private let activityInterval: TimeInterval

    public init(url: String, configuration: RelayClientConfiguration = RelayClientConfiguration(),
                authenticator: RelayAuthenticator? = nil, logger: Logger = Logger(label: "NostrClient")) {
        self.url = url
        self.configuration = configuration
        self.authenticator = authenticator
        self.machine = RelayConnectionMachine(
            configuration: configuration, seed: UInt64.random(in: 1...UInt64.max), authenticates: authenticator != nil)
        var logger = logger
        logger[metadataKey: "relay"] = "\(url)"
        self.logger = logger
        let interval = configuration.activityReportInterval.components
        self.activityInterval = Double(interval.seconds) + Double(interval.attoseconds) / 1e18
    }

    deinit {
        for transport in transports.values { transport.close() }
        for timer in timers.values { timer.cancel() }
        for subscriber in subscribers.values { subscriber.finish() }
        for continuation in statusWatchers.values { continuation.finish() }
        for continuation in reportWatchers.values { continuation.finish() }
    }

    /// The current connection status.
    public var status: RelayConnectionStatus { machine.currentStatus }

    /// Status changes, starting with the current status.
    public func statusUpdates() -> AsyncStream<RelayConnectionStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: RelayConnectionStatus.self, bufferingPolicy: .bufferingNewest(64))
        let key = nextWatcher
        nextWatcher += 1
        statusWatchers[key] = continuation
        continuation.yield(machine.currentStatus)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeWatcher(key) }
        }
        return stream
    }

    /// The connection, last failure and last activity, as last reported.
    public var report: RelayReport { currentReport }

    /// Report changes, starting with the current report: every status change and failure, and new
    /// activity at most once per `configuration.activityReportInterval`.
    public func reportUpdates() -> AsyncStream<RelayReport> {
        let (stream, continuation) = AsyncStream.makeStream(of: RelayReport.self, bufferingPolicy: .bufferingNewest(64))
        let key = nextWatcher
        nextWatcher += 1
        reportWatchers[key] = continuation
        continuation.yield(currentReport)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeReportWatcher(key) }
        }
        return stream
    }

    /// Starts connecting (and keeps reconnecting until `disconnect()`).
    public func connect() {
        apply(.connectRequested)
    }

    /// Closes the connection and stops reconnecting; pending publishes end as `notConnected`.
    /// Subscriptions stay registered and are sent again on the next `connect()`.
    public func disconnect() {
        apply(.disconnectRequested)
    }

    /// Publishes `event` and waits for the relay's verdict, at most `configuration.publishTimeout`
    /// (a publish made while reconnecting waits for the connection within that time).
    public func publish(_ event: Event) async -> PublishResult {
        await withCheckedContinuation { continuation in
            publishWaiters[event.id, default: []].append(continuation)
            apply(.publishRequested(event))
        }
    }

    /// Subscribes with `filters`; events arrive de-duplicated and verified, then EOSE, then live
    /// events. Ending the iteration (or `unsubscribe`) sends CLOSE.
    public func subscribe(_ filters: [Filter], id: SubscriptionID = .random()) -> RelaySubscription {
        let (stream, continuation) = AsyncStream.makeStream(of: SubscriptionMessage.self)
        let token = nextWatcher
        nextWatcher += 1
        let budget = StreamBudget(limits: configuration.subscriptionBuffer)
        subscribers.removeValue(forKey: id)?.finish()
        subscribers[id] = Subscriber(token: token, continuation: continuation, budget: budget)
        continuation.onTermination = { [weak self] _ in
            budget.close()
            Task { await self?.subscriberGone(id, token: token) }
        }
        apply(.subscribeRequested(id, filters))
        return RelaySubscription(id: id, stream: stream, budget: budget)
    }

    /// Ends a subscription (CLOSE to the relay) and finishes its stream.
    public func unsubscribe(_ id: SubscriptionID) {
        apply(.unsubscribeRequested(id))
        subscribers.removeValue(forKey: id)?.finish()
    }

    // MARK: Driving the machine

    private func apply(_ input: RelayConnectionMachine.Input) {
        if case .socketClosed(let socket, _) = input { transports[socket] = nil }
        let actions = machine.handle(input)
        if case .messageReceived(let socket, _) = input, machine.phase == .connected(socket: socket) { noteActivity() }
        for action in actions { perform(action) }
    }

    /// A message arrived: the time is kept at once, reported to watchers only if the last report of
    /// activity is older than the interval (no per-event update).
    private func noteActivity() {
        let now = Date()
        currentReport.lastMessageAt = now
        if let reported = activityReportedAt, now.timeIntervalSince(reported) < activityInterval { return }
        activityReportedAt = now
        emitReport()
    }

    private func emitReport() {
        // Down since the first report that says failing; up again clears it.
        if currentReport.failingReason == nil {
            currentReport.downSince = nil
        } else if currentReport.downSince == nil {
            currentReport.downSince = Date()
        }
        for watcher in reportWatchers.values { watcher.yield(currentReport) }
    }

    private func perform(_ action: RelayConnectionMachine.Action) {
        switch action {
        case .openSocket(let socket):
            logger.debug("opening connection")
            transports[socket] = WebSocketTransport(
                url: url, maxMessageSize: configuration.maxMessageSize, logger: logger,
                onOpen: { [weak self] in await self?.apply(.socketOpened(socket: socket)) },
                onText: { [weak self] text in
                    await self?.apply(.messageReceived(socket: socket, text: text))
                    // The next message is read once every subscription has room (back-pressure).
                    for budget in await self?.fullBudgets() ?? [] { await budget.waitForRoom() }
                },
                onClose: { [weak self] reason in await self?.apply(.socketClosed(socket: socket, reason: reason)) })
        case .closeSocket(let socket):
            transports.removeValue(forKey: socket)?.close()
        case .send(let socket, let text):
            transports[socket]?.send(text)
        case .scheduleTimer(let timer, let token, let delay):
            timers[timer]?.cancel()
            timers[timer] = Task { [weak self] in
                try? await Task.sleep(for: delay)
                guard !Task.isCancelled else { return }
                await self?.apply(.timerFired(timer, token: token))
            }
        case .cancelTimer(let timer):
            timers.removeValue(forKey: timer)?.cancel()
        case .deliver(let id, let message):
            if let subscriber = subscribers[id], case .enqueued = subscriber.continuation.yield(message) {
                subscriber.budget.added(StreamBudget.size(of: message))
            }
            if case .closed = message { subscribers.removeValue(forKey: id)?.finish() }
        case .publishFinished(let id, let result):
            logger.debug("publish finished", metadata: ["id": "\(id.hex)", "result": "\(result)"])
            for waiter in publishWaiters.removeValue(forKey: id) ?? [] { waiter.resume(returning: result) }
        case .statusChanged(let status):
            logger.debug("status: \(status)")
            for watcher in statusWatchers.values { watcher.yield(status) }
            currentReport.status = status
            emitReport()
        case .failed(let failure):
            logger.debug("relay failure: \(failure)")
            currentReport.lastFailure = failure
            // A connection failure is followed by its status change, which reports both at once;
            // one that comes after the status change is reported itself.
            if !failure.isConnectionFailure || currentReport.failingReason != nil { emitReport() }
        case .notice(let text):
            logger.info("relay notice: \(text)")
        case .signAuthentication(let socket, let challenge):
            // Signing may wait (a remote signer); the machine goes on meanwhile and drops a late answer.
            let authenticator = self.authenticator
            let url = self.url
            Task { [weak self] in
                let event = await authenticator?.answer(relay: url, challenge: challenge)
                await self?.apply(.authenticationSigned(socket: socket, challenge: challenge, event: event))
            }
        case .authChanged(let auth):
            logger.debug("auth: \(auth)")
            currentReport.auth = auth
            emitReport()
        case .log(let level, let text):
            logger.log(level: level, "\(text)")
        }
    }

    /// The subscriptions whose consumers are behind (`RelayClientConfiguration.subscriptionBuffer`).
    private func fullBudgets() -> [StreamBudget] {
        subscribers.values.compactMap { $0.budget.isFull ? $0.budget : nil }
    }

    /// The consumer stopped iterating: end the subscription unless it was already replaced or ended.
    private func subscriberGone(_ id: SubscriptionID, token: Int) {
        guard subscribers[id]?.token == token else { return }
        subscribers[id] = nil
        apply(.unsubscribeRequested(id))
    }

    private func removeWatcher(_ key: Int) {
        statusWatchers[key] = nil
    }

    private func removeReportWatcher(_ key: Int) {
        reportWatchers[key] = nil
    }
}
