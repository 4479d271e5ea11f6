/// A signed NIP-01 event.
///
/// The memberwise initializer does not check anything; use `verify()` (or decode through
/// `Event(json:)`, which verifies by default) before trusting an event from the network.
public struct Event: Sendable, Hashable, Codable {
    public let id: EventID
    public let pubkey: PublicKey
    /// Unix time in seconds.
    public let createdAt: Int64
    public let kind: Kind
    public let tags: [Tag]
    public let content: String
    public let sig: Signature

    public init(id: EventID, pubkey: PublicKey, createdAt: Int64, kind: Kind, tags: [Tag], content: String, sig: Signature) {
        self.id = id
        self.pubkey = pubkey
        self.createdAt = createdAt
        self.kind = kind
        self.tags = tags
        self.content = content
        self.sig = sig
    }

    /// The event without its signature (and with a recomputed id).
    public var unsigned: UnsignedEvent {
        UnsignedEvent(pubkey: pubkey, createdAt: createdAt, kind: kind, tags: tags, content: content)
    }

    /// Checks that `id` matches the content and `sig` is a valid BIP-340 signature of it by `pubkey`.
    public func verify() throws {
        guard unsigned.id == id else { throw EventError.invalidID }
        guard Schnorr.verify(signature: sig, message: id.bytes, publicKey: pubkey) else { throw EventError.invalidSignature }
    }

    /// True when `verify()` succeeds.
    public var isValid: Bool { (try? verify()) != nil }

    /// The first value of the first tag called `name`.
    public func firstTagValue(_ name: String) -> String? { tags.firstValue(named: name) }

    /// The first value of every tag called `name`.
    public func tagValues(_ name: String) -> [String] { tags.values(named: name) }

    /// The `d` tag value of an addressable event ("" when absent, as NIP-01 specifies).
    public var identifier: String { tags.firstValue(named: "d") ?? "" }

    private enum CodingKeys: String, CodingKey {
        case id, pubkey, kind, tags, content, sig
        case createdAt = "created_at"
    }

    /// Decodes the fields and checks their formats; does not verify id or signature.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try c.decode(EventID.self, forKey: .id),
            pubkey: try c.decode(PublicKey.self, forKey: .pubkey),
            createdAt: try c.decode(Int64.self, forKey: .createdAt),
            kind: try c.decode(Kind.self, forKey: .kind),
            tags: try c.decode([Tag].self, forKey: .tags),
            content: try c.decode(String.self, forKey: .content),
            sig: try c.decode(Signature.self, forKey: .sig))
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(pubkey, forKey: .pubkey)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encode(kind, forKey: .kind)
        try c.encode(tags, forKey: .tags)
        try c.encode(content, forKey: .content)
        try c.encode(sig, forKey: .sig)
    }
}
