import Crypto
import Foundation

/// An HPKE (DHKEM X25519) private key (RFC 9420 §5.1.3): the 32-byte `SerializePrivateKey` form.
///
/// Not `Codable` and redacted when printed; `rawBytesForStorage` is the one deliberate way out.
public struct HPKEPrivateKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    let key: Curve25519.KeyAgreement.PrivateKey

    /// Loads a key from its 32 raw bytes.
    public init(rawBytes: Data) throws(MLSCryptoError) {
        guard rawBytes.count == 32 else {
            throw .invalidLength(what: "X25519 private key", expected: 32, actual: rawBytes.count)
        }
        do {
            key = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: rawBytes)
        } catch {
            throw .invalidPrivateKey
        }
    }

    private init(key: Curve25519.KeyAgreement.PrivateKey) { self.key = key }

    /// A fresh random key (KEM.GenerateKeyPair).
    public static func generate() -> HPKEPrivateKey { HPKEPrivateKey(key: .init()) }

    /// The matching public key.
    public var publicKey: HPKEPublicKey { HPKEPublicKey(key.publicKey.rawRepresentation) }

    /// The 32 raw bytes, for persisting the key encrypted at rest. Never log it.
    public var rawBytesForStorage: Data { key.rawRepresentation }

    public var description: String { "HPKEPrivateKey(redacted)" }
    public var debugDescription: String { description }
}

/// An HPKE public key (`opaque HPKEPublicKey<V>`, RFC 9420 §5.1.1): raw X25519 bytes, kept as bytes so
/// malformed keys round-trip and fail only when used.
public struct HPKEPublicKey: Hashable, Sendable, TLSCodable, CustomStringConvertible {
    public var bytes: Data
    public init(_ bytes: Data) { self.bytes = bytes }

    public var description: String { "HPKEPublicKey(\(LowerHex.encode(bytes)))" }

    public func encode(to writer: inout TLSWriter) { writer.writeOpaque(bytes) }
    public init(from reader: inout TLSReader) throws { bytes = try reader.readOpaque() }
}

extension CipherSuiteProvider {
    /// DHKEM(X25519, HKDF-SHA256): kem_id 0x0020 (RFC 9180 §7.1).
    static let kemSuiteID: [UInt8] = Array("KEM".utf8) + [0x00, 0x20]
    static let hpkeVersionLabel: [UInt8] = Array("HPKE-v1".utf8)

    /// KEM.DeriveKeyPair(ikm) for X25519 (RFC 9180 §7.1.3): the private key is
    /// LabeledExpand(LabeledExtract("", "dkp_prk", ikm), "sk", "", 32); its `publicKey` is the pair's
    /// public half. Used for path secrets, node keys and external_pub (RFC 9420 §7.4, §8).
    public func deriveKeyPair<I: DataProtocol>(ikm: I) throws(MLSCryptoError) -> HPKEPrivateKey {
        let labeledIKM = Self.hpkeVersionLabel + Self.kemSuiteID + Array("dkp_prk".utf8) + Array(ikm)
        let prk = extract(salt: Data(), ikm: labeledIKM)
        var info = TLSWriter()
        info.write(UInt16(32))
        info.writeFixed(Self.hpkeVersionLabel + Self.kemSuiteID + Array("sk".utf8))
        let secret = expandUnchecked(prk: prk, info: info.bytes, length: 32)
        return try HPKEPrivateKey(rawBytes: secret)
    }

    /// KEM.GenerateKeyPair: a fresh random X25519 key.
    public func generateKeyPair() -> HPKEPrivateKey { .generate() }

    /// A fresh random Ed25519 signing key.
    public func generateSignatureKey() -> SignaturePrivateKey { .generate() }
}
