import Foundation

/// Why a media file or its `imeta` reference was refused (MIP-04 as MDK 0.8.0; 0x800b as MDK 0.9.14).
/// Every case names what is wrong, never a key or plaintext.
public enum MediaError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The tag's first element is not `imeta`.
    case notImeta
    /// A required field is absent (or present without a value).
    case missingField(String)
    /// A field that must appear once appears again (the key depends on it: first-wins and
    /// last-wins readers would derive different keys).
    case duplicateField(String)
    /// A field is not valid; the text says which and why.
    case invalidField(String, String)
    /// `v` names a version this scheme does not read.
    case unsupportedVersion(String)
    /// The media type is malformed, not allowed, or not in canonical form where that is required.
    case invalidMediaType(String)
    /// The filename breaks the version's rules (empty, too long, separators, control characters).
    case invalidFilename(String)
    /// The URL does not parse, or is not http(s).
    case invalidURL(String)
    /// The URL points where we do not fetch from (private network, loopback, link-local, local names).
    case unsafeURL(String)
    /// The file, or a declared size, is over the version's limit.
    case tooLarge(size: Int, max: Int)
    /// Nothing to encrypt.
    case emptyFile
    /// The MLS exporter failed.
    case exporterFailed(String)
    /// A media secret must be 32 bytes.
    case invalidSecretLength(Int)
    /// The reference was made by another version's scheme.
    case wrongScheme(expected: String, actual: String)
    /// The blob's SHA-256 is not the one the reference names (checked before decryption).
    case blobHashMismatch
    /// ChaCha20-Poly1305 did not authenticate: wrong epoch secret, tampered blob or metadata.
    case decryptionFailed
    /// The decrypted file's SHA-256 is not the reference's plaintext hash.
    case plaintextHashMismatch
    /// ChaCha20-Poly1305 refused to seal.
    case encryptionFailed

    public var description: String {
        switch self {
        case .notImeta: "the tag is not an imeta tag"
        case .missingField(let name): "imeta lacks its \(name) field"
        case .duplicateField(let name): "imeta has more than one \(name) field"
        case .invalidField(let name, let why): "imeta \(name) is invalid: \(why)"
        case .unsupportedVersion(let version): "unsupported encrypted media version \(version)"
        case .invalidMediaType(let why): "media type refused: \(why)"
        case .invalidFilename(let why): "file name refused: \(why)"
        case .invalidURL(let why): "media URL refused: \(why)"
        case .unsafeURL(let why): "media URL refused: \(why)"
        case .tooLarge(let size, let max): "media of \(size) bytes exceeds the limit of \(max) bytes"
        case .emptyFile: "media file is empty"
        case .exporterFailed(let why): "the MLS exporter failed: \(why)"
        case .invalidSecretLength(let count): "media secret is \(count) bytes, not 32"
        case .wrongScheme(let expected, let actual): "reference is \(actual), this group's media is \(expected)"
        case .blobHashMismatch: "the blob's SHA-256 is not the one the reference names"
        case .decryptionFailed: "media does not decrypt: wrong epoch secret or tampered blob or metadata"
        case .plaintextHashMismatch: "the decrypted file's SHA-256 is not the reference's"
        case .encryptionFailed: "media encryption failed"
        }
    }
}
