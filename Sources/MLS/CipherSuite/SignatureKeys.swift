import Crypto
import Foundation

/// An Ed25519 signing key (RFC 9420 §5.1.2), built from its 32-byte seed (RFC 8032).
///
/// Not `Codable` and redacted when printed; `rawBytesForStorage` is the one deliberate way out,
/// for the encrypted key store.
public struct SignaturePrivateKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    let key: Curve25519.Signing.PrivateKey

    /// Loads a key from its 32-byte seed.
    public init(seed: Data) throws(MLSCryptoError) {
        guard seed.count == 32 else { throw .invalidLength(what: "Ed25519 seed", expected: 32, actual: seed.count) }
        do {
            key = try Curve25519.Signing.PrivateKey(rawRepresentation: seed)
        } catch {
            throw .invalidPrivateKey
        }
    }

    private init(key: Curve25519.Signing.PrivateKey) { self.key = key }

    /// A fresh random key.
    public static func generate() -> SignaturePrivateKey { SignaturePrivateKey(key: .init()) }

    /// The matching verification key.
    public var publicKey: SignaturePublicKey { SignaturePublicKey(key.publicKey.rawRepresentation) }

    /// The 32-byte seed, for persisting the key encrypted at rest. Never log it.
    public var rawBytesForStorage: Data { key.rawRepresentation }

    public var description: String { "SignaturePrivateKey(redacted)" }
    public var debugDescription: String { description }
}

/// A signature verification key (`opaque SignaturePublicKey<V>`, RFC 9420 §5.1.1): raw Ed25519 bytes.
/// Held as bytes so unknown or malformed keys round-trip; they simply fail verification.
public struct SignaturePublicKey: Hashable, Sendable, TLSCodable, CustomStringConvertible {
    public var bytes: Data
    public init(_ bytes: Data) { self.bytes = bytes }

    public var description: String { "SignaturePublicKey(\(LowerHex.encode(bytes)))" }

    public func encode(to writer: inout TLSWriter) { writer.writeOpaque(bytes) }
    public init(from reader: inout TLSReader) throws { bytes = try reader.readOpaque() }
}

extension CipherSuiteProvider {
    /// SignContent{label<V> = "MLS 1.0 " + label; content<V>} (RFC 9420 §5.1.2).
    func signContent<C: DataProtocol>(label: String, content: C) -> [UInt8] {
        var writer = TLSWriter()
        writer.writeOpaque(Data((Self.labelPrefix + label).utf8))
        writer.writeOpaque(content)
        return writer.bytes
    }

    /// SignWithLabel(key, label, content): Ed25519 over SignContent (RFC 9420 §5.1.2).
    public func signWithLabel<C: DataProtocol>(
        _ key: SignaturePrivateKey, label: String, content: C
    ) throws(MLSCryptoError) -> Data {
        do {
            return try key.key.signature(for: signContent(label: label, content: content)).zeroBased
        } catch {
            throw .primitiveFailed("Ed25519 sign: \(error)")
        }
    }

    /// VerifyWithLabel(key, label, content, signature) (RFC 9420 §5.1.2); false for a malformed key.
    public func verifyWithLabel<C: DataProtocol, S: DataProtocol>(
        _ key: SignaturePublicKey, label: String, content: C, signature: S
    ) -> Bool {
        guard let publicKey = try? Curve25519.Signing.PublicKey(rawRepresentation: key.bytes) else { return false }
        return publicKey.isValidSignature(Data(signature), for: signContent(label: label, content: content))
    }
}
