import Crypto
import Foundation
import Nostr

/// Group images of Marmot v2 as MDK 0.9.14 makes them (`marmot-app/src/media/group_image.rs`;
/// component 0x8002): `image_key` is a random ChaCha20-Poly1305 key used as it is, the associated
/// data is "marmot-group-image-v1" ‖ 0 ‖ media type, and `image_upload_key` is a random secp256k1
/// secret key that signs the Blossom upload (carried so any member can manage the blob).
public struct V2GroupImageScheme: GroupImageScheme {
    public init() {}

    /// MDK `MAX_GROUP_IMAGE_BYTES`.
    static let maxBytes = 10 * 1024 * 1024
    static let aadLabel = "marmot-group-image-v1"

    public var maxImageBytes: Int { Self.maxBytes }

    static func aad(_ mediaType: String) -> Data {
        var out = Data(aadLabel.utf8)
        out.append(0)
        out.append(contentsOf: Data(mediaType.utf8))
        return out
    }

    public func seal(_ image: Data, format: GroupImageFormat) throws(GroupImageError) -> SealedGroupImage {
        guard !image.isEmpty else { throw .empty }
        guard image.count <= maxImageBytes else { throw .tooLarge(size: image.count, max: maxImageBytes) }
        let key = GroupImageCrypto.random(GroupImage.keyLength)
        let nonce = GroupImageCrypto.random(GroupImage.nonceLength)
        let upload = Keys.generate()
        let ciphertext = try GroupImageCrypto.seal(
            image, key: SymmetricKey(data: key), nonce: nonce, aad: Self.aad(format.mediaType))
        let reference = try GroupImage(
            blobSHA256: Data(SHA256.hash(data: ciphertext)), key: key, nonce: nonce, uploadKey: Data(Hex.decode(upload.secretKey.hexEncodedSecret()) ?? []),
            mediaType: format.mediaType)
        return SealedGroupImage(image: reference, ciphertext: ciphertext)
    }

    public func open(_ ciphertext: Data, image: GroupImage) throws(GroupImageError) -> Data {
        try checkBlob(ciphertext, image: image)
        guard let mediaType = image.mediaType else { throw .invalidMediaType("a v2 group image names its media type") }
        return try GroupImageCrypto.open(ciphertext, key: SymmetricKey(data: image.key), nonce: image.nonce, aad: Self.aad(mediaType))
    }

    public func uploadKeys(_ image: GroupImage) throws(GroupImageError) -> Keys {
        guard let key = image.uploadKey else { throw .invalidUploadKey }
        return try GroupImageCrypto.keys(key)
    }
}
