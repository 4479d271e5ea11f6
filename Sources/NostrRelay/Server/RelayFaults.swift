import Nostr

/// Misbehaviour the embedded relay can be told to show, for tests of clients against the faults
/// real relays have (NIP-01 gives no delivery guarantee): the default shows none.
///
/// Rules see what a client sent and may keep state (count calls) to misbehave only sometimes.
public struct RelayFaults: Sendable {
    /// Events stored (and broadcast) whose `OK` is never sent: the client cannot tell whether the
    /// relay holds them.
    public var withholdOK: @Sendable (Event) -> Bool

    /// Events refused with `OK false` and the returned reason (e.g. `"blocked: not on the list"`),
    /// neither stored nor broadcast; nil lets the event through.
    public var rejectWith: @Sendable (Event) -> String?

    /// REQs after which the relay closes the socket (a normal close frame) instead of sending EOSE:
    /// the stored events it matched were sent, the subscription never went live.
    public var closeOnREQ: @Sendable (SubscriptionID, [Filter]) -> Bool

    /// How long the relay waits before handling each EVENT and REQ of a connection (a slow or
    /// overloaded relay); messages of one connection are still handled in order.
    public var answerDelay: Duration

    public init(
        withholdOK: @escaping @Sendable (Event) -> Bool = { _ in false },
        rejectWith: @escaping @Sendable (Event) -> String? = { _ in nil },
        closeOnREQ: @escaping @Sendable (SubscriptionID, [Filter]) -> Bool = { _, _ in false },
        answerDelay: Duration = .zero
    ) {
        self.withholdOK = withholdOK
        self.rejectWith = rejectWith
        self.closeOnREQ = closeOnREQ
        self.answerDelay = answerDelay
    }

    /// A well-behaved relay.
    public static let none = RelayFaults()
}
