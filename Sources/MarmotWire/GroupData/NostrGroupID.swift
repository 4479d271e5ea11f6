import Foundation
import Nostr

/// Marmot's public group identifier: 32 random bytes kept in the 0xF2EE extension and published only
/// as the 64-hex `h` tag of kind-445 events (MIP-01, MIP-03; marmot-wire §1).
///
/// Distinct from the MLS group id (`MLS.GroupID`), which is never published.
public struct NostrGroupID: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public static let byteCount = 32

    /// The 32 bytes.
    public let bytes: [UInt8]

    /// Wraps exactly 32 bytes.
    public init<Bytes: Collection>(bytes: Bytes) throws(NostrGroupIDError) where Bytes.Element == UInt8 {
        let raw = Array(bytes)
        guard raw.count == Self.byteCount else { throw .invalidLength(raw.count) }
        self.bytes = raw
    }

    /// Parses 64 hex characters, either case (MDK decodes hex case-insensitively, marmot-wire §1).
    public init(hex: String) throws(NostrGroupIDError) {
        guard hex.utf8.count == 2 * Self.byteCount, let raw = Hex.decode(hex, allowUppercase: true) else {
            throw .invalidHex
        }
        self.bytes = raw
    }

    /// 32 fresh random bytes, as MDK picks for a new group (marmot-wire §3.3).
    public static func random() -> NostrGroupID {
        var rng = SystemRandomNumberGenerator()
        return NostrGroupID(uncheckedBytes: (0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &rng) })
    }

    init(uncheckedBytes: [UInt8]) { bytes = uncheckedBytes }

    /// Lower-case hex: the `h` tag value.
    public var hex: String { Hex.encode(bytes) }

    public var description: String { hex }

    public static func < (lhs: NostrGroupID, rhs: NostrGroupID) -> Bool { lhs.bytes.lexicographicallyPrecedes(rhs.bytes) }

    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do { try self.init(hex: text) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(hex)
    }
}

/// Why bytes or text are not a nostr_group_id.
public enum NostrGroupIDError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidLength(Int)
    case invalidHex

    public var description: String {
        switch self {
        case .invalidLength(let n): "nostr group id: expected 32 bytes, got \(n)"
        case .invalidHex: "nostr group id: expected 64 hex characters"
        }
    }
}
