import Crypto
import Foundation
import Nostr

/// Group images of Marmot v1 as MDK 0.8.0 makes them (marmot-wire §3.5, `extension/group_image.rs`):
/// `image_key` is a random seed, the ChaCha20-Poly1305 key is HKDF-SHA256(no salt, seed,
/// "mip01-image-encryption-v2"), no associated data; `image_upload_key` is an independent seed
/// whose HKDF with "mip01-blossom-upload-v2" is the Blossom signing key. Decryption also tries a
/// legacy picture whose `image_key` is the key itself, as MDK does.
public struct V1GroupImageScheme: GroupImageScheme {
    public init() {}

    static let encryptionInfo = "mip01-image-encryption-v2"
    static let uploadInfo = "mip01-blossom-upload-v2"

    /// MDK 0.9.14's bound for a group picture, taken for both versions.
    public var maxImageBytes: Int { V2GroupImageScheme.maxBytes }

    public func seal(_ image: Data, format: GroupImageFormat) throws(GroupImageError) -> SealedGroupImage {
        guard !image.isEmpty else { throw .empty }
        guard image.count <= maxImageBytes else { throw .tooLarge(size: image.count, max: maxImageBytes) }
        let seed = GroupImageCrypto.random(GroupImage.keyLength)
        let nonce = GroupImageCrypto.random(GroupImage.nonceLength)
        var uploadSeed = GroupImageCrypto.random(GroupImage.uploadKeyLength)
        // The derived upload key must be a valid secp256k1 scalar (fails with negligible odds).
        while (try? uploadKeys(uploadSeed)) == nil { uploadSeed = GroupImageCrypto.random(GroupImage.uploadKeyLength) }
        let ciphertext = try GroupImageCrypto.seal(
            image, key: GroupImageCrypto.hkdf(seed, info: Self.encryptionInfo), nonce: nonce, aad: Data())
        let reference = try GroupImage(
            blobSHA256: Data(SHA256.hash(data: ciphertext)), key: seed, nonce: nonce, uploadKey: uploadSeed)
        return SealedGroupImage(image: reference, ciphertext: ciphertext)
    }

    public func open(_ ciphertext: Data, image: GroupImage) throws(GroupImageError) -> Data {
        try checkBlob(ciphertext, image: image)
        if let plaintext = try? GroupImageCrypto.open(
            ciphertext, key: GroupImageCrypto.hkdf(image.key, info: Self.encryptionInfo), nonce: image.nonce, aad: Data())
        {
            return plaintext
        }
        return try GroupImageCrypto.open(ciphertext, key: SymmetricKey(data: image.key), nonce: image.nonce, aad: Data())
    }

    public func uploadKeys(_ image: GroupImage) throws(GroupImageError) -> Keys {
        guard let seed = image.uploadKey else { throw .invalidUploadKey }
        return try uploadKeys(seed)
    }

    func uploadKeys(_ seed: Data) throws(GroupImageError) -> Keys {
        try GroupImageCrypto.keys(GroupImageCrypto.bytes(GroupImageCrypto.hkdf(seed, info: Self.uploadInfo)))
    }
}
