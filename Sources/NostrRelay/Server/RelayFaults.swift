import Nostr

/// Misbehaviour the embedded relay can be told to show, for tests of clients against the faults
/// real relays have (NIP-01 gives no delivery guarantee): the default shows none.
///
/// Each rule sees the event a client published; the relay still stores and broadcasts it as usual.
public struct RelayFaults: Sendable {
    /// Events stored (and broadcast) whose `OK` is never sent: the client cannot tell whether the
    /// relay holds them.
    public var withholdOK: @Sendable (Event) -> Bool

    public init(withholdOK: @escaping @Sendable (Event) -> Bool = { _ in false }) {
        self.withholdOK = withholdOK
    }

    /// A well-behaved relay.
    public static let none = RelayFaults()
}
