import Crypto
import Foundation
import Nostr

/// How one protocol version encrypts a group's picture and authorises its Blossom upload.
/// Implemented side by side: `V1GroupImageScheme` (MDK 0.8.0 `extension/group_image.rs`,
/// marmot-wire §3.5) and `V2GroupImageScheme` (MDK 0.9.14 `marmot-app/src/media/group_image.rs`,
/// component 0x8002); a group's `GroupRules.groupImage` picks one.
public protocol GroupImageScheme: Sendable {
    /// The largest picture this version encrypts (and so the largest blob it downloads, plus the tag).
    var maxImageBytes: Int { get }
    /// Encrypts `image` with fresh random secrets; `format` is the checked picture format.
    func seal(_ image: Data, format: GroupImageFormat) throws(GroupImageError) -> SealedGroupImage
    /// Decrypts `ciphertext` as the group data's `image` names it; the size and the SHA-256 are
    /// checked before anything is decrypted.
    func open(_ ciphertext: Data, image: GroupImage) throws(GroupImageError) -> Data
    /// The key that signs the Blossom upload authorisation (BUD-02 kind 24242) of `image`'s blob.
    func uploadKeys(_ image: GroupImage) throws(GroupImageError) -> Keys
}

extension GroupImageScheme {
    /// The checks both versions make before decrypting: a bounded size, then the SHA-256.
    func checkBlob(_ ciphertext: Data, image: GroupImage) throws(GroupImageError) {
        let max = maxImageBytes + GroupImageCrypto.tagLength
        guard ciphertext.count <= max else { throw .tooLarge(size: ciphertext.count, max: max) }
        guard Data(SHA256.hash(data: ciphertext)) == image.blobSHA256 else { throw .blobHashMismatch }
    }
}

/// The primitives both versions use: ChaCha20-Poly1305 and HKDF-SHA256.
package enum GroupImageCrypto {
    package static let tagLength = 16

    static func random(_ count: Int) -> Data {
        var rng = SystemRandomNumberGenerator()
        return Data((0..<count).map { _ in UInt8.random(in: .min ... .max, using: &rng) })
    }

    /// Full HKDF (extract with no salt, i.e. 32 zero bytes, then expand) to 32 bytes.
    static func hkdf(_ ikm: Data, info: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: ikm), info: Data(info.utf8), outputByteCount: 32)
    }

    /// ciphertext ‖ tag, sealed and opened as media files are (`MediaCipher`).
    static func seal(_ plaintext: Data, key: SymmetricKey, nonce: Data, aad: Data) throws(GroupImageError) -> Data {
        do {
            return try MediaCipher.seal(plaintext, key: key, nonce: nonce, aad: aad)
        } catch {
            throw .encryptionFailed
        }
    }

    static func open(_ sealed: Data, key: SymmetricKey, nonce: Data, aad: Data) throws(GroupImageError) -> Data {
        do {
            return try MediaCipher.open(sealed, key: key, nonce: nonce, aad: aad)
        } catch {
            throw .decryptionFailed
        }
    }

    static func keys(_ secret: Data) throws(GroupImageError) -> Keys {
        do { return Keys(secretKey: try SecretKey(bytes: secret)) } catch { throw .invalidUploadKey }
    }

    static func bytes(_ key: SymmetricKey) -> Data { key.withUnsafeBytes { Data($0) } }
}
