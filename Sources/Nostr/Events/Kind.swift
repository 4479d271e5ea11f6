/// A NIP-01 event kind (0…65535), as an open set: unknown kinds round-trip unchanged.
public struct Kind: RawRepresentable, Sendable, Hashable, Codable, Comparable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    public let rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(_ rawValue: UInt16) { self.rawValue = rawValue }
    public init(integerLiteral value: UInt16) { self.rawValue = value }

    public var description: String { String(rawValue) }
    public static func < (lhs: Kind, rhs: Kind) -> Bool { lhs.rawValue < rhs.rawValue }

    public init(from decoder: Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(UInt16.self)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }

    // MARK: Well-known kinds

    /// NIP-01 user metadata.
    public static let metadata = Kind(0)
    /// NIP-01 short text note.
    public static let textNote = Kind(1)
    /// NIP-02 follow list.
    public static let contacts = Kind(3)
    /// NIP-09 deletion request.
    public static let deletion = Kind(5)
    /// NIP-C7 chat message (used inside Marmot group messages).
    public static let chatMessage = Kind(9)
    /// NIP-59 seal.
    public static let seal = Kind(13)
    /// NIP-17 private direct message (a rumor inside a gift wrap).
    public static let privateDirectMessage = Kind(14)
    /// NIP-25 reaction.
    public static let reaction = Kind(7)
    /// Marmot (MIP-00) KeyPackage event.
    public static let keyPackage = Kind(443)
    /// Marmot (MIP-02) Welcome rumor, delivered inside a gift wrap.
    public static let welcome = Kind(444)
    /// Marmot (MIP-03) group message.
    public static let groupMessage = Kind(445)
    /// NIP-59 gift wrap.
    public static let giftWrap = Kind(1059)
    /// NIP-65 relay list metadata.
    public static let relayList = Kind(10002)
    /// NIP-17 preferred DM relays.
    public static let dmRelays = Kind(10050)
    /// Marmot (MIP-00) KeyPackage relay list.
    public static let keyPackageRelays = Kind(10051)
    /// NIP-42 client authentication.
    public static let clientAuthentication = Kind(22242)
    /// Marmot addressable KeyPackage event (newer MIP-00 revision).
    public static let addressableKeyPackage = Kind(30443)

    // MARK: NIP-01 kind ranges

    /// Regular events, which relays store all of: NIP-01 names 1, 2, 4–44 and 1000–9999, and relays treat
    /// every other kind outside the replaceable, ephemeral and addressable ranges (e.g. 443–445) the same way.
    public var isRegular: Bool { !isReplaceable && !isEphemeral && !isAddressable }

    /// Replaceable events: relays keep only the latest per (pubkey, kind).
    public var isReplaceable: Bool { rawValue == 0 || rawValue == 3 || (10000..<20000).contains(rawValue) }

    /// Ephemeral events: relays forward but do not store them.
    public var isEphemeral: Bool { (20000..<30000).contains(rawValue) }

    /// Addressable events: relays keep only the latest per (pubkey, kind, `d` tag).
    public var isAddressable: Bool { (30000..<40000).contains(rawValue) }
}
