/// Relay connectivity of the session, for a status line (bible §4: the core owns display strings).
///
/// `keyPackagePublished` tells whether others can start a chat with this account yet (MIP-00):
/// nil until the session's first publication attempt has ended.
public struct NetworkState: Sendable, Equatable {
    public var connectedRelays: Int
    public var totalRelays: Int
    public var keyPackagePublished: Bool?
    /// "2 of 3 relays connected", "Connecting to 1 relay…", "Offline" — ready to show.
    public var statusText: String

    public init(connectedRelays: Int = 0, totalRelays: Int = 0, keyPackagePublished: Bool? = nil) {
        self.connectedRelays = connectedRelays
        self.totalRelays = totalRelays
        self.keyPackagePublished = keyPackagePublished
        statusText = Self.text(connected: connectedRelays, total: totalRelays)
    }

    /// At least one relay is connected.
    public var isOnline: Bool { connectedRelays > 0 }

    static func text(connected: Int, total: Int) -> String {
        let noun = total == 1 ? "relay" : "relays"
        if total == 0 { return "No relays" }
        if connected == 0 { return "Offline: connecting to \(total) \(noun)…" }
        return "\(connected) of \(total) \(noun) connected"
    }
}
