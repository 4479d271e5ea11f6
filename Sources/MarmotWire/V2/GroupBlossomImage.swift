import Foundation

/// Component 0x8002 `marmot.group.blossom.image.v1`: `image_hash<V> ‖ image_key<V> ‖ image_nonce<V>
/// ‖ image_upload_key<V> ‖ media_type<V>`; all five empty is the absent state, otherwise every field
/// has its exact length (32, 32, 12, 32) and the media type is canonical (MDK 0.9.14
/// `traits/src/app_components/blossom_image.rs`; a partly set value is refused).
public enum GroupBlossomImage {
    static let maxMediaTypeBytes = 128

    /// The absent state: five empty vectors.
    public static let absent: [UInt8] = [0, 0, 0, 0, 0]

    /// The bytes for `image` (nil: absent); a v2 image always has a media type.
    public static func bytes(_ image: GroupImage?) throws(GroupImageError) -> [UInt8] {
        guard let image else { return absent }
        guard let mediaType = image.mediaType else { throw .invalidMediaType("a v2 group image names its media type") }
        guard let uploadKey = image.uploadKey else { throw .partialState }
        let canonical: String
        do { canonical = try V2MediaScheme.canonicalMediaType(mediaType) } catch { throw .invalidMediaType("\(error)") }
        var out: [UInt8] = []
        for field in [Array(image.blobSHA256), Array(image.key), Array(image.nonce), Array(uploadKey), Array(canonical.utf8)] {
            QUICVarint.encodeBytes(field, into: &out)
        }
        return out
    }

    /// The image the bytes name, or nil for the absent state.
    public static func decode(_ bytes: [UInt8]) throws(V2ComponentError) -> GroupImage? {
        var cursor = bytes[...]
        let hash = try QUICVarint.decodeBytes(&cursor, maxLength: GroupImage.hashLength, label: "group image hash")
        let key = try QUICVarint.decodeBytes(&cursor, maxLength: GroupImage.keyLength, label: "group image key")
        let nonce = try QUICVarint.decodeBytes(&cursor, maxLength: GroupImage.nonceLength, label: "group image nonce")
        let upload = try QUICVarint.decodeBytes(&cursor, maxLength: GroupImage.uploadKeyLength, label: "group image upload key")
        let type = try QUICVarint.decodeBytes(&cursor, maxLength: maxMediaTypeBytes, label: "group image media type")
        guard cursor.isEmpty else { throw .trailingBytes("group image") }
        guard let mediaType = String(validating: type, as: UTF8.self) else { throw .notUTF8("group image media type") }
        if hash.isEmpty, key.isEmpty, nonce.isEmpty, upload.isEmpty, type.isEmpty { return nil }
        guard !type.isEmpty, let image = try? GroupImage(
            blobSHA256: Data(hash), key: Data(key), nonce: Data(nonce), uploadKey: Data(upload), mediaType: mediaType)
        else { throw .invalidGroupImage("fields are partly set or of the wrong length") }
        guard (try? V2MediaScheme.canonicalMediaType(mediaType)) == mediaType else {
            throw .invalidGroupImage("media type is not canonical")
        }
        return image
    }
}
