import Crypto
import Foundation

/// The file encryption both versions share, differing only in the scheme label:
/// `file_key = HKDF-Expand(secret, label ‖ 0 ‖ sha256 ‖ 0 ‖ type ‖ 0 ‖ filename ‖ 0 ‖ "key", 32)`
/// (expand only: the exporter secret is the PRK), ChaCha20-Poly1305 with a random 12-byte nonce and
/// `aad = label ‖ 0 ‖ sha256 ‖ 0 ‖ type ‖ 0 ‖ filename` (MIP-04; MDK 0.8.0
/// `encrypted_media/crypto.rs`, label `mip04-v2`; MDK 0.9.14 `marmot-app/src/media/crypto.rs`,
/// label `encrypted-media-v2`).
enum MediaCipher {
    static let nonceLength = 12
    static let tagLength = 16

    static func key(
        secret: MediaSecret, label: String, plaintextSHA256: Data, mimeType: String, filename: String
    ) throws(MediaError) -> SymmetricKey {
        guard secret.bytes.count == MediaSecret.byteCount else { throw .invalidSecretLength(secret.bytes.count) }
        var info = context(label: label, plaintextSHA256: plaintextSHA256, mimeType: mimeType, filename: filename)
        info.append(0)
        info.append(contentsOf: Data("key".utf8))
        return HKDF<SHA256>.expand(pseudoRandomKey: secret.bytes, info: info, outputByteCount: 32)
    }

    /// label ‖ 0 ‖ sha256 ‖ 0 ‖ type ‖ 0 ‖ filename: the associated data, and the key info's prefix.
    static func context(label: String, plaintextSHA256: Data, mimeType: String, filename: String) -> Data {
        var out = Data(label.utf8)
        out.append(0)
        out.append(plaintextSHA256)
        out.append(0)
        out.append(contentsOf: Data(mimeType.utf8))
        out.append(0)
        out.append(contentsOf: Data(filename.utf8))
        return out
    }

    static func randomNonce() -> Data {
        var rng = SystemRandomNumberGenerator()
        return Data((0..<nonceLength).map { _ in UInt8.random(in: .min ... .max, using: &rng) })
    }

    /// ciphertext ‖ tag.
    static func seal(_ plaintext: Data, key: SymmetricKey, nonce: Data, aad: Data) throws(MediaError) -> Data {
        do {
            let box = try ChaChaPoly.seal(plaintext, using: key, nonce: try ChaChaPoly.Nonce(data: nonce), authenticating: aad)
            var out = Data(box.ciphertext)
            out.append(box.tag)
            return out
        } catch {
            throw .encryptionFailed
        }
    }

    static func open(_ sealed: Data, key: SymmetricKey, nonce: Data, aad: Data) throws(MediaError) -> Data {
        guard sealed.count >= tagLength else { throw .decryptionFailed }
        do {
            let box = try ChaChaPoly.SealedBox(
                nonce: try ChaChaPoly.Nonce(data: nonce), ciphertext: sealed.prefix(sealed.count - tagLength),
                tag: sealed.suffix(tagLength))
            return try ChaChaPoly.open(box, using: key, authenticating: aad)
        } catch {
            throw .decryptionFailed
        }
    }

    static func sha256(_ data: Data) -> Data { Data(SHA256.hash(data: data)) }
}
