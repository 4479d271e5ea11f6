import Foundation
import Nostr

/// The relay's NIP-42 decisions, free of I/O: whether an `AUTH` event authenticates a connection,
/// and what an authenticated (or not) connection may write, ask for and receive.
///
/// Why: NIP-42 leaves to the relay which jobs need AUTH; keeping the rules here lets the engine and
/// the hub apply one set of them (REQ answers, live fan-out) and tests check them without sockets.
/// Pubkeys are compared as lower-case hex, as `p` tags carry them.
struct RelayAccessPolicy: Sendable {
    let mode: RelayAuthMode
    /// Hex pubkeys allowed to write in `all` mode; empty: anyone authenticated.
    let allowedWriters: Set<String>

    /// How far `created_at` of an AUTH event may be from now (NIP-42 suggests ~10 minutes).
    static let window: Int64 = 600
    /// Pubkeys one connection may authenticate as (NIP-42 allows several); bounds its memory.
    static let maxPubkeysPerConnection = 16

    init(_ configuration: RelayAuthConfiguration) {
        mode = configuration.mode
        allowedWriters = Set(configuration.allowedWriters.map(\.hex))
    }

    /// Whether connections get an `["AUTH", challenge]` as they open.
    var challenges: Bool { mode != .none }

    /// A fresh challenge for one connection: 16 random bytes in hex (NIP-42: valid for the connection).
    static func newChallenge() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &generator)) }.joined()
    }

    // MARK: AUTH

    /// What an `AUTH` message does.
    enum AuthOutcome: Equatable {
        /// The connection is now (also) authenticated as this hex pubkey.
        case authenticated(String)
        /// `OK false` with this reason.
        case refused(String)
    }

    /// Checks an `AUTH` event (NIP-42 "Signed Event Verification"): kind 22242, `created_at` within
    /// `window` of `now`, this connection's `challenge`, a `relay` tag naming one of `relays`, then a
    /// valid id and signature (last, being the costly part).
    func authenticate(_ event: Event, challenge: String?, relays: [RelayAddress], now: Int64,
                      authenticated: Set<String>) -> AuthOutcome {
        guard mode != .none, let challenge else {
            return .refused("restricted: authentication is not supported")
        }
        guard event.kind == .clientAuthentication else {
            return .refused("invalid: an AUTH event must be of kind 22242, not \(event.kind.rawValue)")
        }
        guard abs(event.createdAt - now) <= Self.window else {
            return .refused("invalid: created_at is more than \(Self.window / 60) minutes from the relay's time")
        }
        guard let answered = event.tags.firstValue(named: "challenge") else {
            return .refused("invalid: the AUTH event has no challenge tag")
        }
        guard answered == challenge else {
            return .refused("invalid: the challenge is not this connection's")
        }
        guard let tag = event.tags.firstValue(named: "relay") else {
            return .refused("invalid: the AUTH event has no relay tag")
        }
        guard let claimed = RelayAddress(url: tag), relays.contains(where: { $0.accepts(claimed) }) else {
            return .refused("invalid: the relay tag does not name this relay")
        }
        guard event.isValid else {
            return .refused("invalid: bad signature")
        }
        let pubkey = event.pubkey.hex
        if !authenticated.contains(pubkey), authenticated.count >= Self.maxPubkeysPerConnection {
            return .refused("restricted: at most \(Self.maxPubkeysPerConnection) pubkeys per connection")
        }
        return .authenticated(pubkey)
    }

    // MARK: EVENT

    /// The `OK false` reason for an EVENT this connection may not write, or nil.
    func writeRefusal(_ event: Event, authenticated: Set<String>) -> String? {
        if event.kind == .clientAuthentication {
            // NIP-42: AUTH events are never broadcast (nor stored).
            return "invalid: kind 22242 is sent with AUTH, not EVENT"
        }
        guard mode == .all else { return nil }
        if authenticated.isEmpty {
            return "auth-required: this relay accepts events only from authenticated clients"
        }
        if !allowedWriters.isEmpty, allowedWriters.isDisjoint(with: authenticated) {
            return "restricted: this pubkey may not write to this relay"
        }
        return nil
    }

    // MARK: REQ

    /// The `CLOSED` reason for a REQ this connection may not make, or nil to serve it (gift wraps
    /// it may not receive are left out of the answer by `mayReceive`).
    ///
    /// In `inbox` mode a REQ asking only for gift wraps, none of which this connection could
    /// receive, is closed (`auth-required:`, or `restricted:` once authenticated) so the client
    /// knows to authenticate; a REQ asking for other events too gets those.
    func readRefusal(_ filters: [Filter], authenticated: Set<String>) -> String? {
        switch mode {
        case .none: return nil
        case .all where authenticated.isEmpty:
            return "auth-required: this relay serves only authenticated clients"
        case .inbox, .all: break
        }
        let giftWrapsOnly = !filters.isEmpty && filters.allSatisfy { $0.kinds == [.giftWrap] }
        guard giftWrapsOnly else { return nil }
        let servable = filters.contains { filter in
            guard !authenticated.isEmpty else { return false }
            guard let recipients = filter.tags["p"] else { return true }
            return recipients.contains { authenticated.contains($0.lowercased()) }
        }
        if servable { return nil }
        return authenticated.isEmpty
            ? "auth-required: gift wraps are served only to their recipient"
            : "restricted: gift wraps are served only to their recipient"
    }

    /// Whether a connection authenticated as `authenticated` may receive an event of `kind`
    /// addressed (`p` tags) to `recipients` (asked only for gift wraps, when it matters).
    func mayReceive(kind: Kind, recipients: () -> [String], authenticated: Set<String>) -> Bool {
        guard mode != .none, kind == .giftWrap else { return true }
        guard !authenticated.isEmpty else { return false }
        return recipients().contains { authenticated.contains($0.lowercased()) }
    }

    /// The `p` values of stored event JSON (for gift wraps read back from the store).
    static func recipients(ofJSON json: String) -> [String] {
        guard let tags = (try? JSONValue.parse(json))?.objectValue?["tags"]?.arrayValue else { return [] }
        return tags.compactMap { tag in
            guard let items = tag.arrayValue, items.count > 1, items[0].stringValue == "p" else { return nil }
            return items[1].stringValue
        }
    }
}
