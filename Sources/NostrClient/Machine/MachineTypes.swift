import Logging
import Nostr

/// Connection state of one relay, as shown to people.
public enum RelayConnectionStatus: Sendable, Hashable, CustomStringConvertible {
    /// Not connected and not trying (initial state, or after `disconnect()`).
    case disconnected
    /// Opening the WebSocket; `attempt` counts consecutive failures before this one.
    case connecting(attempt: Int)
    case connected
    /// The connection failed or dropped; the next attempt starts after `retryIn`.
    case waitingToReconnect(attempt: Int, retryIn: Duration)

    public var isConnected: Bool { self == .connected }

    public var description: String {
        switch self {
        case .disconnected: "disconnected"
        case .connecting(let attempt): attempt == 0 ? "connecting" : "connecting (attempt \(attempt + 1))"
        case .connected: "connected"
        case .waitingToReconnect(_, let delay): "reconnecting in \(delay)"
        }
    }
}

/// Why a relay last failed us, as shown to people next to its status (issue 17).
///
/// Connection failures (`connectFailed`, `timedOut`, `connectionLost`) make the relay "failing" until
/// a connection opens again; refusals (`rejected`, `subscriptionClosed`) happen on a working
/// connection (NIP-01 `OK false` and `CLOSED`) and are reported without changing the status.
public enum RelayFailure: Sendable, Hashable, CustomStringConvertible {
    /// The connection could not be opened: refused, unreachable, TLS or WebSocket handshake error.
    case connectFailed(String)
    /// No connection came up within `RelayClientConfiguration.connectTimeout`.
    case timedOut
    /// An open connection ended: closed by the relay (with its close code and message) or dropped.
    case connectionLost(String)
    /// The relay answered `OK false` with this NIP-01 prefixed reason.
    case rejected(String)
    /// The relay ended a subscription (NIP-01 `CLOSED`) with this reason.
    case subscriptionClosed(String)

    /// Whether this failure is about the connection itself (not a refusal on a working one).
    public var isConnectionFailure: Bool {
        switch self {
        case .connectFailed, .timedOut, .connectionLost: true
        case .rejected, .subscriptionClosed: false
        }
    }

    public var description: String {
        switch self {
        case .connectFailed(let reason): reason
        case .timedOut: "connection timed out"
        case .connectionLost(let reason): reason
        case .rejected(let reason): "refused an event: \(reason)"
        case .subscriptionClosed(let reason): "closed a subscription: \(reason)"
        }
    }
}

/// The outcome of publishing one event to one relay.
public enum PublishResult: Sendable, Hashable {
    /// The relay answered `OK true` (`message` may say e.g. "duplicate: …").
    case accepted(message: String)
    /// The relay answered `OK false` with this NIP-01 prefixed reason.
    case rejected(reason: String)
    /// The event was sent but no `OK` came in time.
    case timedOut
    /// The event could not be sent: not connected, and no connection came up in time.
    case notConnected

    public var isAccepted: Bool { if case .accepted = self { true } else { false } }
}

/// What a subscription yields, in order: stored events, then `endOfStoredEvents`, then live events.
public enum SubscriptionMessage: Sendable, Hashable {
    case event(Event)
    /// NIP-01 EOSE (reported once, for the first connection that reaches it).
    case endOfStoredEvents
    /// The relay ended the subscription (NIP-01 CLOSED) with this reason.
    case closed(reason: String)
}

/// Timers the machine asks its driver to run.
public enum RelayTimer: Sendable, Hashable {
    case reconnect
    case connectTimeout
    case publishTimeout(EventID)
    /// Our NIP-42 `AUTH` got no `OK` in time.
    case authTimeout
}

extension RelayConnectionMachine {
    /// Everything that can happen to a relay connection.
    public enum Input: Sendable {
        case connectRequested
        case disconnectRequested
        /// The socket of generation `socket` is open.
        case socketOpened(socket: UInt64)
        /// A text message arrived on socket `socket`.
        case messageReceived(socket: UInt64, text: String)
        /// Socket `socket` closed or failed to open (`reason` is for logs).
        case socketClosed(socket: UInt64, reason: String)
        /// A timer scheduled with `token` fired.
        case timerFired(RelayTimer, token: UInt64)
        case publishRequested(Event)
        case subscribeRequested(SubscriptionID, [Filter])
        case unsubscribeRequested(SubscriptionID)
        /// The driver's answer to `signAuthentication`: the signed kind-22242 event, or nil when it
        /// would not sign (NIP-42).
        case authenticationSigned(socket: UInt64, challenge: String, event: Event?)
    }

    /// What the driver must do, in order.
    public enum Action: Sendable, Equatable {
        /// Open a WebSocket; its inputs carry `socket` so stale ones are ignored.
        case openSocket(socket: UInt64)
        case closeSocket(socket: UInt64)
        case send(socket: UInt64, text: String)
        case scheduleTimer(RelayTimer, token: UInt64, after: Duration)
        case cancelTimer(RelayTimer)
        case deliver(SubscriptionID, SubscriptionMessage)
        case publishFinished(EventID, PublishResult)
        case statusChanged(RelayConnectionStatus)
        /// Something went wrong with the relay (for its status; the machine goes on by itself).
        case failed(RelayFailure)
        /// A relay NOTICE.
        case notice(String)
        /// Sign the NIP-42 answer to `challenge` for socket `socket` (the driver holds the key) and
        /// hand it back as `authenticationSigned`.
        case signAuthentication(socket: UInt64, challenge: String)
        /// The connection's NIP-42 state changed (for `RelayReport.auth`).
        case authChanged(RelayAuthState)
        case log(Logger.Level, String)
    }
}
