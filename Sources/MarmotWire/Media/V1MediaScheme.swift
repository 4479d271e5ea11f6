import Foundation
import MLS
import Nostr

/// Encrypted media of v1 groups: MIP-04 version `mip04-v2` as MDK 0.8.0 does it
/// (`encrypted_media/{crypto,manager}.rs`, `media_processing/validation.rs`). The tag is
/// `imeta url m filename [dim] [blurhash] [thumbhash] x n v`, with no hash of the blob: the blob
/// is named by the hash in the URL (Blossom), which we therefore require.
///
/// No legacy fallback: MDK 0.8.0 reads media of MDK < 0.7.1 (HKDF extract+expand, exporter
/// `nostr`/`nostr`) only until 2026-05-15 (`LEGACY_MEDIA_MIGRATION_DEADLINE`) and never writes it;
/// `mip04-v1` (derived nonces) is refused as MIP-04 requires.
public struct V1MediaScheme: MediaScheme {
    public init() {}

    public var version: String { "mip04-v2" }
    /// A chat message (kind 9) carrying the `imeta` tags, as White Noise sends media.
    public var messageKind: UInt16 { 9 }
    /// MDK 0.8.0 `MAX_FILE_SIZE`: 100 MiB.
    public var maxPlaintextBytes: Int { 100 * 1024 * 1024 }
    /// MDK 0.8.0 `MAX_FILENAME_LENGTH`, in bytes.
    public static let maxFilenameBytes = 210

    /// MDK 0.8.0 `SUPPORTED_MIME_TYPES`; `application/octet-stream` is its escape hatch.
    public static let allowedMediaTypes: Set<String> = [
        "image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp", "image/x-icon", "image/tiff",
        "image/x-farbfeld", "image/avif", "image/qoi",
        "video/mp4", "video/quicktime", "video/x-matroska", "video/webm", "video/x-msvideo", "video/ogg",
        "audio/ogg", "audio/flac", "audio/x-flac", "audio/aac", "audio/mp4", "audio/webm", "audio/mpeg", "audio/wav",
        "audio/x-matroska",
        "application/pdf", "text/plain", "application/octet-stream",
    ]

    public func encrypt(
        _ plaintext: Data, mimeType: String, filename: String, dimensions: MediaDimensions?, secret: MediaSecret
    ) throws(MediaError) -> EncryptedMedia {
        let type = try Self.canonicalMediaType(mimeType)
        if type.hasPrefix("image/") {
            let detected = Self.imageType(of: plaintext)
            guard detected == type else {
                throw .invalidMediaType("the file is \(detected ?? "not a known image"), not \(type)")
            }
        }
        try Self.checkFilename(filename)
        let sealed = try sealFile(plaintext, mimeType: type, filename: filename, secret: secret)
        let blobHash = MediaCipher.sha256(sealed.ciphertext)
        let version = version
        return EncryptedMedia(ciphertext: sealed.ciphertext, ciphertextSHA256: blobHash) { url in
            Self.makeReference(
                url: url, mimeType: type, filename: filename, plaintextSHA256: sealed.plaintextSHA256, nonce: sealed.nonce,
                version: version, size: nil, dimensions: dimensions, blurhash: nil, thumbhash: nil, blobSHA256: blobHash)
        }
    }

    public func decrypt(_ ciphertext: Data, reference: MediaReference, secret: MediaSecret) throws(MediaError) -> Data {
        try openBlob(ciphertext, reference: reference, secret: secret)
    }

    /// MDK 0.8.0 `parse_imeta_tag`, stricter where it is lax: a field that matters appearing twice
    /// is refused (MDK keeps the last), the URL must pass `policy` and name the blob's hash;
    /// entries without a space and unknown fields are ignored, as MDK does.
    public func reference(imeta: [String], policy: MediaURLPolicy) throws(MediaError) -> MediaReference {
        var fields = ImetaFields()
        for (key, value) in try ImetaFields.entries(imeta) {
            guard let value else { continue }
            switch key {
            case "url", "m", "filename", "x", "n", "v", "dim", "blurhash", "thumbhash", "size": try fields.once(key, value)
            default: continue
            }
        }
        let urlText = try fields.required("url")
        let type = try Self.canonicalMediaType(try fields.required("m"))
        let plaintextHash = try ImetaFields.hex(try fields.required("x"), field: "x", count: 32)
        let filename = try fields.required("filename")
        try Self.checkFilename(filename)
        let version = try fields.required("v")
        guard version == self.version else {
            throw .unsupportedVersion(version == "mip04-v1" ? "mip04-v1 (deprecated by MIP-04: derived nonces)" : version)
        }
        let nonce = try ImetaFields.hex(try fields.required("n"), field: "n", count: MediaCipher.nonceLength)
        let url = try policy.url(urlText)
        guard let blobHash = BlobURL.sha256(in: url) else {
            throw .invalidField("url", "does not name the blob by its SHA-256")
        }
        var size: Int?
        if let text = fields["size"] { size = try declaredSize(text) }
        var dimensions: MediaDimensions?
        if let dim = fields["dim"] {
            dimensions = MediaDimensions(field: dim)
            if dimensions == nil { MarmotLog.media.info("imeta dim \(dim.prefix(40)) ignored: malformed or beyond \(MediaDimensions.maxSide) a side") }
        }
        return Self.makeReference(
            url: url, mimeType: type, filename: filename, plaintextSHA256: plaintextHash, nonce: nonce, version: version,
            size: size, dimensions: dimensions, blurhash: previewHash(fields["blurhash"]), thumbhash: previewHash(fields["thumbhash"]),
            blobSHA256: blobHash)
    }

    public func messageTags(_ references: [MediaReference]) -> [[String]] { references.map(\.tag) }

    /// MDK 0.8.0 `create_imeta_tag`'s order: url, m, filename, dim, blurhash, thumbhash, x, n, v.
    static func makeReference(
        url: URL, mimeType: String, filename: String, plaintextSHA256: Data, nonce: Data, version: String, size: Int?,
        dimensions: MediaDimensions?, blurhash: String?, thumbhash: String?, blobSHA256: Data
    ) -> MediaReference {
        var tag = ["imeta", "url \(url.absoluteString)", "m \(mimeType)", "filename \(filename)"]
        if let dimensions { tag.append("dim \(dimensions.field)") }
        if let blurhash { tag.append("blurhash \(blurhash)") }
        if let thumbhash { tag.append("thumbhash \(thumbhash)") }
        tag += ["x \(Hex.encode(plaintextSHA256))", "n \(Hex.encode(nonce))", "v \(version)"]
        // MDK never writes `size`; a received one is kept last so the tag still says it.
        if let size { tag.append("size \(size)") }
        return MediaReference(
            url: url, mimeType: mimeType, filename: filename, plaintextSHA256: plaintextSHA256, nonce: nonce,
            version: version, size: size, dimensions: dimensions, blurhash: blurhash, thumbhash: thumbhash,
            ciphertextSHA256: nil, blobSHA256: blobSHA256, tag: tag)
    }

    /// MDK 0.8.0 `validate_mime_type`: trimmed, lower-cased, parameters dropped, `type/subtype` of
    /// at most 100 bytes, and on the allow-list (no aliases: `image/jpg` is refused, as MDK does).
    public static func canonicalMediaType(_ raw: String) throws(MediaError) -> String {
        let lowered = raw.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        let canonical = (lowered.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard canonical.contains("/"), canonical.utf8.count <= 100 else {
            throw .invalidMediaType("\(raw.prefix(100)) is not a type/subtype")
        }
        guard allowedMediaTypes.contains(canonical) else {
            throw .invalidMediaType("\(canonical) is not an allowed type (MDK 0.8.0's list)")
        }
        return canonical
    }

    /// The image type a file's first bytes announce (the signatures MDK 0.8.0's `image` crate
    /// guesses from, for the types on its allow-list), or nil. MDK refuses to encrypt an image whose
    /// bytes are not the type it is sent as (`validate_mime_type_matches_data`).
    public static func imageType(of data: Data) -> String? {
        let b = [UInt8](data.prefix(12))
        func starts(_ prefix: [UInt8]) -> Bool { b.count >= prefix.count && Array(b.prefix(prefix.count)) == prefix }
        func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }
        if starts([0x89] + ascii("PNG\r\n") + [0x1a, 0x0a]) { return "image/png" }
        if starts([0xff, 0xd8, 0xff]) { return "image/jpeg" }
        if starts(ascii("GIF89a")) || starts(ascii("GIF87a")) { return "image/gif" }
        if starts(ascii("RIFF")), b.count >= 12, Array(b[8..<12]) == ascii("WEBP") { return "image/webp" }
        if starts(ascii("MM") + [0, 0x2a]) || starts(ascii("II") + [0x2a, 0]) { return "image/tiff" }
        if starts(ascii("BM")) { return "image/bmp" }
        if starts([0, 0, 1, 0]) { return "image/x-icon" }
        if b.count >= 12, Array(b[4..<12]) == ascii("ftypavif") { return "image/avif" }
        if starts(ascii("qoif")) { return "image/qoi" }
        if starts(ascii("farbfeld")) { return "image/x-farbfeld" }
        return nil
    }

    /// MDK 0.8.0 `validate_filename`: 1…210 bytes, no `/` or `\`, no control character.
    public static func checkFilename(_ name: String) throws(MediaError) {
        guard !name.isEmpty else { throw .invalidFilename("empty") }
        guard name.utf8.count <= maxFilenameBytes else {
            throw .invalidFilename("\(name.utf8.count) bytes, more than \(maxFilenameBytes)")
        }
        guard !name.contains("/"), !name.contains("\\") else { throw .invalidFilename("it holds a path separator") }
        guard !MediaFilename.hasControl(name) else { throw .invalidFilename("it holds a control character") }
    }
}
