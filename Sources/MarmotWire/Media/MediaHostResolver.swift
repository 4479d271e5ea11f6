import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Looks up the addresses a host name has, so a media URL with a public-looking name that points
/// at a loopback or private address is refused before anything is requested (issue 28).
///
/// Why: `MediaURLPolicy.check` reads only the URL; a hostile sender can name `blobs.evil.example`
/// whose DNS record is `127.0.0.1` and make us request our own network. The name is resolved
/// (`getaddrinfo`, as the HTTP stack will) and every address must be public. A record that changes
/// between this look-up and the connection (DNS rebinding) is not caught here.
public struct MediaHostResolver: Sendable {
    /// The addresses of a name as raw bytes (4 for IPv4, 16 for IPv6); nil when it does not resolve.
    public let addresses: @Sendable (String) async -> [[UInt8]]?

    public init(addresses: @escaping @Sendable (String) async -> [[UInt8]]?) {
        self.addresses = addresses
    }

    /// The system resolver (`getaddrinfo`), run off the caller's thread (it blocks).
    public static let system = MediaHostResolver { host in
        await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async { continuation.resume(returning: lookUp(host)) }
        }
    }

    static func lookUp(_ host: String) -> [[UInt8]]? {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return nil }
        defer { freeaddrinfo(first) }
        var found: [[UInt8]] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            if let address = entry.pointee.ai_addr {
                switch Int32(address.pointee.sa_family) {
                case AF_INET:
                    address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                        var raw = v4.pointee.sin_addr
                        found.append(withUnsafeBytes(of: &raw) { Array($0) })
                    }
                case AF_INET6:
                    address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                        var raw = v6.pointee.sin6_addr
                        found.append(withUnsafeBytes(of: &raw) { Array($0) })
                    }
                default:
                    break
                }
            }
            cursor = entry.pointee.ai_next
        }
        return found
    }
}

extension MediaURLPolicy {
    /// `check(url)`, then, when the host is a name (not an address) and not one of the user's own
    /// servers, resolves it and refuses it unless every address is public (`.unsafeURL`), or when
    /// it does not resolve (`.invalidURL`).
    public func checkResolved(_ url: URL, resolver: MediaHostResolver = .system) async throws(MediaError) {
        try check(url)
        guard let host = Self.host(of: url), !isOwnServer(url), !Self.isAddressLiteral(host) else { return }
        guard let addresses = await resolver.addresses(host), !addresses.isEmpty else {
            throw .invalidURL("host \(host) does not resolve")
        }
        for address in addresses {
            let isPublic = address.count == 16 ? Self.isPublicIPv6(address) : address.count == 4 ? Self.isPublicIPv4(address) : false
            guard isPublic else {
                throw .unsafeURL("host \(host) resolves to \(Self.text(of: address)), not a public unicast address")
            }
        }
    }

    /// Whether `host` is written as an address (checked by `check` already).
    static func isAddressLiteral(_ host: String) -> Bool {
        var v6 = in6_addr(), v4 = in_addr()
        return inet_pton(AF_INET6, host, &v6) == 1 || inet_aton(host, &v4) != 0
    }

    static func text(of address: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = address.count == 16 ? AF_INET6 : AF_INET
        let ok = address.withUnsafeBytes { raw in inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)) != nil }
        return ok ? String(cString: buffer) : "an unreadable address"
    }
}
