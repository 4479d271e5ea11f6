import Foundation

/// How many zero bytes a sender appends to a PrivateMessageContent (RFC 9420 §6.3.1), hiding the
/// exact content length from observers of the ciphertext.
public enum PaddingPolicy: Hashable, Sendable {
    /// No padding.
    case none
    /// Pad the encoded content (body, auth, padding) up to the next multiple of `blockSize` bytes.
    case multiple(of: Int)
    /// Pad the encoded content up to at least `length` bytes; longer contents are not padded.
    case minimumLength(Int)

    /// The padding for content whose encoding without padding is `length` bytes.
    func paddingLength(forContentLength length: Int) throws(MessageProtectionError) -> Int {
        switch self {
        case .none:
            return 0
        case .multiple(let blockSize):
            guard blockSize > 0 else { throw .invalidPadding }
            return (blockSize - length % blockSize) % blockSize
        case .minimumLength(let target):
            guard target >= 0 else { throw .invalidPadding }
            return max(0, target - length)
        }
    }
}
