import Foundation
import MLS
import Nostr

/// Encrypted media of v2 groups: component 0x800b `marmot.group.encrypted-media.v2`, format
/// `encrypted-media-v2`, as MDK 0.9.14 does it (`marmot-app/src/media/{mod,crypto,host_safety}.rs`,
/// `messages/intents.rs` 326-360). The tag is `imeta v locator… ciphertext_sha256 plaintext_sha256
/// nonce m filename [dim] [thumbhash]`; a reference carries its blob's hash, and we fetch from its
/// first `blossom-v1` locator.
public struct V2MediaScheme: MediaScheme {
    public init() {}

    public var version: String { "encrypted-media-v2" }
    /// The locator kind of Blossom URLs (MDK `BLOSSOM_LOCATOR_KIND_V1`).
    public static let blossomLocator = "blossom-v1"
    /// A chat message (kind 9, `MARMOT_APP_EVENT_KIND_CHAT`) with one `imeta` tag per attachment and
    /// the caption as content.
    public var messageKind: UInt16 { 9 }
    /// MDK 0.9.14 `MAX_ENCRYPTED_MEDIA_BLOB_BYTES` (512 MiB) less the AEAD tag.
    public var maxPlaintextBytes: Int { 512 * 1024 * 1024 - MediaCipher.tagLength }
    /// MDK 0.9.14's filename bound, in bytes.
    public static let maxFilenameBytes = 255

    /// Fields whose bare name (no value) is refused rather than ignored.
    static let knownFields: Set<String> = [
        "locator", "v", "ciphertext_sha256", "plaintext_sha256", "nonce", "m", "filename", "dim", "thumbhash",
    ]

    public func encrypt(
        _ plaintext: Data, mimeType: String, filename: String, dimensions: MediaDimensions?, secret: MediaSecret
    ) throws(MediaError) -> EncryptedMedia {
        try Self.checkFilename(filename)
        let type = try Self.canonicalMediaType(mimeType)
        let sealed = try sealFile(plaintext, mimeType: type, filename: filename, secret: secret)
        let blobHash = MediaCipher.sha256(sealed.ciphertext)
        let version = version
        return EncryptedMedia(ciphertext: sealed.ciphertext, ciphertextSHA256: blobHash) { url in
            Self.makeReference(
                version: version, locators: [(Self.blossomLocator, url.absoluteString)], url: url,
                ciphertextHex: Hex.encode(blobHash), plaintextHex: Hex.encode(sealed.plaintextSHA256),
                nonceHex: Hex.encode(sealed.nonce), mimeType: type, filename: filename, dim: dimensions?.field,
                thumbhash: nil, blobSHA256: blobHash, plaintextSHA256: sealed.plaintextSHA256, nonce: sealed.nonce)
        }
    }

    public func decrypt(_ ciphertext: Data, reference: MediaReference, secret: MediaSecret) throws(MediaError) -> Data {
        try openBlob(ciphertext, reference: reference, secret: secret)
    }

    /// MDK 0.9.14 `media_attachment_from_imeta_tag` and `validate`: single fields at most once, no
    /// blurhash, every locator with a kind and a URL, the type already canonical, the filename
    /// 1…255 bytes without NUL. Beyond MDK at parse time: the `blossom-v1` locators must pass
    /// `policy` and name `ciphertext_sha256` (MDK checks both when it fetches), and one must exist.
    public func reference(imeta: [String], policy: MediaURLPolicy) throws(MediaError) -> MediaReference {
        var fields = ImetaFields()
        var locators: [(kind: String, value: String)] = []
        for (key, value) in try ImetaFields.entries(imeta) {
            if key == "blurhash" { throw .invalidField("blurhash", "encrypted media uses thumbhash, not blurhash") }
            guard let value else {
                if Self.knownFields.contains(key) { throw .missingField(key) }
                continue
            }
            if key == "locator" {
                guard let space = value.firstIndex(of: " ") else { throw .invalidField("locator", "must hold a kind and a value") }
                locators.append((String(value[..<space]), String(value[value.index(after: space)...])))
                continue
            }
            if Self.knownFields.contains(key) || key == "size" { try fields.once(key, value) }
        }
        func required(_ key: String) throws(MediaError) -> String {
            guard let value = fields[key], !value.isEmpty else { throw .missingField(key) }
            return value
        }
        let ciphertextHex = try required("ciphertext_sha256")
        let plaintextHex = try required("plaintext_sha256")
        let nonceHex = try required("nonce")
        let filename = try required("filename")
        let type = try required("m")
        let version = try required("v")
        guard version == self.version else { throw .unsupportedVersion(version) }
        let blobHash = try ImetaFields.hex(ciphertextHex, field: "ciphertext_sha256", count: 32)
        let plaintextHash = try ImetaFields.hex(plaintextHex, field: "plaintext_sha256", count: 32)
        let nonce = try ImetaFields.hex(nonceHex, field: "nonce", count: MediaCipher.nonceLength)
        guard !locators.isEmpty else { throw .missingField("locator") }
        var fetchFrom: URL?
        for locator in locators {
            guard !locator.kind.trimmingCharacters(in: .whitespaces).isEmpty,
                  !locator.value.trimmingCharacters(in: .whitespaces).isEmpty
            else { throw .invalidField("locator", "kind and value must not be empty") }
            guard let parsed = URL(string: locator.value), parsed.scheme != nil else {
                throw .invalidField("locator", "\(locator.value.prefix(100)) is not a URL")
            }
            guard locator.kind == Self.blossomLocator else { continue }
            let url = try policy.url(locator.value)
            if let named = BlobURL.sha256(in: url), named != blobHash {
                throw .invalidField("locator", "names another blob than ciphertext_sha256")
            }
            if fetchFrom == nil { fetchFrom = url }
        }
        guard let url = fetchFrom else { throw .invalidField("locator", "none is a \(Self.blossomLocator) URL we can fetch") }
        try Self.checkFilename(filename)
        guard try Self.canonicalMediaType(type) == type else { throw .invalidMediaType("\(type.prefix(100)) is not canonical") }
        // Not an MDK field (it ignores it); a size some client declares is bounded like v1's.
        var size: Int?
        if let text = fields["size"] { size = try declaredSize(text) }
        var dimensions: MediaDimensions?
        if let dim = fields["dim"], !dim.isEmpty {
            dimensions = MediaDimensions(field: dim)
            if dimensions == nil { MarmotLog.media.info("imeta dim \(dim.prefix(40)) ignored: malformed or beyond \(MediaDimensions.maxSide) a side") }
        }
        return Self.makeReference(
            version: version, locators: locators, url: url, ciphertextHex: ciphertextHex, plaintextHex: plaintextHex,
            nonceHex: nonceHex, mimeType: type, filename: filename, dim: fields["dim"], thumbhash: previewHash(fields["thumbhash"]),
            blobSHA256: blobHash, plaintextSHA256: plaintextHash, nonce: nonce, dimensions: dimensions, size: size)
    }

    public func messageTags(_ references: [MediaReference]) -> [[String]] { references.map(\.tag) }

    /// MDK 0.9.14 `imeta_tag`'s order; optional fields are written whenever present, even empty
    /// (`dim ` and no `dim` are different authenticated inputs to MDK's round trip).
    static func makeReference(
        version: String, locators: [(kind: String, value: String)], url: URL, ciphertextHex: String, plaintextHex: String,
        nonceHex: String, mimeType: String, filename: String, dim: String?, thumbhash: String?, blobSHA256: Data,
        plaintextSHA256: Data, nonce: Data, dimensions: MediaDimensions? = nil, size: Int? = nil
    ) -> MediaReference {
        var tag = ["imeta", "v \(version)"]
        tag += locators.map { "locator \($0.kind) \($0.value)" }
        tag += [
            "ciphertext_sha256 \(ciphertextHex)", "plaintext_sha256 \(plaintextHex)", "nonce \(nonceHex)", "m \(mimeType)",
            "filename \(filename)",
        ]
        if let dim { tag.append("dim \(dim)") }
        if let thumbhash { tag.append("thumbhash \(thumbhash)") }
        if let size { tag.append("size \(size)") }
        return MediaReference(
            url: url, mimeType: mimeType, filename: filename, plaintextSHA256: plaintextSHA256, nonce: nonce,
            version: version, size: size, dimensions: dimensions ?? dim.flatMap(MediaDimensions.init(field:)),
            blurhash: nil, thumbhash: thumbhash, ciphertextSHA256: blobSHA256, blobSHA256: blobSHA256, tag: tag)
    }

    /// MDK 0.9.14 `canonical_media_type_v2`: parameters dropped, HTTP whitespace trimmed,
    /// lower-cased, `type/subtype` of HTTP token characters (≤ 64 each, ≤ 128 in all), `image/jpg`
    /// read as `image/jpeg`.
    public static func canonicalMediaType(_ raw: String) throws(MediaError) -> String {
        let head = raw.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        let whitespace: Set<Character> = ["\t", "\n", "\u{0C}", "\r", " "]
        var trimmed = Substring(head)
        while let first = trimmed.first, whitespace.contains(first) { trimmed.removeFirst() }
        while let last = trimmed.last, whitespace.contains(last) { trimmed.removeLast() }
        let type = String(trimmed).lowercased()
        let parts = type.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, parts[0].utf8.count <= 64, parts[1].utf8.count <= 64,
              type.utf8.count <= 128, parts.allSatisfy({ $0.utf8.allSatisfy(isTokenByte) })
        else { throw .invalidMediaType("\(raw.prefix(100)) is not a canonicalizable MIME type") }
        return type == "image/jpg" ? "image/jpeg" : type
    }

    /// MDK 0.9.14: 1…255 bytes, no NUL (anything else is authenticated as sent; show `safeFilename`).
    public static func checkFilename(_ name: String) throws(MediaError) {
        guard !name.isEmpty, name.utf8.count <= maxFilenameBytes, !name.contains("\0") else {
            throw .invalidFilename("must be 1…\(maxFilenameBytes) UTF-8 bytes without NUL")
        }
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }
}
