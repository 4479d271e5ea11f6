import Foundation

/// A relay URL reduced to what a NIP-42 `relay` tag is compared on: its host and port.
///
/// Why: NIP-42 ("Signed Event Verification") lets a relay normalise URLs and says the domain name
/// is mostly enough, so the scheme, a trailing slash, case and the default port do not matter, and
/// the loopback names (`127.0.0.1`, `localhost`, `::1`) are one host.
struct RelayAddress: Sendable, Equatable {
    /// Lower case, without IPv6 brackets; nil: any host (a relay bound to all interfaces).
    var host: String?
    /// Explicit, or the scheme's default (80 for ws/http, 443 for wss/https).
    var port: Int

    init(host: String?, port: Int) {
        self.host = host.map(Self.normalize)
        self.port = port
    }

    /// Parses `ws://`, `wss://`, `http://` or `https://` URLs; nil for anything else.
    init?(url: String) {
        guard let components = URLComponents(string: url.trimmingCharacters(in: .whitespaces)),
              let scheme = components.scheme?.lowercased(), let host = components.host, !host.isEmpty
        else { return nil }
        let defaultPort: Int
        switch scheme {
        case "ws", "http": defaultPort = 80
        case "wss", "https": defaultPort = 443
        default: return nil
        }
        self.init(host: host, port: components.port ?? defaultPort)
    }

    /// The address a relay bound to `host:port` is reached on: any host when `host` is a wildcard.
    static func bound(host: String, port: Int) -> RelayAddress {
        let wildcard: Set<String> = ["0.0.0.0", "::", "[::]", ""]
        return RelayAddress(host: wildcard.contains(host) ? nil : host, port: port)
    }

    /// True when a `relay` tag naming `claimed` names this relay.
    func accepts(_ claimed: RelayAddress) -> Bool {
        guard claimed.port == port else { return false }
        guard let host, let other = claimed.host else { return true }
        return host == other || (Self.loopback.contains(host) && Self.loopback.contains(other))
    }

    static let loopback: Set<String> = ["127.0.0.1", "localhost", "::1"]

    private static func normalize(_ host: String) -> String {
        var text = host.lowercased()
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
