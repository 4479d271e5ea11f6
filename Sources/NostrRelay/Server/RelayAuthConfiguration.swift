import Nostr

/// Which NIP-42 authentication the relay asks of its clients.
///
/// Why: an inbox relay (the kind-10050 relays a Welcome is sent to) that hands gift wraps to anyone
/// tells the world who receives invitations; a private relay wants to know who reads and writes.
public enum RelayAuthMode: String, Sendable, Equatable, CaseIterable {
    /// No challenge is sent; `AUTH` is refused (a plain NIP-01 relay).
    case none
    /// Everyone may read and write, but kind-1059 gift wraps are served only to a connection
    /// authenticated as one of their `p` recipients (NIP-42 "limit access to DMs to their parties").
    case inbox
    /// As `inbox`, and every `EVENT` and `REQ` needs an authenticated connection (NIP-11
    /// `limitation.auth_required`); writes can be limited further to `allowedWriters`.
    case all
}

/// The relay's NIP-42 settings.
public struct RelayAuthConfiguration: Sendable, Equatable {
    public var mode: RelayAuthMode
    /// In `all` mode, the pubkeys one of which a connection must have authenticated as to write
    /// (others get `OK false "restricted: …"`); empty: any authenticated pubkey may write.
    public var allowedWriters: Set<PublicKey>
    /// The relay's URL as clients name it in the AUTH event's `relay` tag (behind a proxy, its
    /// public `wss://` address); nil: `ws://<host>:<bound port>` (any host when bound to all interfaces).
    public var relayURL: String?

    public init(mode: RelayAuthMode = .none, allowedWriters: Set<PublicKey> = [], relayURL: String? = nil) {
        self.mode = mode
        self.allowedWriters = allowedWriters
        self.relayURL = relayURL
    }

    /// No authentication (the default).
    public static let none = RelayAuthConfiguration()
}
