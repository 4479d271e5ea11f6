import Foundation

/// A group's encrypted picture as its group data names it: the Blossom blob (by the SHA-256 of its
/// ciphertext) and the secrets that open it, shared with every member through MLS.
///
/// Both versions carry the same four fields (v1: NostrGroupData 0xF2EE `image_*`, MIP-01; v2:
/// component 0x8002 `marmot.group.blossom.image.v1`); v2 adds the media type, which v1 lacks. What
/// `key` and `uploadKey` mean differs per version (`GroupImageScheme`). Printing shows no secret.
public struct GroupImage: Sendable, Hashable, CustomStringConvertible {
    public static let hashLength = 32
    public static let keyLength = 32
    public static let nonceLength = 12
    public static let uploadKeyLength = 32

    /// SHA-256 of the ciphertext: its Blossom id.
    public var blobSHA256: Data
    /// v1: the image seed the key is derived from; v2: the ChaCha20-Poly1305 key. Secret.
    public var key: Data
    /// The 12-byte AEAD nonce.
    public var nonce: Data
    /// v1: the seed of the Blossom upload key; v2: the upload key itself. Secret. Nil in a v1
    /// group whose admin set none (mdk-python 0.8.0 cannot): the picture still opens, only its
    /// blob cannot be managed.
    public var uploadKey: Data?
    /// The canonical media type (v2 only; nil in v1, whose picture's type is read from its bytes).
    public var mediaType: String?

    /// Checks every length, so a value of this type is always well formed.
    public init(blobSHA256: Data, key: Data, nonce: Data, uploadKey: Data?, mediaType: String? = nil) throws(GroupImageError) {
        guard blobSHA256.count == Self.hashLength else { throw .invalidLength("image_hash", expected: Self.hashLength, actual: blobSHA256.count) }
        guard key.count == Self.keyLength else { throw .invalidLength("image_key", expected: Self.keyLength, actual: key.count) }
        guard nonce.count == Self.nonceLength else { throw .invalidLength("image_nonce", expected: Self.nonceLength, actual: nonce.count) }
        if let uploadKey, uploadKey.count != Self.uploadKeyLength {
            throw .invalidLength("image_upload_key", expected: Self.uploadKeyLength, actual: uploadKey.count)
        }
        self.blobSHA256 = Data(blobSHA256)
        self.key = Data(key)
        self.nonce = Data(nonce)
        self.uploadKey = uploadKey.map { Data($0) }
        self.mediaType = mediaType
    }

    /// The blob id in hex (the last path part of its Blossom URL, BUD-01).
    public var blobHex: String { blobSHA256.map { String(format: "%02x", $0) }.joined() }

    public var description: String { "GroupImage(\(blobHex.prefix(12))…, \(mediaType ?? "untyped"))" }
}

/// A picture sealed for a group: the reference to put in the group data and the blob to upload.
public struct SealedGroupImage: Sendable {
    public let image: GroupImage
    public let ciphertext: Data
}

/// Why a group picture, or a reference to one, was refused. Never names a key or the picture.
public enum GroupImageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A field is neither its exact length nor (where allowed) empty.
    case invalidLength(String, expected: Int, actual: Int)
    /// Some image fields are set and others empty (MDK: "invalid partial state").
    case partialState
    /// The media type is not canonical, or not a picture type we set or show.
    case invalidMediaType(String)
    /// The picture's bytes are not the type it claims (or no known picture format).
    case contentMismatch(String)
    /// Nothing to encrypt.
    case empty
    /// The picture or the blob is over the limit.
    case tooLarge(size: Int, max: Int)
    /// The blob's SHA-256 is not the group data's `image_hash` (checked before decryption).
    case blobHashMismatch
    /// ChaCha20-Poly1305 did not authenticate under the group data's key and nonce.
    case decryptionFailed
    /// ChaCha20-Poly1305 refused to seal.
    case encryptionFailed
    /// The upload key is not a valid secp256k1 secret key.
    case invalidUploadKey
    /// A v2 avatar URL (0x8007) is malformed or not https.
    case invalidAvatarURL(String)

    public var description: String {
        switch self {
        case .invalidLength(let field, let expected, let actual): "group image \(field) must be \(expected) bytes, got \(actual)"
        case .partialState: "group image fields are partly set"
        case .invalidMediaType(let why): "group image media type refused: \(why)"
        case .contentMismatch(let why): "group image refused: \(why)"
        case .empty: "group image is empty"
        case .tooLarge(let size, let max): "group image of \(size) bytes exceeds the limit of \(max) bytes"
        case .blobHashMismatch: "the group image blob's SHA-256 is not the group data's image_hash"
        case .decryptionFailed: "the group image does not decrypt with the group data's key"
        case .encryptionFailed: "group image encryption failed"
        case .invalidUploadKey: "the group image upload key is not a valid secret key"
        case .invalidAvatarURL(let why): "group avatar URL refused: \(why)"
        }
    }
}
