import Crypto
import Foundation

/// A NIP-01 event without a signature; with its id it is a NIP-59 *rumor*.
///
/// The id is always computed from the fields, so it can never disagree with them.
public struct UnsignedEvent: Sendable, Hashable, Codable {
    public var pubkey: PublicKey
    /// Unix time in seconds.
    public var createdAt: Int64
    public var kind: Kind
    public var tags: [Tag]
    public var content: String

    public init(pubkey: PublicKey, createdAt: Int64 = UnsignedEvent.now(), kind: Kind, tags: [Tag] = [], content: String) {
        self.pubkey = pubkey
        self.createdAt = createdAt
        self.kind = kind
        self.tags = tags
        self.content = content
    }

    /// The current Unix time in seconds.
    public static func now() -> Int64 { Int64(Date().timeIntervalSince1970) }

    /// The NIP-01 id preimage `[0,pubkey,created_at,kind,tags,content]` as UTF-8 bytes.
    public func canonicalSerialization() -> [UInt8] {
        var w = JSONWriter()
        w.raw("[0,")
        w.string(pubkey.hex)
        w.byte(UInt8(ascii: ","))
        w.integer(createdAt)
        w.byte(UInt8(ascii: ","))
        w.integer(kind.rawValue)
        w.byte(UInt8(ascii: ","))
        w.tags(tags)
        w.byte(UInt8(ascii: ","))
        w.string(content)
        w.byte(UInt8(ascii: "]"))
        return w.bytes
    }

    /// The event id: SHA-256 of the canonical serialization (NIP-01).
    public var id: EventID { EventID(uncheckedBytes: Array(SHA256.hash(data: canonicalSerialization()))) }

    /// Signs the event; the keys must belong to `pubkey`.
    public func signed(with keys: Keys) throws -> Event {
        guard keys.publicKey == pubkey else { throw EventError.malformed("signing keys do not match the event pubkey") }
        let id = self.id
        let sig = Schnorr.sign(message: id.bytes, keypair: keys.keypair)
        return Event(id: id, pubkey: pubkey, createdAt: createdAt, kind: kind, tags: tags, content: content, sig: sig)
    }

    /// Signs with fixed auxiliary randomness (deterministic; tests only).
    func signed(with keys: Keys, auxRand: [UInt8]) -> Event {
        let id = self.id
        let sig = Schnorr.sign(message: id.bytes, keypair: keys.keypair, auxRand: auxRand)
        return Event(id: id, pubkey: pubkey, createdAt: createdAt, kind: kind, tags: tags, content: content, sig: sig)
    }

    private enum CodingKeys: String, CodingKey {
        case id, pubkey, kind, tags, content
        case createdAt = "created_at"
    }

    /// Decodes a rumor; an `id`, if present, must match the fields.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            pubkey: try c.decode(PublicKey.self, forKey: .pubkey),
            createdAt: try c.decode(Int64.self, forKey: .createdAt),
            kind: try c.decode(Kind.self, forKey: .kind),
            tags: try c.decode([Tag].self, forKey: .tags),
            content: try c.decode(String.self, forKey: .content))
        if let given = try c.decodeIfPresent(EventID.self, forKey: .id), given != id { throw EventError.invalidID }
    }

    /// Encodes as a rumor: all fields plus `id`, no `sig`.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(pubkey, forKey: .pubkey)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encode(kind, forKey: .kind)
        try c.encode(tags, forKey: .tags)
        try c.encode(content, forKey: .content)
    }
}

/// NIP-59 name for an unsigned event with an id.
public typealias Rumor = UnsignedEvent

extension JSONWriter {
    /// Appends a tag list as an array of string arrays.
    mutating func tags(_ tags: [Tag]) {
        byte(UInt8(ascii: "["))
        for (i, t) in tags.enumerated() {
            if i > 0 { byte(UInt8(ascii: ",")) }
            stringArray(t.fields)
        }
        byte(UInt8(ascii: "]"))
    }
}
