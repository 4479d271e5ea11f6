import Nostr

/// Where NIP-42 authentication stands on the current connection to a relay, as shown to people.
///
/// Per connection (NIP-42 "Protocol flow": a session lasts as long as its connection), so it is
/// `notAsked` again after a reconnect until the relay challenges the new connection.
public enum RelayAuthState: Sendable, Hashable, CustomStringConvertible {
    /// The relay has not challenged this connection, or we had no key to answer it with.
    case notAsked
    /// The relay accepted our `AUTH` (NIP-42 `OK true`).
    case authenticated
    /// Our `AUTH` was refused (the relay's `OK false` reason), or could not be made or answered.
    case refused(String)

    public var description: String {
        switch self {
        case .notAsked: "not asked"
        case .authenticated: "authenticated"
        case .refused(let reason): "authentication refused: \(reason)"
        }
    }
}

/// One connection's NIP-42 bookkeeping inside `RelayConnectionMachine`: the relay's challenge, our
/// answer in flight, and the outcome; reset whenever the connection changes (NIP-42 "Protocol flow").
struct RelayAuthSession: Sendable, Equatable {
    /// Our answer to a challenge, between the sign request and the relay's `OK`.
    enum Attempt: Sendable, Equatable {
        case signing(challenge: String)
        case sent(EventID, challenge: String)
    }

    /// Most answers per connection: a relay that keeps challenging after refusing gets no loop.
    static let maxAttempts = 3
    /// Longest challenge kept (NIP-42 challenges are short random strings).
    static let maxChallengeLength = 1_024

    /// The relay's latest challenge on this connection (NIP-42: valid until another one is sent).
    var challenge: String?
    var attempt: Attempt?
    var attempts = 0
    /// The challenge of the answer the relay accepted.
    var answered: String?
    var state: RelayAuthState = .notAsked

    /// Whether a request refused for `auth-required` may go again at once: authenticated on the
    /// relay's latest challenge (a newer one means the relay wants a new answer).
    var isCurrent: Bool { state == .authenticated && (challenge == nil || challenge == answered) }
}
