import Nostr

/// Why a kind-445 group event could not be built, accepted or decrypted (MIP-03; marmot-wire §5).
public enum GroupEventError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A group-event key that is not 32 bytes.
    case invalidKeyLength(Int)
    /// The AEAD refused to encrypt (bad nonce size; not expected in practice).
    case encryptionFailed
    /// The event is not kind 445.
    case wrongKind(Kind)
    /// created_at is older than the accepted age.
    case tooOld(createdAt: Int64, oldestAccepted: Int64)
    /// created_at is further in the future than the accepted skew.
    case tooFarInFuture(createdAt: Int64, latestAccepted: Int64)
    /// No `h` tag.
    case missingGroupTag
    /// More than one `h` tag.
    case multipleGroupTags(Int)
    /// The `h` value is not 64 hex characters.
    case invalidGroupTag(String)
    /// No `["encoding","base64"]` tag: the legacy NIP-44 format, which this client does not read.
    case unsupportedEncoding
    /// The event id or signature does not verify.
    case invalidEvent(EventError)
    /// The content is not base64 of at least nonce and tag.
    case invalidContent(String)
    /// No given key authenticates the content.
    case decryptionFailed
    /// The content is longer than `GroupEvent.maxContentLength` (this many bytes): not read.
    case contentTooLong(Int)

    public var description: String {
        switch self {
        case .invalidKeyLength(let n): "group event: key must be 32 bytes, got \(n)"
        case .encryptionFailed: "group event: encryption failed"
        case .wrongKind(let k): "group event: kind \(k) is not 445"
        case .tooOld(let c, let o): "group event: created_at \(c) is older than \(o)"
        case .tooFarInFuture(let c, let l): "group event: created_at \(c) is later than \(l)"
        case .missingGroupTag: "group event: no h tag"
        case .multipleGroupTags(let n): "group event: \(n) h tags"
        case .invalidGroupTag(let v): "group event: h tag \(v.prefix(80)) is not 64 hex characters"
        case .unsupportedEncoding: "group event: no [\"encoding\",\"base64\"] tag (legacy NIP-44 format not supported)"
        case .invalidEvent(let e): "group event: \(e)"
        case .invalidContent(let why): "group event: \(why)"
        case .decryptionFailed: "group event: content does not decrypt with any known epoch key"
        case .contentTooLong(let n): "group event: content of \(n) bytes is longer than \(GroupEvent.maxContentLength)"
        }
    }
}
