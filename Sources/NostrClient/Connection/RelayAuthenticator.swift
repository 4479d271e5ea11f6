import Nostr

/// Signs the answer to a relay's NIP-42 `AUTH` challenge (kind 22242 with `relay` and `challenge`
/// tags, NIP-42 "Canonical authentication event"); it holds the key, so the machine never does.
///
/// Which key answers is the app's privacy choice (a relay learns who connects): `signing(with:)`
/// for relays the user chose, `throwaway` where the relay needs only *some* authentication.
public struct RelayAuthenticator: Sendable {
    private let signer: @Sendable (_ relay: String, _ challenge: String) async -> Event?

    /// An authenticator from a signer of `(relay URL, challenge)`; nil from it means "do not answer".
    public init(_ signer: @escaping @Sendable (_ relay: String, _ challenge: String) async -> Event?) {
        self.signer = signer
    }

    /// The signed kind-22242 answer to `challenge` from `relay`, with a fresh `created_at`, or nil.
    public func answer(relay: String, challenge: String) async -> Event? {
        await signer(relay, challenge)
    }

    /// Answers with `keys` (the account, on relays its user chose).
    public static func signing(with keys: Keys) -> RelayAuthenticator {
        RelayAuthenticator { relay, challenge in
            try? UnsignedEvent.authentication(pubkey: keys.publicKey, relay: relay, challenge: challenge).signed(with: keys)
        }
    }

    /// Answers with a fresh key each time: the relay sees an authenticated client, never whose.
    public static let throwaway = RelayAuthenticator { relay, challenge in
        let keys = Keys.generate()
        return try? UnsignedEvent.authentication(pubkey: keys.publicKey, relay: relay, challenge: challenge).signed(with: keys)
    }
}

/// Which authenticator answers each relay's NIP-42 challenges (by relay URL); nil for a relay means
/// never authenticate there.
public typealias RelayAuthPolicy = @Sendable (_ relay: String) -> RelayAuthenticator?
