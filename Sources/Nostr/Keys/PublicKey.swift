import CSecp256k1

/// A BIP-340 x-only secp256k1 public key: the 32-byte Nostr identity (NIP-01 `pubkey`).
///
/// Construction checks that the bytes are the x coordinate of a curve point, so every `PublicKey`
/// can be used for verification and ECDH. Encoded as lower-case hex (JSON) or `npub1…` (NIP-19).
public struct PublicKey: Sendable, Hashable, Comparable, HexStringCodable {
    /// The 32 x-coordinate bytes.
    public let bytes: [UInt8]

    init(uncheckedBytes: [UInt8]) { self.bytes = uncheckedBytes }

    /// Wraps 32 bytes after checking they name a curve point.
    public init<Bytes: Collection>(bytes: Bytes) throws where Bytes.Element == UInt8 {
        let raw = Array(bytes)
        guard raw.count == 32 else { throw KeyError.invalidLength(expected: 32, actual: raw.count) }
        var xonly = secp256k1_xonly_pubkey()
        guard secp256k1_xonly_pubkey_parse(Secp256k1Context.shared.raw, &xonly, raw) == 1 else {
            throw KeyError.invalidPublicKey
        }
        self.bytes = raw
    }

    /// Parses 64 lower-case hex characters (upper case is rejected, as NIP-01 requires).
    public init(hex: String) throws {
        guard let raw = Hex.decode(hex, count: 32) else {
            throw hex.utf8.count == 64 ? KeyError.invalidHex : KeyError.invalidLength(expected: 32, actual: hex.utf8.count / 2)
        }
        try self.init(bytes: raw)
    }

    /// Parses a NIP-19 `npub1…` string.
    public init(npub: String) throws {
        let raw: [UInt8]
        do { raw = try NIP19.decodeBare(npub, expecting: .npub) } catch let e as NIP19Error { throw KeyError.nip19(e) }
        try self.init(bytes: raw)
    }

    /// The NIP-19 `npub1…` form, for display to people.
    public var npub: String { NIP19.encodeBare(.npub, bytes) }

    public static func < (lhs: PublicKey, rhs: PublicKey) -> Bool { lhs.bytes.lexicographicallyPrecedes(rhs.bytes) }
}
