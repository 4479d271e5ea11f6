import Nostr

/// The `d` tag of a kind-30443 KeyPackage event: 32 random bytes as 64 lower-case hex characters
/// (MIP-00 as MDK 0.8.0; marmot-wire §2.4). Reusing it when rotating makes relays replace the old event.
public struct KeyPackageDTag: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The 64 hex characters, lower case.
    public let value: String

    /// Validates 64 hex characters (either case, as MDK accepts) and lower-cases them.
    public init(_ value: String) throws(KeyPackageEventError) {
        guard value.utf8.count == 64, Hex.decode(value, allowUppercase: true) != nil else { throw .invalidDTag(value) }
        self.value = value.lowercased()
    }

    /// A fresh random identifier.
    public static func random() -> KeyPackageDTag {
        var rng = SystemRandomNumberGenerator()
        return KeyPackageDTag(unchecked: Hex.encode((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &rng) }))
    }

    private init(unchecked: String) { value = unchecked }

    public var description: String { value }

    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do { try self.init(text) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(value)
    }
}
