import Crypto
import _CryptoExtras
import Foundation

/// NIP-49: a secret key encrypted under a password, as a bech32 `ncryptsec1…` string.
///
/// For moving an account between clients without an nsec in the clear. The symmetric key is
/// scrypt(NFKC(password), salt, N = 2^log_n, r = 8, p = 1), 32 bytes ("Symmetric Encryption Key
/// derivation"); the key is sealed with XChaCha20-Poly1305 under a random 24-byte nonce with the key
/// security byte as associated data, and the 91 bytes version ‖ log_n ‖ salt ‖ nonce ‖ key security
/// ‖ ciphertext are bech32-encoded ("Encrypting a private key").
public enum NIP49 {
    /// What the encrypting client knows of how the key was handled before (the key security byte).
    public enum KeySecurity: UInt8, Sendable, CaseIterable {
        /// The key is known to have been handled insecurely (stored or pasted unencrypted).
        case insecure = 0x00
        /// The key is not known to have been handled insecurely.
        case secure = 0x01
        /// The client does not track this.
        case unknown = 0x02
    }

    /// The only version NIP-49 defines.
    public static let version: UInt8 = 0x02
    /// The bech32 human-readable part.
    public static let prefix = "ncryptsec"
    /// The scrypt cost used unless another is asked for: 64 MiB, about 0.1 s on a fast machine.
    public static let defaultLogN: UInt8 = 16
    /// The scrypt costs accepted, both ways. Memory is 2^log_n KiB, so 22 already needs 4 GiB: a
    /// larger value in a received string is refused before anything is allocated.
    public static let logNRange: ClosedRange<UInt8> = 1...22
    /// Length of the payload before bech32 encoding.
    static let payloadLength = 91
    private static let saltLength = 16
    private static let keyLength = 32

    /// Encrypts `secretKey` under `password` with a fresh random salt and nonce.
    public static func encrypt(
        secretKey: SecretKey, password: String, logN: UInt8 = defaultLogN, keySecurity: KeySecurity = .unknown
    ) throws(NIP49Error) -> String {
        try encrypt(
            secretKey: secretKey, password: password, logN: logN, keySecurity: keySecurity,
            salt: SecureRandom.bytes(saltLength), nonce: SecureRandom.bytes(XChaCha20Poly1305.nonceLength))
    }

    /// Decrypts an `ncryptsec1…` string with `password`.
    ///
    /// Everything that can be checked without the password (bech32, prefix, length, version, log_n,
    /// key security byte) is checked before scrypt runs.
    public static func decrypt(_ ncryptsec: String, password: String) throws(NIP49Error) -> SecretKey {
        let text = ncryptsec.trimmingCharacters(in: .whitespacesAndNewlines)
        let decoded: (hrp: String, data: [UInt8])
        do { decoded = try Bech32.decode(text) } catch let e as Bech32Error { throw .invalidEncoding(e) } catch {
            throw .invalidEncoding(.invalidChecksum)  // Bech32.decode throws nothing else
        }
        let data = decoded.data
        guard decoded.hrp == prefix else { throw .wrongPrefix(decoded.hrp) }
        guard data.count == payloadLength else { throw .invalidLength(data.count) }
        guard data[0] == version else { throw .unsupportedVersion(data[0]) }
        let logN = data[1]
        guard logNRange.contains(logN) else { throw .logNOutOfRange(logN) }
        let salt = Array(data[2..<18])
        let nonce = Array(data[18..<42])
        let securityByte = data[42]
        guard KeySecurity(rawValue: securityByte) != nil else { throw .unknownKeySecurity(securityByte) }
        let sealed = Array(data[43...])

        var key = try symmetricKey(password: password, salt: salt, logN: logN)
        defer { zero(&key) }
        var plain: [UInt8]
        do {
            plain = try XChaCha20Poly1305.open(sealed, key: key, nonce: nonce, associatedData: [securityByte])
        } catch {
            throw .wrongPasswordOrDamaged
        }
        defer { zero(&plain) }
        guard let secretKey = try? SecretKey(bytes: plain) else { throw .invalidSecretKey }
        return secretKey
    }

    /// Whether `text` looks like an ncryptsec (its prefix only; `decrypt` checks the rest).
    public static func isNcryptsec(_ text: String) -> Bool {
        text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased().hasPrefix(prefix + "1")
    }

    /// The password as scrypt gets it: NFKC-normalized UTF-8 ("Symmetric Encryption Key derivation").
    static func normalizedPassword(_ password: String) -> [UInt8] {
        Array(password.precomposedStringWithCompatibilityMapping.utf8)
    }

    /// Encrypts with a caller-chosen salt and nonce. Deterministic, so for tests only: a reused nonce
    /// under one password leaks the XOR of two keys.
    static func encrypt(
        secretKey: SecretKey, password: String, logN: UInt8, keySecurity: KeySecurity, salt: [UInt8], nonce: [UInt8]
    ) throws(NIP49Error) -> String {
        guard logNRange.contains(logN) else { throw .logNOutOfRange(logN) }
        precondition(salt.count == saltLength && nonce.count == XChaCha20Poly1305.nonceLength)
        var key = try symmetricKey(password: password, salt: salt, logN: logN)
        defer { zero(&key) }
        let sealed: [UInt8]
        do {
            sealed = try XChaCha20Poly1305.seal(
                secretKey.bytes, key: key, nonce: nonce, associatedData: [keySecurity.rawValue])
        } catch {
            // Only wrong sizes make it throw, and they are fixed here.
            preconditionFailure("XChaCha20-Poly1305 refused a 32-byte key and a 24-byte nonce: \(error)")
        }
        let payload = [version, logN] + salt + nonce + [keySecurity.rawValue] + sealed
        assert(payload.count == payloadLength)
        return Bech32.encode(hrp: prefix, data: payload)
    }

    /// scrypt(NFKC(password), salt, 2^logN, r = 8, p = 1), 32 bytes.
    private static func symmetricKey(password: String, salt: [UInt8], logN: UInt8) throws(NIP49Error) -> [UInt8] {
        var passwordBytes = normalizedPassword(password)
        defer { zero(&passwordBytes) }
        guard !passwordBytes.isEmpty else { throw .emptyPassword }
        do {
            let key = try KDF.Scrypt.deriveKey(
                from: passwordBytes, salt: salt, outputByteCount: keyLength, rounds: 1 << Int(logN), blockSize: 8,
                parallelism: 1)
            return key.withUnsafeBytes { Array($0) }
        } catch {
            throw .keyDerivationFailed
        }
    }

    /// Overwrites a secret's bytes before they are freed (best effort: copies may exist).
    private static func zero(_ bytes: inout [UInt8]) {
        for i in bytes.indices { bytes[i] = 0 }
    }
}
