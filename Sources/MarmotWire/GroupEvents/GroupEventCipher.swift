import Crypto
import Foundation

/// The content encryption of kind-445 events: ChaCha20-Poly1305 (RFC 8439) under the epoch's
/// `GroupEventKey`, a random 12-byte nonce, no associated data; the event content is
/// base64(nonce ‖ ciphertext ‖ tag) (MIP-03 as MDK 0.8.0; marmot-wire §5.2).
public enum GroupEventCipher {
    public static let nonceLength = 12
    public static let tagLength = 16
    /// The shortest decodable content: nonce and tag around an empty ciphertext.
    public static let minimumDecodedLength = nonceLength + tagLength

    /// Encrypts a serialized MLSMessage into kind-445 content text.
    public static func encrypt(_ plaintext: Data, key: GroupEventKey) throws(GroupEventError) -> String {
        var rng = SystemRandomNumberGenerator()
        let nonce = Data((0..<nonceLength).map { _ in UInt8.random(in: .min ... .max, using: &rng) })
        return try encrypt(plaintext, key: key, nonce: nonce)
    }

    /// Encrypts with a given nonce (tests only: a nonce must never repeat under one key).
    static func encrypt(_ plaintext: Data, key: GroupEventKey, nonce: Data) throws(GroupEventError) -> String {
        do {
            let box = try ChaChaPoly.seal(
                plaintext, using: SymmetricKey(data: key.bytes), nonce: try ChaChaPoly.Nonce(data: nonce))
            return Base64.encode(box.combined)
        } catch {
            throw .encryptionFailed
        }
    }

    /// Decrypts kind-445 content text; `.invalidContent` for bad base64 or too short, `.decryptionFailed`
    /// when it does not authenticate under `key`.
    public static func decrypt(_ content: String, key: GroupEventKey) throws(GroupEventError) -> Data {
        let sealed = try decode(content)
        return try open(sealed, key: key)
    }

    /// The decoded nonce ‖ ciphertext ‖ tag, checked for form only.
    static func decode(_ content: String) throws(GroupEventError) -> [UInt8] {
        guard let bytes = Base64.decode(content) else { throw .invalidContent("content is not standard padded base64") }
        guard bytes.count >= minimumDecodedLength else {
            throw .invalidContent("content decodes to \(bytes.count) bytes, fewer than \(minimumDecodedLength)")
        }
        return bytes
    }

    static func open(_ sealed: [UInt8], key: GroupEventKey) throws(GroupEventError) -> Data {
        do {
            let box = try ChaChaPoly.SealedBox(combined: sealed)
            let plaintext = try ChaChaPoly.open(box, using: SymmetricKey(data: key.bytes))
            return plaintext.withUnsafeBytes { Data($0) }
        } catch {
            throw .decryptionFailed
        }
    }
}
