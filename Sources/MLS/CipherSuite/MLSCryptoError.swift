import Foundation

/// Failures of the cipher-suite primitives (RFC 9420 §5); inputs that cannot be used are reported,
/// never trapped on.
public enum MLSCryptoError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Only MLS_128_DHKEMX25519_AES128GCM_SHA256_Ed25519 (0x0001) is implemented.
    case unsupportedCipherSuite(CipherSuite)
    /// A KDF output length outside 0 ... min(255·Nh, 2^16 - 1).
    case invalidOutputLength(Int)
    /// A key, nonce or seed of the wrong size for the suite.
    case invalidLength(what: String, expected: Int, actual: Int)
    /// Bytes that do not form a valid public key for the suite.
    case invalidPublicKey
    /// Bytes that do not form a valid private key for the suite.
    case invalidPrivateKey
    /// AEAD or HPKE decryption failed: wrong key, nonce, context or tampered data.
    case decryptionFailed
    /// A primitive of the underlying library failed for a reason it did not detail.
    case primitiveFailed(String)

    public var description: String {
        switch self {
        case .unsupportedCipherSuite(let suite): "unsupported cipher suite \(suite)"
        case .invalidOutputLength(let n): "invalid KDF output length \(n)"
        case .invalidLength(let what, let expected, let actual): "\(what) must be \(expected) bytes, got \(actual)"
        case .invalidPublicKey: "invalid public key"
        case .invalidPrivateKey: "invalid private key"
        case .decryptionFailed: "decryption failed"
        case .primitiveFailed(let what): "cryptographic primitive failed: \(what)"
        }
    }
}
