import CSecp256k1

/// A secp256k1 secret key (32 bytes, 1 ≤ k < n), the private half of a Nostr identity.
///
/// Deliberately not `Codable` and printed as `SecretKey(redacted)` so it never leaks into logs, JSON
/// or `dump`; export goes only through the explicit `nsecEncoded()` / `hexEncodedSecret()` methods.
public struct SecretKey: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The raw 32-byte scalar, big-endian.
    let bytes: [UInt8]

    /// Wraps 32 bytes after checking they are a valid scalar.
    public init<Bytes: Collection>(bytes: Bytes) throws where Bytes.Element == UInt8 {
        let raw = Array(bytes)
        guard raw.count == 32 else { throw KeyError.invalidLength(expected: 32, actual: raw.count) }
        guard secp256k1_ec_seckey_verify(Secp256k1Context.shared.raw, raw) == 1 else { throw KeyError.invalidSecretKey }
        self.bytes = raw
    }

    /// Imports 64 hex characters (either case is accepted, since this is typed-in user input).
    public init(hex: String) throws {
        guard let raw = Hex.decode(hex, allowUppercase: true) else { throw KeyError.invalidHex }
        try self.init(bytes: raw)
    }

    /// Imports a NIP-19 `nsec1…` string.
    public init(nsec: String) throws {
        let raw: [UInt8]
        do { raw = try NIP19.decodeBare(nsec, expecting: .nsec) } catch let e as NIP19Error { throw KeyError.nip19(e) }
        try self.init(bytes: raw)
    }

    /// Generates a fresh key from the system CSPRNG.
    public static func generate() -> SecretKey {
        while true {
            // A random 256-bit value is out of range with probability < 2^-127; retry then.
            if let key = try? SecretKey(bytes: SecureRandom.bytes(32)) { return key }
        }
    }

    /// The x-only public key (BIP-340).
    public var publicKey: PublicKey { SchnorrKeypair(self).publicKey }

    /// Exports the key as a NIP-19 `nsec1…` string. Handle the result as a secret.
    public func nsecEncoded() -> String { NIP19.encodeBare(.nsec, bytes) }

    /// Exports the key as 64 lower-case hex characters. Handle the result as a secret.
    public func hexEncodedSecret() -> String { Hex.encode(bytes) }

    /// Constant-time equality, so comparing keys leaks no timing about their bytes.
    public static func == (lhs: SecretKey, rhs: SecretKey) -> Bool {
        constantTimeEqual(lhs.bytes, rhs.bytes)
    }

    public var description: String { "SecretKey(redacted)" }
    public var debugDescription: String { "SecretKey(redacted)" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

/// Compares two byte arrays in time that depends only on their lengths.
func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    var diff: UInt8 = 0
    for i in 0..<a.count { diff |= a[i] ^ b[i] }
    return diff == 0
}
