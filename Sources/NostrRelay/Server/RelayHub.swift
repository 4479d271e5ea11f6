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
actor RelayHub {
    private struct Subscription {
        var filters: [Filter]
        /// Matching live events held until `activate`, or nil once active.
        var held: [(id: EventID, message: String)]?
    }

    private struct Connection {
        let outbound: OutboundQueue
        var subscriptions: [SubscriptionID: Subscription] = [:]
    }

    enum SubscribeError: Error, Equatable {
        case tooManySubscriptions(limit: Int)
    }

    private var connections: [ConnectionID: Connection] = [:]
    private var nextID: UInt64 = 1
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    /// Registers a connection and returns its id.
    func register(outbound: OutboundQueue) -> ConnectionID {
        let id = ConnectionID(rawValue: nextID)
        nextID += 1
        connections[id] = Connection(outbound: outbound)
        return id
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
        for (connectionID, connection) in connections {
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
