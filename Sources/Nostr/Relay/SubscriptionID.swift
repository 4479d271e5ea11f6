/// A NIP-01 subscription id: a non-empty string of at most 64 characters chosen by the client.
public struct SubscriptionID: RawRepresentable, Sendable, Hashable, Codable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String

    /// Wraps any string; use `isValid` (or the relay-message parsers, which check) for NIP-01 limits.
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    /// NIP-01 limits: non-empty and at most 64 characters.
    public var isValid: Bool { !rawValue.isEmpty && rawValue.count <= 64 }

    /// A random 32-hex-character id.
    public static func random() -> SubscriptionID { SubscriptionID(Hex.encode(SecureRandom.bytes(16))) }

    public var description: String { rawValue }

    public init(from decoder: Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
}
