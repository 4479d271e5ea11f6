/// One NIP-01 tag: a non-empty-by-convention array of strings whose first element is the name.
public struct Tag: Sendable, Hashable, Codable, ExpressibleByArrayLiteral, CustomStringConvertible {
    /// All elements, name first.
    public var fields: [String]

    public init(_ fields: [String]) { self.fields = fields }
    public init(arrayLiteral elements: String...) { self.fields = elements }

    /// The tag name (`e`, `p`, `d`, …), or nil for an empty tag.
    public var name: String? { fields.first }

    /// The first value after the name, or nil.
    public var value: String? { fields.count > 1 ? fields[1] : nil }

    /// The element at `index`, or nil when out of range.
    public subscript(index: Int) -> String? { fields.indices.contains(index) ? fields[index] : nil }

    public var description: String { fields.description }

    public init(from decoder: Decoder) throws { fields = try decoder.singleValueContainer().decode([String].self) }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(fields)
    }

    /// `["p", <hex>, <relay>?]`: a reference to a public key.
    public static func pubkey(_ key: PublicKey, relay: String? = nil) -> Tag {
        Tag(["p", key.hex] + (relay.map { [$0] } ?? []))
    }

    /// `["e", <hex>, <relay>?]`: a reference to an event.
    public static func event(_ id: EventID, relay: String? = nil) -> Tag {
        Tag(["e", id.hex] + (relay.map { [$0] } ?? []))
    }

    /// `["d", <identifier>]`: the identifier of an addressable event.
    public static func identifier(_ value: String) -> Tag { Tag(["d", value]) }
}

/// Lookups over an event's tag list.
extension Array where Element == Tag {
    /// The first value of the first tag called `name`.
    public func firstValue(named name: String) -> String? {
        first(where: { $0.name == name })?.value
    }

    /// The first value of every tag called `name`, in order.
    public func values(named name: String) -> [String] {
        compactMap { $0.name == name ? $0.value : nil }
    }

    /// Every tag called `name`.
    public func tags(named name: String) -> [Tag] {
        filter { $0.name == name }
    }
}
