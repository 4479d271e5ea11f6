import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where received media may be fetched from: http(s) URLs whose host is a public name or a public
/// unicast address. Loopback, private-network, link-local, CGNAT, multicast, documentation and
/// IPv6-transition addresses (in any notation a resolver accepts, e.g. `2130706433` or `0x7f.1`),
/// `localhost`, `*.localhost` and mDNS `*.local` names are refused, so a hostile `imeta` cannot
/// make us request our own network; except the user's own blob servers, matched by host and port.
/// The address set is MDK 0.9.14's (`traits/src/app_components/host_safety.rs`); a public name
/// that resolves to such an address is refused by `checkResolved` before a download.
public struct MediaURLPolicy: Sendable {
    /// The longest URL accepted (MDK `ENCRYPTED_MEDIA_ENDPOINT_URL_MAX_LEN`).
    public static let maxURLBytes = 2048

    private let ownHosts: Set<String>

    /// `ownServers`: the user's own blob servers; their host:port is allowed whatever its address.
    public init(ownServers: [URL]) {
        ownHosts = Set(ownServers.compactMap { Self.hostPort($0) })
    }

    /// Checks `url`; `.invalidURL` or `.unsafeURL` say why it is refused.
    public func check(_ url: URL) throws(MediaError) {
        guard url.absoluteString.utf8.count <= Self.maxURLBytes else {
            throw .invalidURL("longer than \(Self.maxURLBytes) bytes")
        }
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .invalidURL("scheme \(url.scheme ?? "none") is not http or https")
        }
        guard url.user == nil, url.password == nil else { throw .invalidURL("it carries credentials") }
        guard url.fragment == nil else { throw .invalidURL("it carries a fragment") }
        guard let host = Self.host(of: url), !host.isEmpty else { throw .invalidURL("it has no host") }
        if isOwnServer(url) { return }
        guard host.unicodeScalars.allSatisfy({ Self.hostCharacters.contains($0) }) else {
            throw .unsafeURL("host \(host) has characters a resolver may read differently")
        }
        if let why = Self.unsafeHost(host) { throw .unsafeURL("host \(host) is \(why)") }
    }

    /// Whether `url` is on one of the user's own blob servers (host and port).
    public func isOwnServer(_ url: URL) -> Bool {
        Self.hostPort(url).map { ownHosts.contains($0) } ?? false
    }

    /// Parses and checks a URL string.
    public func url(_ text: String) throws(MediaError) -> URL {
        guard !text.isEmpty else { throw .invalidURL("empty") }
        guard text.utf8.count <= Self.maxURLBytes else { throw .invalidURL("longer than \(Self.maxURLBytes) bytes") }
        guard let url = URL(string: text), url.scheme != nil else { throw .invalidURL("\(text) does not parse") }
        try check(url)
        return url
    }

    private static let hostCharacters = Set("abcdefghijklmnopqrstuvwxyz0123456789.-:".unicodeScalars)

    /// The host, lower-cased, without IPv6 brackets or a trailing root dot.
    static func host(of url: URL) -> String? {
        guard var host = url.host?.lowercased() else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.hasSuffix(".") { host.removeLast() }
        return host
    }

    static func hostPort(_ url: URL) -> String? {
        guard let host = host(of: url), let scheme = url.scheme?.lowercased() else { return nil }
        let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        return "\(host):\(port)"
    }

    /// Why `host` is not a public destination, or nil.
    static func unsafeHost(_ host: String) -> String? {
        if host == "localhost" || host.hasSuffix(".localhost") { return "a loopback name" }
        if host == "local" || host.hasSuffix(".local") { return "a local-network (mDNS) name" }
        var v6 = in6_addr()
        if host.contains(":") {
            guard inet_pton(AF_INET6, host, &v6) == 1 else { return "not a valid IPv6 address" }
            let bytes = withUnsafeBytes(of: &v6) { Array($0) }
            return isPublicIPv6(bytes) ? nil : "not a public unicast address"
        }
        var v4 = in_addr()
        // inet_aton reads every IPv4 notation a resolver does (decimal, octal, hex, short forms).
        if inet_aton(host, &v4) != 0 {
            let bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return isPublicIPv4(bytes) ? nil : "not a public unicast address"
        }
        if host.split(separator: ".").last.map({ $0.allSatisfy(\.isNumber) }) == true {
            return "a numeric name that is not an address"
        }
        return nil
    }

    /// MDK's `is_public_ipv4`.
    static func isPublicIPv4(_ b: [UInt8]) -> Bool {
        switch (b[0], b[1], b[2]) {
        case (0, _, _), (10, _, _), (127, _, _), (169, 254, _), (192, 168, _), (192, 0, 0), (192, 0, 2),
             (192, 88, 99), (198, 51, 100), (203, 0, 113):
            return false
        case (100, 64...127, _), (172, 16...31, _), (198, 18...19, _), (224...255, _, _):
            return false
        default:
            return true
        }
    }

    /// MDK's `is_public_ipv6`: IPv4-mapped by the IPv4 rule; loopback, unspecified, multicast,
    /// ULA, link-local, 2001::/23, 6to4, documentation refused; only 2000::/3 is public.
    static func isPublicIPv6(_ b: [UInt8]) -> Bool {
        if b[0..<10].allSatisfy({ $0 == 0 }), b[10] == 0xff, b[11] == 0xff { return isPublicIPv4(Array(b[12..<16])) }
        let first = UInt16(b[0]) << 8 | UInt16(b[1])
        let second = UInt16(b[2]) << 8 | UInt16(b[3])
        if b.allSatisfy({ $0 == 0 }) { return false }
        if b[0..<15].allSatisfy({ $0 == 0 }), b[15] == 1 { return false }
        if b[0] == 0xff { return false }
        if first & 0xfe00 == 0xfc00 || first & 0xffc0 == 0xfe80 { return false }
        if first == 0x2001, second <= 0x01ff { return false }
        if first == 0x2002 { return false }
        if first == 0x2001, second == 0x0db8 { return false }
        if first == 0x3fff, second & 0xf000 == 0 { return false }
        return first & 0xe000 == 0x2000
    }
}
