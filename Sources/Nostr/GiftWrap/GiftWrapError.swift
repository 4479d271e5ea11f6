/// Errors from sealing, wrapping and unwrapping NIP-59 gift wraps.
public enum GiftWrapError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The outer event is not kind 1059.
    case notGiftWrap(Kind)
    /// The wrap's id or signature is invalid.
    case invalidWrap(EventError)
    /// The wrap content could not be decrypted with the recipient key.
    case wrapDecryption(NIP44Error)
    /// The decrypted wrap content is not a valid signed event.
    case invalidSeal(EventError)
    /// The seal is not kind 13, or has tags (NIP-59 requires them empty).
    case malformedSeal(String)
    /// The seal content could not be decrypted.
    case sealDecryption(NIP44Error)
    /// The decrypted seal content is not a rumor.
    case invalidRumor(EventError)
    /// The rumor claims another author than the key that signed the seal (impersonation attempt).
    case authorMismatch(seal: PublicKey, rumor: PublicKey)
    /// The rumor's pubkey is not the sealing author's key.
    case rumorNotByAuthor

    public var description: String {
        switch self {
        case .notGiftWrap(let k): "gift wrap: kind \(k) is not 1059"
        case .invalidWrap(let e): "gift wrap: wrap \(e)"
        case .wrapDecryption(let e): "gift wrap: wrap \(e)"
        case .invalidSeal(let e): "gift wrap: seal \(e)"
        case .malformedSeal(let why): "gift wrap: malformed seal: \(why)"
        case .sealDecryption(let e): "gift wrap: seal \(e)"
        case .invalidRumor(let e): "gift wrap: rumor \(e)"
        case .authorMismatch(let s, let r): "gift wrap: seal signed by \(s) but rumor claims \(r)"
        case .rumorNotByAuthor: "gift wrap: the rumor's pubkey is not the author's"
        }
    }
}
