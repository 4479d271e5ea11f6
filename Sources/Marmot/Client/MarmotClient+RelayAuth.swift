import Nostr
import NostrClient

/// The NIP-42 key policy (README "Security model"): which key a relay's `AUTH` challenge is answered
/// with is a privacy choice, since the relay learns who connects.
extension MarmotClient {
    /// Whether `url` is one of the relays the user chose (ours, which are also our inbox relays).
    public func isOwnRelay(_ url: String) -> Bool {
        relays.contains { $0.string == url }
    }

    /// Answers each relay's NIP-42 challenge with the account key when the user chose that relay
    /// (`isOwnRelay`, asked at each answer, so a relay added or removed later is judged as it is
    /// then), and with a fresh throw-away key on relays others chose (group relays, a peer's inbox
    /// relays): a relay that needs only some AUTH works, and never learns the account there.
    public static func relayAuthPolicy(
        keys: Keys, isOwnRelay: @escaping @Sendable (String) async -> Bool
    ) -> RelayAuthPolicy {
        let account = RelayAuthenticator.signing(with: keys)
        return { url in
            RelayAuthenticator { relay, challenge in
                let authenticator = await isOwnRelay(url) ? account : RelayAuthenticator.throwaway
                return await authenticator.answer(relay: relay, challenge: challenge)
            }
        }
    }
}
