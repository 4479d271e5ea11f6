import Foundation

/// A Nostr relay address: a `ws://` or `wss://` URL with a host (MIP-00..02 `relays` tags, §3.2 field).
///
/// Scheme and host are lower-cased; the rest is kept as given (a trailing `/` stays only if the input
/// had it), which is how MDK's relay URL type prints parsed input (marmot-wire §2.4).
public struct RelayURL: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The normalised URL text.
    public let string: String

    /// Parses and normalises a relay URL; throws `RelayURLError` when it is not a ws/wss URL with a host.
    public init(_ text: String) throws(RelayURLError) {
        guard !text.isEmpty, !text.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 }) else {
            throw .invalid(text)
        }
        guard let separator = text.range(of: "://") else { throw .invalid(text) }
        let scheme = text[..<separator.lowerBound].lowercased()
        guard scheme == "ws" || scheme == "wss" else { throw .unsupportedScheme(text) }
        let rest = text[separator.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd].lowercased()
        let normalised = scheme + "://" + authority + rest[authorityEnd...]
        guard let components = URLComponents(string: normalised), let host = components.host, !host.isEmpty else {
            throw .invalid(text)
        }
        string = normalised
    }

    public var description: String { string }

    public static func < (lhs: RelayURL, rhs: RelayURL) -> Bool { lhs.string < rhs.string }

    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do { try self.init(text) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(string)
    }
}

/// Why a string is not a relay URL.
public enum RelayURLError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not a URL with a host (empty, whitespace, missing `://` or host).
    case invalid(String)
    /// A URL whose scheme is not `ws` or `wss`.
    case unsupportedScheme(String)

    public var description: String {
        switch self {
        case .invalid(let s): "relay URL: not a URL with a host: \(s)"
        case .unsupportedScheme(let s): "relay URL: scheme must be ws or wss: \(s)"
        }
    }
}
