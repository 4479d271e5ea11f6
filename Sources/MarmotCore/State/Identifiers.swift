/// Identifies one chat (for Marmot, the hex group id the messaging layer assigns).
///
/// String-backed so it crosses to any UI unchanged, but typed so a chat id cannot be passed where a
/// message id is expected.
public struct ChatID: RawRepresentable, Hashable, Sendable, Codable, Comparable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    public var description: String { rawValue }

    public static func < (lhs: ChatID, rhs: ChatID) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Identifies one message within the app; stable from the optimistic pending state to sent/failed.
public struct MessageID: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    public var description: String { rawValue }

    /// A fresh random id (128 bits, lower-case hex) for a message composed on this device.
    public static func generate() -> MessageID {
        var rng = SystemRandomNumberGenerator()
        let high = rng.next() as UInt64
        let low = rng.next() as UInt64
        return MessageID(hex16(high) + hex16(low))
    }

    private static func hex16(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

/// Identifies one pending invitation (for Marmot, the hex MLS group id of the group it invites to).
public struct InviteID: RawRepresentable, Hashable, Sendable, Codable, Comparable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    public var description: String { rawValue }

    public static func < (lhs: InviteID, rhs: InviteID) -> Bool { lhs.rawValue < rhs.rawValue }
}
