/// Errors from NIP-49 private key encryption and decryption.
///
/// The messages never contain the password, the key or the ncryptsec itself.
public enum NIP49Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// The password is empty (after NFKC normalization).
    case emptyPassword
    /// The text is not bech32 (bad checksum, characters or case).
    case invalidEncoding(Bech32Error)
    /// A bech32 string, but not an `ncryptsec1…` one.
    case wrongPrefix(String)
    /// The decoded payload is not the 91 bytes NIP-49 defines.
    case invalidLength(Int)
    /// A version byte other than 0x02.
    case unsupportedVersion(UInt8)
    /// A scrypt cost outside what is accepted (see `NIP49.logNRange`).
    case logNOutOfRange(UInt8)
    /// A key security byte other than 0x00, 0x01 or 0x02.
    case unknownKeySecurity(UInt8)
    /// The Poly1305 tag does not verify: the password is wrong or the string was changed.
    case wrongPasswordOrDamaged
    /// The decrypted 32 bytes are not a valid secp256k1 secret key.
    case invalidSecretKey
    /// scrypt itself failed (e.g. it could not get its memory).
    case keyDerivationFailed

    public var description: String {
        switch self {
        case .emptyPassword: "nip49: the password is empty"
        case .invalidEncoding(let e): "nip49: not a valid ncryptsec (\(e))"
        case .wrongPrefix(let p): "nip49: expected an ncryptsec, got a \(p.debugDescription) bech32 string"
        case .invalidLength(let n): "nip49: an ncryptsec holds 91 bytes, this one \(n)"
        case .unsupportedVersion(let v): "nip49: unsupported ncryptsec version \(v) (only 2 is defined)"
        case .logNOutOfRange(let n):
            "nip49: scrypt cost log_n \(n) is outside \(NIP49.logNRange.lowerBound)...\(NIP49.logNRange.upperBound): "
                + "scrypt needs 2^log_n KiB of memory (4 GiB at 22), so a larger one is refused rather than tried"
        case .unknownKeySecurity(let b): "nip49: unknown key security byte \(b)"
        case .wrongPasswordOrDamaged: "nip49: wrong password or damaged ncryptsec"
        case .invalidSecretKey: "nip49: the decrypted key is not a valid secp256k1 secret key"
        case .keyDerivationFailed: "nip49: scrypt key derivation failed"
        }
    }
}
