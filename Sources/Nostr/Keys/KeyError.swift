/// Errors from creating or importing keys.
public enum KeyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The input has the wrong number of bytes.
    case invalidLength(expected: Int, actual: Int)
    /// The input is not (lower-case) hex.
    case invalidHex
    /// The 32 bytes are zero or not below the curve order, so they are no secp256k1 secret key.
    case invalidSecretKey
    /// The 32 bytes are not the x coordinate of a point on secp256k1.
    case invalidPublicKey
    /// A bech32 string carried the wrong NIP-19 prefix or was malformed.
    case nip19(NIP19Error)

    public var description: String {
        switch self {
        case .invalidLength(let e, let a): "key: expected \(e) bytes, got \(a)"
        case .invalidHex: "key: not lower-case hex"
        case .invalidSecretKey: "key: secret key out of range"
        case .invalidPublicKey: "key: not an x-only secp256k1 public key"
        case .nip19(let e): "key: \(e)"
        }
    }
}
