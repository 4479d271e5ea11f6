import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether a relay URL that came from someone else (a group's relays, a peer's 10002/10050/10051
/// lists, a key package's `relays` tag, an nprofile's hints) may be contacted (issue 26).
///
/// Why: connecting is an act on the user's network. A group admin who names
/// `ws://127.0.0.1:631/anything` makes every member send a WebSocket upgrade, with a path of the
/// admin's choice, to a port on the member's own machine; `ws://192.168.1.1/` reaches the member's
/// router. So hosts on a local network class (loopback, private, carrier-grade NAT, link-local,
/// `.local`) are refused unless one of the user's own relays is on that same class (then the user
/// already uses that network for Nostr, as in tests and `make run` on loopback); the unspecified
/// address is always refused; a plaintext `ws://` URL to a public host is refused unless
/// `allowsPlaintextPublic` (its traffic and the relay's answers are readable and changeable on path).
///
/// Hosts are classified as written: an IP literal (IPv4 in any `inet_aton` form such as `127.1` or
/// `0x7f000001`, IPv6 including IPv4-mapped and IPv4-compatible forms) or a name (`localhost`,
/// `*.localhost` loopback, `*.local` mDNS); other names count as public. A public name whose DNS
/// answer is a private address is not caught here (that needs the resolver's answer).
public struct RelayDestinationPolicy: Sendable, Hashable {
    /// The network a relay host is on.
    public enum NetworkClass: String, Sendable, Hashable, CaseIterable {
        case loopback
        /// RFC 1918, RFC 6598 (100.64/10) and IPv6 unique local (fc00::/7).
        case privateNetwork = "private"
        case linkLocal = "link-local"
        /// An mDNS `.local` name (RFC 6762).
        case mDNS = "local"
        /// 0.0.0.0, :: (connecting there reaches this machine on many systems).
        case unspecified
        case `public`
    }

    /// Why a URL is refused.
    public enum Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        case notRelayURL
        case localNetwork(NetworkClass)
        case plaintextPublic

        public var description: String {
            switch self {
            case .notRelayURL: "not a ws:// or wss:// URL with a host"
            case .localNetwork(let network): "\(network.rawValue) address, and none of our relays is on that network"
            case .plaintextPublic: "plaintext ws:// to a public host"
            }
        }
    }

    /// The local network classes the user's own relays are on (allowed for others' URLs too).
    public let ownNetworks: Set<NetworkClass>
    /// Whether `ws://` to a public host is allowed (it is when one of our own relays is one).
    public let allowsPlaintextPublic: Bool

    /// The policy for a user whose own relays are `own`.
    public init(own: [RelayURL], allowsPlaintextPublic: Bool = false) {
        var networks: Set<NetworkClass> = []
        var plaintext = allowsPlaintextPublic
        for relay in own {
            guard let parts = Self.parts(relay.string) else { continue }
            let network = Self.classify(host: parts.host)
            if network != .public && network != .unspecified { networks.insert(network) }
            if network == .public && parts.scheme == "ws" { plaintext = true }
        }
        ownNetworks = networks
        self.allowsPlaintextPublic = plaintext
    }

    /// nil when `url` may be contacted, else why not.
    public func refusal(_ url: RelayURL) -> Refusal? {
        guard let parts = Self.parts(url.string) else { return .notRelayURL }
        let network = Self.classify(host: parts.host)
        switch network {
        case .public:
            return parts.scheme == "ws" && !allowsPlaintextPublic ? .plaintextPublic : nil
        case .unspecified:
            return .localNetwork(.unspecified)
        default:
            return ownNetworks.contains(network) ? nil : .localNetwork(network)
        }
    }

    /// Whether `url` may be contacted.
    public func allows(_ url: RelayURL) -> Bool { refusal(url) == nil }

    /// `urls` that may be contacted, de-duplicated (a bare trailing `/` does not make another
    /// relay), in order, at most `limit`; `refused` is told each one left out by the policy.
    public func filter(_ urls: [RelayURL], limit: Int = .max, refused: (RelayURL, Refusal) -> Void = { _, _ in }) -> [RelayURL] {
        var out: [RelayURL] = []
        var seen: Set<String> = []
        for url in urls where out.count < limit {
            guard seen.insert(Self.sameRelayKey(url)).inserted else { continue }
            if let why = refusal(url) {
                refused(url, why)
            } else {
                out.append(url)
            }
        }
        return out
    }

    /// A URL as it may appear in a log line: control characters dropped, at most 120 characters
    /// (the text came from someone else).
    public static func loggable(_ url: RelayURL) -> String {
        let clean = String(String.UnicodeScalarView(url.string.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }))
        return clean.count > 120 ? String(clean.prefix(117)) + "..." : clean
    }

    /// `relay` without a bare trailing `/`: `ws://h:1` and `ws://h:1/` are one relay.
    public static func sameRelayKey(_ relay: RelayURL) -> String {
        let text = relay.string
        guard text.hasSuffix("/"), let scheme = text.range(of: "://"),
              text[scheme.upperBound...].firstIndex(of: "/") == text.index(before: text.endIndex)
        else { return text }
        return String(text.dropLast())
    }

    // MARK: Classification

    /// The scheme (lower-case) and host (without IPv6 brackets, lower-case, no trailing dot).
    static func parts(_ text: String) -> (scheme: String, host: String)? {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              scheme == "ws" || scheme == "wss", var host = components.host?.lowercased(), !host.isEmpty
        else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        while host.hasSuffix(".") { host.removeLast() }
        if let zone = host.firstIndex(of: "%") { host = String(host[..<zone]) }  // fe80::1%eth0
        guard !host.isEmpty else { return nil }
        return (scheme, host)
    }

    /// The network class of a host as written (see the type's notes).
    public static func classify(host: String) -> NetworkClass {
        let host = host.lowercased()
        if host == "localhost" || host.hasSuffix(".localhost") { return .loopback }
        if host.hasSuffix(".local") || host == "local" { return .mDNS }
        if host.contains(":") {
            var v6 = in6_addr()
            guard inet_pton(AF_INET6, host, &v6) == 1 else { return .public }
            return classify(v6: withUnsafeBytes(of: &v6) { Array($0) })
        }
        var v4 = in_addr()
        // inet_aton takes every form a resolver may accept: 127.1, 0x7f.1, 2130706433, 0177.0.0.1.
        guard host.allSatisfy({ $0.isHexDigit || $0 == "." || $0 == "x" }), inet_aton(host, &v4) != 0 else {
            return .public
        }
        return classify(v4: withUnsafeBytes(of: &v4.s_addr) { Array($0) })
    }

    static func classify(v4 b: [UInt8]) -> NetworkClass {
        guard b.count == 4 else { return .public }
        switch (b[0], b[1]) {
        case (0, _): return b == [0, 0, 0, 0] ? .unspecified : .privateNetwork  // 0/8: "this network"
        case (127, _): return .loopback
        case (10, _): return .privateNetwork
        case (172, 16...31): return .privateNetwork
        case (192, 168): return .privateNetwork
        case (100, 64...127): return .privateNetwork
        case (169, 254): return .linkLocal
        default: return .public
        }
    }

    static func classify(v6 b: [UInt8]) -> NetworkClass {
        guard b.count == 16 else { return .public }
        if b.allSatisfy({ $0 == 0 }) { return .unspecified }
        if b[0..<15].allSatisfy({ $0 == 0 }) && b[15] == 1 { return .loopback }
        // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible, deprecated), 64:ff9b::a.b.c.d (NAT64).
        if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xFF && b[11] == 0xFF { return classify(v4: Array(b[12..<16])) }
        if b[0..<12].allSatisfy({ $0 == 0 }) { return classify(v4: Array(b[12..<16])) }
        if b[0..<12] == [0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0] { return classify(v4: Array(b[12..<16])) }
        if b[0] & 0xFE == 0xFC { return .privateNetwork }
        if b[0] == 0xFE && b[1] & 0xC0 == 0x80 { return .linkLocal }
        return .public
    }
}
