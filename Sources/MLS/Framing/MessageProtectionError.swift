import Foundation

/// Why protecting or unprotecting a PublicMessage or PrivateMessage failed (RFC 9420 §6).
///
/// Every failure of `unprotect` leaves the caller's state (secret tree) unchanged, so a forged,
/// replayed or garbled message costs nothing but the attempt.
public enum MessageProtectionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The message is for another group than the context it is processed in.
    case wrongGroup(GroupID)
    /// The message is for another epoch than the context it is processed in.
    case wrongEpoch(UInt64)
    /// No signature key is known for the sender (blank or out-of-range leaf, unknown external sender).
    case unknownSender(Sender)
    /// The sender type may not send this content or use this wire format (§6.1, §6.3.2, §12.1.8).
    case senderNotAllowed(Sender, ContentType)
    /// Application data must travel as PrivateMessage (§6).
    case applicationMessageMustBeEncrypted
    /// A member's PublicMessage has no membership tag, or its tag does not verify (§6.2).
    case badMembershipTag
    /// SignWithLabel(., "FramedContentTBS", .) does not verify under the sender's key (§6.1).
    case badSignature
    /// A commit without a confirmation tag, or a non-commit with one (§6.1).
    case confirmationTagMismatch
    /// The sender signs over the GroupContext (member, new_member_commit) but none was given (§6.1).
    case groupContextRequired
    /// The sender data does not decrypt under the key derived from the ciphertext sample (§6.3.2).
    case senderDataDecryptionFailed
    /// The decrypted sender data is not a well-formed SenderData.
    case malformedSenderData
    /// The content does not decrypt under the sender's ratchet key for its generation (§6.3.1).
    case decryptionFailed
    /// The decrypted content is not a well-formed PrivateMessageContent (including non-zero padding).
    case malformedContent(String)
    /// The generation's key was already used: a replayed or duplicated message (§9.2).
    case keyAlreadyUsed(generation: UInt32)
    /// The generation is outside the window of keys kept or derivable (§9.2, §15.3).
    case generationOutOfWindow(generation: UInt32)
    /// The sender's ratchet ran out of generations in this epoch.
    case generationsExhausted
    /// The padding policy is invalid (non-positive block size).
    case invalidPadding
    /// A cipher-suite primitive failed for a reason other than authentication.
    case crypto(MLSCryptoError)

    public var description: String {
        switch self {
        case .wrongGroup(let id): "message is for another group (\(id))"
        case .wrongEpoch(let epoch): "message is for epoch \(epoch), not the current one"
        case .unknownSender(let sender): "no signature key known for sender \(sender)"
        case .senderNotAllowed(let sender, let type): "sender \(sender) may not send \(type) here"
        case .applicationMessageMustBeEncrypted: "application messages must be PrivateMessages"
        case .badMembershipTag: "membership tag missing or invalid"
        case .badSignature: "signature does not verify"
        case .confirmationTagMismatch: "confirmation tag present exactly for commits"
        case .groupContextRequired: "this sender signs over the GroupContext, which was not given"
        case .senderDataDecryptionFailed: "sender data does not decrypt"
        case .malformedSenderData: "sender data is malformed"
        case .decryptionFailed: "content does not decrypt"
        case .malformedContent(let why): "decrypted content is malformed: \(why)"
        case .keyAlreadyUsed(let g): "key for generation \(g) was already used"
        case .generationOutOfWindow(let g): "generation \(g) is outside the accepted window"
        case .generationsExhausted: "sender ratchet generations exhausted"
        case .invalidPadding: "invalid padding policy"
        case .crypto(let error): "crypto failure: \(error)"
        }
    }
}

extension MessageProtectionError {
    /// Maps a secret-tree failure for `leaf` to the framing error a receiver reports.
    init(_ error: SecretTreeError, leaf: LeafIndex) {
        switch error {
        case .leafOutOfRange: self = .unknownSender(.member(leafIndex: leaf))
        case .keyAlreadyUsed(let generation): self = .keyAlreadyUsed(generation: generation)
        case .generationTooOld(let generation, _), .generationTooFarAhead(let generation, _):
            self = .generationOutOfWindow(generation: generation)
        case .generationsExhausted: self = .generationsExhausted
        }
    }
}
