import Foundation

/// One checked `imeta` reference to an encrypted blob, parsed from the tag of a received message
/// or made after an upload (`EncryptedMedia.reference(url:)`); `tag` renders it as the reference
/// implementation of its version writes it (v1: MDK 0.8.0 `create_imeta_tag`; v2: MDK 0.9.14
/// `MediaAttachmentReference::imeta_tag`).
public struct MediaReference: Sendable, Hashable {
    /// Where the encrypted blob is fetched from; it passed the `MediaURLPolicy` it was read under.
    public let url: URL
    /// The canonical media type; part of the key derivation and the AEAD associated data.
    public let mimeType: String
    /// The filename exactly as authenticated (key derivation and associated data). Display and
    /// save it as `safeFilename`: in v2 it may hold separators or `..`.
    public let filename: String
    /// SHA-256 of the original file (`x` in v1, `plaintext_sha256` in v2); keys derive from it.
    public let plaintextSHA256: Data
    /// The 12-byte ChaCha20-Poly1305 nonce.
    public let nonce: Data
    /// The `v` field: `mip04-v2` (v1 groups) or `encrypted-media-v2` (v2 groups).
    public let version: String
    /// A declared plaintext size (NIP-94 `size`), when the tag states one; neither reference writes it.
    public let size: Int?
    /// Bounded dimensions, or nil when absent or out of bounds (`MediaDimensions`).
    public let dimensions: MediaDimensions?
    /// Preview hashes, passed through (v1 may carry both; v2 refuses blurhash).
    public let blurhash: String?
    public let thumbhash: String?
    /// The blob's SHA-256 as the tag states it (v2 `ciphertext_sha256`); nil in v1, whose tag has none.
    public let ciphertextSHA256: Data?
    /// What the Blossom server names the blob by: `ciphertextSHA256`, or in v1 the hash in the URL's
    /// last path segment. A fetched blob must hash to it before it is decrypted.
    public let blobSHA256: Data
    /// The `imeta` tag.
    public let tag: [String]

    init(
        url: URL, mimeType: String, filename: String, plaintextSHA256: Data, nonce: Data, version: String,
        size: Int?, dimensions: MediaDimensions?, blurhash: String?, thumbhash: String?, ciphertextSHA256: Data?,
        blobSHA256: Data, tag: [String]
    ) {
        self.url = url
        self.mimeType = mimeType
        self.filename = filename
        self.plaintextSHA256 = plaintextSHA256
        self.nonce = nonce
        self.version = version
        self.size = size
        self.dimensions = dimensions
        self.blurhash = blurhash
        self.thumbhash = thumbhash
        self.ciphertextSHA256 = ciphertextSHA256
        self.blobSHA256 = blobSHA256
        self.tag = tag
    }

    /// A name safe to show and to save under: `MediaFilename.safe(filename)`.
    public var safeFilename: String { MediaFilename.safe(filename) }
}
