import Nostr

/// The outcome of publishing one event to the relays of a pool: the verdicts in when the publish
/// returned, and the relays still to answer.
///
/// `RelayPool.publish` returns at the first `OK true` (issue 50: a dead relay never holds a send
/// up), so a relay may be neither accepted nor failed but `pending`.
public struct PoolPublishResult: Sendable, Hashable {
    public let eventID: EventID
    /// Per relay URL, the relays that answered (or failed) before the publish returned.
    public let results: [String: PublishResult]
    /// Relays that had not answered when one accepted, in pool order; their publish goes on.
    public let pending: [String]

    public init(eventID: EventID, results: [String: PublishResult], pending: [String] = []) {
        self.eventID = eventID
        self.results = results
        self.pending = pending
    }

    /// Relays that answered `OK true`, sorted.
    public var accepted: [String] { results.filter { $0.value.isAccepted }.map(\.key).sorted() }
    /// Relays that refused, timed out or were unreachable, with why.
    public var failed: [String: PublishResult] { results.filter { !$0.value.isAccepted } }
    /// "Sent" in the app's sense: at least one relay accepted the event.
    public var isSent: Bool { results.values.contains { $0.isAccepted } }
}
