import Logging
import Nostr

/// Identifies one WebSocket connection inside the relay.
struct ConnectionID: Hashable, Sendable, CustomStringConvertible {
    let rawValue: UInt64
    var description: String { "conn-\(rawValue)" }
}

/// Owns every live subscription and fans out new events to the connections whose filters match.
///
/// A new subscription starts *pending*: live events that match are held back while its stored events
/// are read, and released by `activate` after EOSE, minus those already sent. That keeps NIP-01's
/// order (stored, EOSE, live) without losing an event published during the query.
///
/// Each connection also keeps its NIP-42 session (challenge, pubkeys authenticated), so fan-out
/// gives a gift wrap only to connections `access` lets receive it.
actor RelayHub {
    private struct Subscription {
        var filters: [Filter]
        /// Matching live events held until `activate`, or nil once active.
        var held: [(id: EventID, message: String)]?
    }

    private struct Connection {
        let outbound: OutboundQueue
        /// The NIP-42 challenge sent on this connection, nil when the relay sends none.
        let challenge: String?
        /// Hex pubkeys this connection authenticated as.
        var authenticated: Set<String> = []
        var subscriptions: [SubscriptionID: Subscription] = [:]
    }

    /// One connection's NIP-42 state.
    struct Session: Sendable, Equatable {
        var challenge: String?
        var authenticated: Set<String>
    }

    enum SubscribeError: Error, Equatable {
        case tooManySubscriptions(limit: Int)
    }

    private var connections: [ConnectionID: Connection] = [:]
    private var nextID: UInt64 = 1
    private let logger: Logger
    private let access: RelayAccessPolicy

    init(logger: Logger, access: RelayAccessPolicy = RelayAccessPolicy(.none)) {
        self.logger = logger
        self.access = access
    }

    /// Registers a connection (with the NIP-42 challenge it is sent, if any) and returns its id.
    func register(outbound: OutboundQueue, challenge: String? = nil) -> ConnectionID {
        let id = ConnectionID(rawValue: nextID)
        nextID += 1
        connections[id] = Connection(outbound: outbound, challenge: challenge)
        return id
    }

    /// The connection's NIP-42 state (no challenge, no pubkeys for an unknown connection).
    func session(_ id: ConnectionID) -> Session {
        guard let connection = connections[id] else { return Session(challenge: nil, authenticated: []) }
        return Session(challenge: connection.challenge, authenticated: connection.authenticated)
    }

    /// Marks the connection authenticated as `pubkey` (hex), beside any earlier ones (NIP-42).
    func authenticate(_ id: ConnectionID, as pubkey: String) {
        connections[id]?.authenticated.insert(pubkey)
    }

    /// Forgets a connection and all its subscriptions.
    func unregister(_ id: ConnectionID) {
        connections[id] = nil
    }

    /// Adds (or replaces, NIP-01) a pending subscription.
    func subscribe(_ connection: ConnectionID, _ sub: SubscriptionID, filters: [Filter], limit: Int) throws(SubscribeError) {
        guard var state = connections[connection] else { return }
        if state.subscriptions[sub] == nil, state.subscriptions.count >= limit {
            throw .tooManySubscriptions(limit: limit)
        }
        state.subscriptions[sub] = Subscription(filters: filters, held: [])
        connections[connection] = state
    }

    /// Makes a pending subscription live: sends what was held back (except `alreadySent`) in order.
    func activate(_ connection: ConnectionID, _ sub: SubscriptionID, alreadySent: Set<EventID>) {
        guard var state = connections[connection], var subscription = state.subscriptions[sub] else { return }
        let held = subscription.held ?? []
        subscription.held = nil
        state.subscriptions[sub] = subscription
        connections[connection] = state
        for item in held where !alreadySent.contains(item.id) {
            state.outbound.send(item.message)
        }
    }

    /// Ends a subscription; true when it existed.
    @discardableResult
    func unsubscribe(_ connection: ConnectionID, _ sub: SubscriptionID) -> Bool {
        connections[connection]?.subscriptions.removeValue(forKey: sub) != nil
    }

    /// Delivers a newly accepted event (stored or ephemeral) to every matching subscription.
    func broadcast(_ event: Event, json: String) {
        let recipients = { event.tags.values(named: "p") }
        for (connectionID, connection) in connections {
            guard access.mayReceive(kind: event.kind, recipients: recipients, authenticated: connection.authenticated)
            else { continue }
            for (sub, subscription) in connection.subscriptions where subscription.filters.contains(where: { $0.matches(event) }) {
                let message = RelayWire.event(sub, json: json)
                if subscription.held != nil {
                    connections[connectionID]?.subscriptions[sub]?.held?.append((event.id, message))
                } else {
                    connection.outbound.send(message)
                }
            }
        }
    }

    /// Number of open connections and live subscriptions (diagnostics, tests).
    var counts: (connections: Int, subscriptions: Int) {
        (connections.count, connections.values.reduce(0) { $0 + $1.subscriptions.count })
    }
}
