import Foundation
import MLS

/// The encrypted-media rules of one protocol version: the epoch secret, file encryption, the
/// `imeta` reference and its validation, the message that carries references. Implemented twice,
/// side by side: `V1MediaScheme` (MIP-04 `mip04-v2` as MDK 0.8.0) and `V2MediaScheme` (component
/// 0x800b `encrypted-media-v2` as MDK 0.9.14); a group's `GroupRules.media` picks one.
public protocol MediaScheme: Sendable {
    /// The `v` value of this version's references.
    var version: String { get }
    /// The current epoch's media secret of `group`.
    func secret(of group: MLSGroup) throws(MediaError) -> MediaSecret
    /// Encrypts a file under `secret` with a fresh random nonce; the type is canonicalised and the
    /// type and filename checked as this version's reference does before anything is encrypted.
    func encrypt(
        _ plaintext: Data, mimeType: String, filename: String, dimensions: MediaDimensions?, secret: MediaSecret
    ) throws(MediaError) -> EncryptedMedia
    /// Decrypts a fetched blob: its SHA-256 must be `reference.blobSHA256` (before decryption),
    /// it must authenticate under the key of `secret` (the sender's epoch) and the reference's
    /// metadata, and the plaintext must hash to `reference.plaintextSHA256`.
    func decrypt(_ ciphertext: Data, reference: MediaReference, secret: MediaSecret) throws(MediaError) -> Data
    /// Reads and checks a received `imeta` tag; hostile input gets a clear error.
    func reference(imeta: [String], policy: MediaURLPolicy) throws(MediaError) -> MediaReference
    /// The rumor kind of a message that carries media.
    var messageKind: UInt16 { get }
    /// The tags such a message carries for `references` (a caption's tags are the sender's to add).
    func messageTags(_ references: [MediaReference]) -> [[String]]
    /// The largest file this version encrypts.
    var maxPlaintextBytes: Int { get }
}

extension MediaScheme {
    /// Both versions export `MLS-Exporter("marmot", "encrypted-media", 32)`.
    public func secret(of group: MLSGroup) throws(MediaError) -> MediaSecret {
        try MediaSecret(exportedFrom: group)
    }

    /// The checks and decryption both versions share, under this version's label.
    func openBlob(_ ciphertext: Data, reference: MediaReference, secret: MediaSecret) throws(MediaError) -> Data {
        guard reference.version == version else { throw .wrongScheme(expected: version, actual: reference.version) }
        let limit = maxPlaintextBytes + MediaCipher.tagLength
        guard ciphertext.count <= limit else { throw .tooLarge(size: ciphertext.count, max: limit) }
        guard MediaCipher.sha256(ciphertext) == reference.blobSHA256 else { throw .blobHashMismatch }
        let key = try MediaCipher.key(
            secret: secret, label: version, plaintextSHA256: reference.plaintextSHA256, mimeType: reference.mimeType,
            filename: reference.filename)
        let aad = MediaCipher.context(
            label: version, plaintextSHA256: reference.plaintextSHA256, mimeType: reference.mimeType,
            filename: reference.filename)
        let plaintext = try MediaCipher.open(ciphertext, key: key, nonce: reference.nonce, aad: aad)
        guard MediaCipher.sha256(plaintext) == reference.plaintextSHA256 else { throw .plaintextHashMismatch }
        return plaintext
    }

    /// Hashes and seals a checked file under this version's label; returns the sealed bytes, the
    /// plaintext hash and the nonce.
    func sealFile(
        _ plaintext: Data, mimeType: String, filename: String, secret: MediaSecret
    ) throws(MediaError) -> (ciphertext: Data, plaintextSHA256: Data, nonce: Data) {
        guard !plaintext.isEmpty else { throw .emptyFile }
        guard plaintext.count <= maxPlaintextBytes else { throw .tooLarge(size: plaintext.count, max: maxPlaintextBytes) }
        let hash = MediaCipher.sha256(plaintext)
        let key = try MediaCipher.key(secret: secret, label: version, plaintextSHA256: hash, mimeType: mimeType, filename: filename)
        let nonce = MediaCipher.randomNonce()
        let aad = MediaCipher.context(label: version, plaintextSHA256: hash, mimeType: mimeType, filename: filename)
        return (try MediaCipher.seal(plaintext, key: key, nonce: nonce, aad: aad), hash, nonce)
    }

    /// A declared `size` must be a decimal no larger than this version's largest blob.
    func declaredSize(_ text: String) throws(MediaError) -> Int {
        guard !text.isEmpty, text.count <= 19, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let size = Int(text) else {
            throw .invalidField("size", "not a decimal byte count")
        }
        guard size <= maxPlaintextBytes + MediaCipher.tagLength else {
            throw .tooLarge(size: size, max: maxPlaintextBytes + MediaCipher.tagLength)
        }
        return size
    }
}

/// Preview hashes (blurhash, thumbhash) longer than this are dropped: they are only rendering hints.
let maxPreviewHashBytes = 512

/// A preview hash as received, or nil (with a log line) when longer than `maxPreviewHashBytes`.
func previewHash(_ value: String?) -> String? {
    guard let value else { return nil }
    guard value.utf8.count <= maxPreviewHashBytes else {
        MarmotLog.media.info("imeta preview hash of \(value.utf8.count) bytes dropped")
        return nil
    }
    return value
}
