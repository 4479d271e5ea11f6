import Nostr

/// The protocol logic of one relay connection as a pure state machine: inputs in, actions out.
///
/// It owns the subscriptions (re-sent on every reconnect with `since` moved forward, see
/// `ResubscribePolicy`), de-duplicates and verifies incoming events, tracks publishes until `OK` or
/// timeout, and decides when to reconnect (exponential backoff with jitter). It answers NIP-42 `AUTH`
/// challenges through its driver (`RelayConnectionMachine+Auth`). It does no I/O, reads no clock and
/// holds no key, so tests drive it directly; `RelayClient` wraps it around a WebSocket.
public struct RelayConnectionMachine: Sendable {
    struct Subscription: Sendable {
        var filters: [Filter]
        var seen: BoundedIDSet
        /// Newest `created_at` delivered on this subscription.
        var newestSeen: Int64?
        var endOfStoredReported = false
        /// Sent again once after an `auth-required:` CLOSED on this connection (NIP-42).
        var authRetried = false
        /// The `auth-required:` reason it was closed with, while it waits for our AUTH to be accepted.
        var heldForAuth: String?
    }

    struct PendingPublish: Sendable {
        var event: Event
        /// Sent on the current socket (reset when the socket drops, so it is re-sent after reconnect).
        var sent: Bool
        /// Sent at least once on some socket.
        var everSent: Bool
        /// Sent again once after an `auth-required:` OK false on this connection (NIP-42).
        var authRetried = false
        /// The `auth-required:` reason it was refused with, while it waits for our AUTH.
        var heldForAuth: String?
    }

    enum Phase: Sendable, Equatable {
        case idle
        case connecting(socket: UInt64)
        case connected(socket: UInt64)
        case waiting
    }

    public let configuration: RelayClientConfiguration
    /// Whether the driver can sign NIP-42 answers; without it challenges are never answered.
    public let authenticates: Bool
    var phase: Phase = .idle
    private(set) var status: RelayConnectionStatus = .disconnected
    /// Consecutive failed attempts (reset when a socket opens).
    private(set) var failures = 0
    private var nextSocket: UInt64 = 0
    private var nextToken: UInt64 = 0
    private var timerTokens: [RelayTimer: UInt64] = [:]
    var subscriptions: [SubscriptionID: Subscription] = [:]
    var pending: [EventID: PendingPublish] = [:]
    /// NIP-42 state of the current connection.
    var auth = RelayAuthSession()
    private var random: SplitMix64

    /// A machine; `authenticates` says whether its driver has a signer for NIP-42 answers.
    public init(configuration: RelayClientConfiguration = RelayClientConfiguration(), seed: UInt64 = 0x5EED,
                authenticates: Bool = false) {
        self.configuration = configuration
        self.authenticates = authenticates
        self.random = SplitMix64(seed: seed)
    }

    /// The connection's NIP-42 state as last reported.
    public var authState: RelayAuthState { auth.state }

    /// The status as last reported.
    public var currentStatus: RelayConnectionStatus { status }

    /// Ids of live subscriptions.
    public var subscriptionIDs: [SubscriptionID] { Array(subscriptions.keys) }

    /// Applies one input and returns the actions to perform, in order.
    public mutating func handle(_ input: Input) -> [Action] {
        var actions: [Action] = []
        switch input {
        case .connectRequested:
            if phase == .idle { open(&actions) }
        case .disconnectRequested:
            disconnect(&actions)
        case .socketOpened(let socket):
            guard phase == .connecting(socket: socket) else { break }
            opened(socket, &actions)
        case .messageReceived(let socket, let text):
            guard phase == .connected(socket: socket) else { break }
            receive(text, &actions)
        case .socketClosed(let socket, let reason):
            guard phase == .connecting(socket: socket) || phase == .connected(socket: socket) else { break }
            actions.append(.log(.info, "connection closed: \(reason)"))
            if case .connecting = phase {
                actions.append(.failed(.connectFailed(reason)))
            } else {
                actions.append(.failed(.connectionLost(reason)))
            }
            dropped(&actions)
        case .timerFired(let timer, let token):
            guard timerTokens[timer] == token else { break }
            timerTokens[timer] = nil
            fired(timer, &actions)
        case .publishRequested(let event):
            publish(event, &actions)
        case .subscribeRequested(let id, let filters):
            subscribe(id, filters, &actions)
        case .unsubscribeRequested(let id):
            guard subscriptions.removeValue(forKey: id) != nil else { break }
            if case .connected(let socket) = phase {
                actions.append(.send(socket: socket, text: ClientMessage.close(id).jsonString))
            }
        case .authenticationSigned(let socket, let challenge, let event):
            guard phase == .connected(socket: socket) else { break }
            authenticationSigned(challenge, event, socket: socket, &actions)
        }
        return actions
    }

    // MARK: Connection lifecycle

    private mutating func open(_ actions: inout [Action]) {
        nextSocket += 1
        phase = .connecting(socket: nextSocket)
        setStatus(.connecting(attempt: failures), &actions)
        actions.append(.openSocket(socket: nextSocket))
        schedule(.connectTimeout, after: configuration.connectTimeout, &actions)
    }

    private mutating func opened(_ socket: UInt64, _ actions: inout [Action]) {
        phase = .connected(socket: socket)
        failures = 0
        cancel(.connectTimeout, &actions)
        setStatus(.connected, &actions)
        for id in subscriptions.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
            resubscribe(id, socket: socket, &actions)
        }
        for id in pending.keys.sorted() {
            guard var item = pending[id] else { continue }
            item.sent = true
            item.everSent = true
            pending[id] = item
            actions.append(.send(socket: socket, text: ClientMessage.event(item.event).jsonString))
        }
    }

    /// Sends subscription `id` again with `since` moved forward (`ResubscribePolicy`).
    mutating func resubscribe(_ id: SubscriptionID, socket: UInt64, _ actions: inout [Action]) {
        guard let subscription = subscriptions[id] else { return }
        let filters = ResubscribePolicy.filters(subscription.filters, newestSeen: subscription.newestSeen,
                                                configuration: configuration)
        actions.append(.send(socket: socket, text: ClientMessage.req(id, filters).jsonString))
    }

    /// The socket failed or closed while wanted: wait, then try again.
    private mutating func dropped(_ actions: inout [Action]) {
        if case .connecting(let socket) = phase { actions.append(.closeSocket(socket: socket)) }
        cancel(.connectTimeout, &actions)
        connectionEnded(&actions)
        for id in pending.keys { pending[id]?.sent = false }
        let delay = configuration.backoff.delay(attempt: failures, unit: random.unit())
        failures += 1
        phase = .waiting
        setStatus(.waitingToReconnect(attempt: failures, retryIn: delay), &actions)
        schedule(.reconnect, after: delay, &actions)
    }

    private mutating func disconnect(_ actions: inout [Action]) {
        switch phase {
        case .connecting(let socket), .connected(let socket): actions.append(.closeSocket(socket: socket))
        case .idle, .waiting: break
        }
        cancel(.connectTimeout, &actions)
        cancel(.reconnect, &actions)
        connectionEnded(&actions)
        phase = .idle
        failures = 0
        for id in pending.keys.sorted() {
            cancel(.publishTimeout(id), &actions)
            actions.append(.publishFinished(id, .notConnected))
        }
        pending.removeAll()
        setStatus(.disconnected, &actions)
    }

    private mutating func fired(_ timer: RelayTimer, _ actions: inout [Action]) {
        switch timer {
        case .reconnect:
            if phase == .waiting { open(&actions) }
        case .connectTimeout:
            if case .connecting = phase {
                actions.append(.log(.info, "connection attempt timed out"))
                actions.append(.failed(.timedOut))
                dropped(&actions)
            }
        case .publishTimeout(let id):
            guard let item = pending.removeValue(forKey: id) else { return }
            actions.append(.publishFinished(id, item.everSent ? .timedOut : .notConnected))
        case .authTimeout:
            authTimedOut(&actions)
        }
    }

    // MARK: Publish and subscribe

    private mutating func publish(_ event: Event, _ actions: inout [Action]) {
        if pending[event.id] != nil { return }  // already in flight: the same result will answer both
        guard pending.count < configuration.maxPendingPublishes else {
            actions.append(.log(.warning, "publish refused: \(pending.count) publishes already pending"))
            actions.append(.publishFinished(event.id, .rejected(reason: "client: too many pending publishes")))
            return
        }
        switch phase {
        case .idle:
            actions.append(.publishFinished(event.id, .notConnected))
        case .connected(let socket):
            pending[event.id] = PendingPublish(event: event, sent: true, everSent: true)
            actions.append(.send(socket: socket, text: ClientMessage.event(event).jsonString))
            schedule(.publishTimeout(event.id), after: configuration.publishTimeout, &actions)
        case .connecting, .waiting:
            pending[event.id] = PendingPublish(event: event, sent: false, everSent: false)
            schedule(.publishTimeout(event.id), after: configuration.publishTimeout, &actions)
        }
    }

    private mutating func subscribe(_ id: SubscriptionID, _ filters: [Filter], _ actions: inout [Action]) {
        subscriptions[id] = Subscription(filters: filters, seen: BoundedIDSet(capacity: configuration.deduplicationCapacity))
        if case .connected(let socket) = phase {
            actions.append(.send(socket: socket, text: ClientMessage.req(id, filters).jsonString))
        }
    }

    // MARK: Relay messages

    private mutating func receive(_ text: String, _ actions: inout [Action]) {
        let message: RelayMessage
        do {
            // Verification happens below, after de-duplication, so repeats cost no signature check.
            message = try RelayMessage(json: text, verifyEvents: false)
        } catch {
            actions.append(.log(.warning, "dropped unreadable relay message: \(UntrustedText.line("\(error)", limit: 200))"))
            return
        }
        switch message.withCleanText {
        case .event(let id, let event):
            deliver(event, to: id, &actions)
        case .eose(let id):
            guard var subscription = subscriptions[id], !subscription.endOfStoredReported else { return }
            subscription.endOfStoredReported = true
            subscriptions[id] = subscription
            actions.append(.deliver(id, .endOfStoredEvents))
        case .ok(let id, let accepted, let message):
            if case .sent(id, _)? = auth.attempt {
                authAnswered(accepted: accepted, message, &actions)
                return
            }
            guard pending[id] != nil else { return }
            if !accepted, retryAfterAuth(publish: id, reason: message, &actions) { return }
            pending[id] = nil
            cancel(.publishTimeout(id), &actions)
            if !accepted { actions.append(.failed(.rejected(message))) }
            actions.append(.publishFinished(id, accepted ? .accepted(message: message) : .rejected(reason: message)))
        case .closed(let id, let reason):
            guard subscriptions[id] != nil else { return }
            if retryAfterAuth(subscription: id, reason: reason, &actions) { return }
            subscriptions[id] = nil
            actions.append(.log(.info, "relay closed subscription \(id): \(reason)"))
            actions.append(.failed(.subscriptionClosed(reason)))
            actions.append(.deliver(id, .closed(reason: reason)))
        case .notice(let text):
            actions.append(.notice(text))
        case .auth(let challenge):
            challenged(challenge, &actions)
        }
    }

    private mutating func deliver(_ event: Event, to id: SubscriptionID, _ actions: inout [Action]) {
        guard var subscription = subscriptions[id] else { return }
        guard !subscription.seen.contains(event.id) else { return }
        if let limit = configuration.maxContentLength[event.kind], event.content.utf8.count > limit {
            actions.append(.log(.warning, "dropped event \(event.id.hex) on \(id): kind \(event.kind.rawValue) content of \(event.content.utf8.count) bytes is over \(limit)"))
            return
        }
        do {
            try event.verify()
        } catch {
            actions.append(.log(.warning, "dropped event \(event.id.hex) on \(id): \(error)"))
            return
        }
        guard subscription.filters.contains(where: { $0.matches(event) }) else {
            actions.append(.log(.warning, "dropped event \(event.id.hex) on \(id): does not match the filters"))
            return
        }
        subscription.seen.insert(event.id)
        subscription.newestSeen = max(subscription.newestSeen ?? event.createdAt, event.createdAt)
        subscriptions[id] = subscription
        actions.append(.deliver(id, .event(event)))
    }

    // MARK: Helpers

    mutating func setStatus(_ new: RelayConnectionStatus, _ actions: inout [Action]) {
        guard new != status else { return }
        status = new
        actions.append(.statusChanged(new))
    }

    mutating func schedule(_ timer: RelayTimer, after delay: Duration, _ actions: inout [Action]) {
        nextToken += 1
        timerTokens[timer] = nextToken
        actions.append(.scheduleTimer(timer, token: nextToken, after: delay))
    }

    mutating func cancel(_ timer: RelayTimer, _ actions: inout [Action]) {
        guard timerTokens.removeValue(forKey: timer) != nil else { return }
        actions.append(.cancelTimer(timer))
    }
}

extension RelayMessage {
    /// The most characters of a relay's own words (OK, CLOSED and NOTICE text) kept for logs and UI.
    static let relayTextLimit = 200

    /// The message with the relay's own words made printable (`UntrustedText.line`): they reach
    /// logs, stderr and the UI, and a relay is not trusted to keep terminal escapes out of them.
    var withCleanText: RelayMessage {
        switch self {
        case .ok(let id, let accepted, let message):
            .ok(id, accepted: accepted, message: UntrustedText.line(message, limit: Self.relayTextLimit))
        case .closed(let id, let reason): .closed(id, message: UntrustedText.line(reason, limit: Self.relayTextLimit))
        case .notice(let text): .notice(UntrustedText.line(text, limit: Self.relayTextLimit))
        default: self
        }
    }
}
