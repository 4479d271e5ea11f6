/// NIP-42 client authentication events (kind 22242).
extension UnsignedEvent {
    /// The event a client signs to answer a relay's `AUTH` challenge.
    public static func authentication(pubkey: PublicKey, relay: String, challenge: String,
                                      createdAt: Int64 = UnsignedEvent.now()) -> UnsignedEvent {
        UnsignedEvent(pubkey: pubkey, createdAt: createdAt, kind: .clientAuthentication,
                      tags: [["relay", relay], ["challenge", challenge]], content: "")
    }
}

extension Event {
    /// For relays: true when this is a valid NIP-42 answer to `challenge` for `relay`, signed within
    /// `window` seconds of `now`. Relay URLs are compared exactly; normalise them before calling.
    public func isAuthentication(challenge: String, relay: String, now: Int64 = UnsignedEvent.now(),
                                 window: Int64 = 600) -> Bool {
        guard kind == .clientAuthentication, abs(createdAt - now) <= window else { return false }
        guard tags.firstValue(named: "challenge") == challenge, tags.firstValue(named: "relay") == relay else { return false }
        return isValid
    }
}
