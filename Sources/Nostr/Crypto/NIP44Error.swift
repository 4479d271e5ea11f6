/// Errors from NIP-44 v2 encryption and decryption.
public enum NIP44Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// Plaintext must be 1…65535 bytes of UTF-8 (the original v2 limit, matching the official vectors).
    case invalidPlaintextLength(Int)
    /// The payload starts with `#` or its version byte is not 2.
    case unsupportedVersion(UInt8?)
    /// The base64 payload or the decoded data is shorter or longer than v2 allows.
    case invalidPayloadLength(Int)
    /// The payload is not valid base64.
    case invalidBase64
    /// The HMAC does not verify: wrong key or tampered payload.
    case invalidMAC
    /// The decrypted padding or length prefix is inconsistent.
    case invalidPadding
    /// The decrypted plaintext is not valid UTF-8.
    case invalidUTF8
    /// A nonce or conversation key has the wrong size.
    case invalidKeyMaterial(String)

    public var description: String {
        switch self {
        case .invalidPlaintextLength(let n): "nip44: plaintext length \(n) outside 1...65535"
        case .unsupportedVersion(let v): "nip44: unsupported version \(v.map(String.init) ?? "#")"
        case .invalidPayloadLength(let n): "nip44: invalid payload length \(n)"
        case .invalidBase64: "nip44: invalid base64"
        case .invalidMAC: "nip44: invalid MAC"
        case .invalidPadding: "nip44: invalid padding"
        case .invalidUTF8: "nip44: plaintext is not UTF-8"
        case .invalidKeyMaterial(let why): "nip44: \(why)"
        }
    }
}
