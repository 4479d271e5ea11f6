/// When one pool subscription's stored events are in: every relay of it answered (EOSE or CLOSED)
/// or is known not to answer soon, as a pure state machine (inputs in, actions out; the pool runs
/// its timers).
///
/// A dead relay must not hold a command up (issue 50): a relay whose connection failed (refused,
/// dropped, timed out) counts as answered at once; one not upgraded within
/// `RelayClientConfiguration.catchUpConnectBound` stops holding once another relay is connected
/// (with none connected there is nothing better to wait for, and the last word is the client's own
/// catch-up timeout); and once some relay answered, the others get `catchUpGrace` to answer too (or
/// as long as the first answer took, if longer: on a loaded machine or a slow network every relay is
/// slow alike), the grace starting again at each event they send (a relay still sending its stored
/// events is not mute). A relay let go keeps its subscription: what it sends later arrives as live
/// events.
public struct CatchUpTracker: Sendable {
    /// What the pool knows of a relay's connection.
    public enum Connection: Sendable, Equatable {
        case connected
        /// Not connected yet, and no attempt of this connection has failed.
        case connecting
        /// The connection failed or dropped (the client retries with backoff).
        case failed
    }

    /// Why a relay no longer holds the catch-up without having answered.
    public enum Release: Sendable, Equatable, CustomStringConvertible {
        /// Its connection failed or dropped.
        case failed
        /// Its WebSocket did not upgrade within the connect bound while another relay was connected.
        case notUpgraded
        /// Another relay answered and this one sent nothing within the grace.
        case silent

        public var description: String {
            switch self {
            case .failed: "its connection failed"
            case .notUpgraded: "not connected in time"
            case .silent: "no answer while the others answered"
            }
        }
    }

    /// Timers the tracker asks its driver to run, one of each kind per relay.
    public enum Timer: Sendable, Hashable {
        case connect(String)
        case grace(String)
    }

    public enum Input: Sendable, Equatable {
        /// The subscription was sent to `relay`, whose connection is as given.
        case added(String, Connection)
        /// The relay left the subscription (removed from the pool or rerouted away).
        case removed(String)
        case connection(String, Connection)
        /// The relay sent EOSE or CLOSED for the subscription, `after` the subscription started.
        case answered(String, after: Duration)
        /// The relay sent an event of the subscription.
        case activity(String)
        case timerFired(Timer, token: UInt64)
    }

    public enum Action: Sendable, Equatable {
        case scheduleTimer(Timer, token: UInt64, after: Duration)
        case cancelTimer(Timer)
        /// The relay no longer holds the catch-up (for logs; its events still arrive).
        case released(String, Release)
        /// Every relay answered or was let go; reported once.
        case caughtUp
    }

    struct Pending: Sendable, Equatable {
        var connection: Connection
        /// The connect bound passed while no other relay was connected.
        var overdue = false
    }

    public let connectBound: Duration
    public let grace: Duration
    private(set) var pending: [String: Pending] = [:]
    private(set) var someoneAnswered = false
    /// The grace the others get, fixed at the first answer: `grace`, or the first answer's delay.
    private var graceInUse: Duration
    private(set) var reported = false
    private var tokens: [Timer: UInt64] = [:]
    private var nextToken: UInt64 = 0

    public init(connectBound: Duration, grace: Duration) {
        self.connectBound = connectBound
        self.grace = grace
        self.graceInUse = grace
    }

    /// Whether `caughtUp` was reported.
    public var isCaughtUp: Bool { reported }

    /// The relays still holding the catch-up.
    public var holding: Set<String> { Set(pending.keys) }

    /// Reports `caughtUp` if nothing holds (a subscription on no relay is caught up at once).
    public mutating func start() -> [Action] {
        var actions: [Action] = []
        checkDone(&actions)
        return actions
    }

    /// Applies one input and returns the actions to perform, in order.
    /// Once caught up, inputs change nothing (the catch-up is reported once).
    public mutating func handle(_ input: Input) -> [Action] {
        guard !reported else { return [] }
        var actions: [Action] = []
        switch input {
        case .added(let relay, let connection):
            add(relay, connection, &actions)
        case .removed(let relay):
            if pending.removeValue(forKey: relay) != nil { cancelTimers(relay, &actions) }
        case .connection(let relay, let connection):
            connectionChanged(relay, connection, &actions)
        case .answered(let relay, let delay):
            if pending.removeValue(forKey: relay) != nil { cancelTimers(relay, &actions) }
            if !someoneAnswered {
                someoneAnswered = true
                graceInUse = max(grace, delay)
                for other in pending.keys.sorted() { schedule(.grace(other), after: graceInUse, &actions) }
            }
        case .activity(let relay):
            if pending[relay] != nil, tokens[.grace(relay)] != nil { schedule(.grace(relay), after: graceInUse, &actions) }
        case .timerFired(let timer, let token):
            guard tokens[timer] == token else { break }
            tokens[timer] = nil
            fired(timer, &actions)
        }
        checkDone(&actions)
        return actions
    }

    // MARK: Steps

    private mutating func add(_ relay: String, _ connection: Connection, _ actions: inout [Action]) {
        guard connection != .failed else {
            if pending.removeValue(forKey: relay) != nil { cancelTimers(relay, &actions) }
            actions.append(.released(relay, .failed))
            return
        }
        pending[relay] = Pending(connection: connection)
        if connection == .connecting { schedule(.connect(relay), after: connectBound, &actions) }
        if someoneAnswered { schedule(.grace(relay), after: graceInUse, &actions) }
    }

    private mutating func connectionChanged(_ relay: String, _ connection: Connection, _ actions: inout [Action]) {
        guard var state = pending[relay], state.connection != connection else { return }
        switch connection {
        case .failed:
            release(relay, .failed, &actions)
        case .connected:
            state.connection = .connected
            state.overdue = false
            pending[relay] = state
            cancel(.connect(relay), &actions)
            // Someone is connected now: relays past their connect bound stop holding.
            for (other, item) in pending.sorted(by: { $0.key < $1.key }) where item.overdue {
                release(other, .notUpgraded, &actions)
            }
        case .connecting:
            state.connection = .connecting
            pending[relay] = state
        }
    }

    private mutating func fired(_ timer: Timer, _ actions: inout [Action]) {
        switch timer {
        case .connect(let relay):
            guard let state = pending[relay], state.connection != .connected else { return }
            if pending.contains(where: { $0.key != relay && $0.value.connection == .connected }) || someoneAnswered {
                release(relay, .notUpgraded, &actions)
            } else {
                pending[relay]?.overdue = true
            }
        case .grace(let relay):
            if pending[relay] != nil { release(relay, .silent, &actions) }
        }
    }

    private mutating func release(_ relay: String, _ why: Release, _ actions: inout [Action]) {
        guard pending.removeValue(forKey: relay) != nil else { return }
        cancelTimers(relay, &actions)
        actions.append(.released(relay, why))
    }

    private mutating func checkDone(_ actions: inout [Action]) {
        guard !reported, pending.isEmpty else { return }
        reported = true
        for timer in tokens.keys.sorted(by: { "\($0)" < "\($1)" }) { actions.append(.cancelTimer(timer)) }
        tokens = [:]
        actions.append(.caughtUp)
    }

    // MARK: Timers

    private mutating func schedule(_ timer: Timer, after delay: Duration, _ actions: inout [Action]) {
        nextToken += 1
        tokens[timer] = nextToken
        actions.append(.scheduleTimer(timer, token: nextToken, after: delay))
    }

    private mutating func cancel(_ timer: Timer, _ actions: inout [Action]) {
        guard tokens.removeValue(forKey: timer) != nil else { return }
        actions.append(.cancelTimer(timer))
    }

    private mutating func cancelTimers(_ relay: String, _ actions: inout [Action]) {
        cancel(.connect(relay), &actions)
        cancel(.grace(relay), &actions)
    }
}
