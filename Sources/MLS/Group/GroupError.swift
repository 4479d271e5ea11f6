import Foundation

/// Why a group operation failed (RFC 9420 §6, §8, §11, §12, §14).
///
/// Every operation that throws leaves the group exactly as it was: state transitions build a new
/// value and only replace the old one once every check has passed.
public enum GroupError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A handshake message (or an application message from an epoch no longer kept) for another epoch.
    case wrongEpoch(expected: UInt64, got: UInt64)
    /// The message names another group.
    case wrongGroupID(GroupID)
    /// No member (or external sender) is known for the message's sender.
    case unknownSender(Sender)
    /// The sender type or wire format is not allowed for this content (§6.1, §6.3.2).
    case senderNotAllowed(String)
    /// The FramedContent signature does not verify under the sender's key (§6.1).
    case badSignature
    /// A member PublicMessage whose membership tag is missing or wrong (§6.2).
    case badMembershipTag
    /// The commit's confirmation tag does not match the new epoch's confirmation key (§8.2).
    case badConfirmationTag
    /// A proposal is invalid on its own (§12.1) or under the group's policy.
    case invalidProposal(String)
    /// A commit is invalid: its proposal list (§12.2), path or shape.
    case invalidCommit(String)
    /// A commit refers to a proposal this member has not received in this epoch (§12.4).
    case missingProposal(ProposalRef)
    /// A commit omits the UpdatePath its proposals require (§12.4).
    case pathRequired
    /// The member is no longer in the group (removed), or the message names a blank leaf.
    case notAMember
    /// A PrivateMessage did not decrypt (sender data or content).
    case decryptionFailed
    /// The generation's key was already used: a duplicate or replayed message (§9.2).
    case keyAlreadyUsed(generation: UInt32)
    /// The generation lies outside the kept window (§9.2, §15.3).
    case generationOutOfWindow(generation: UInt32)
    /// The message was sent by this member; its keys are gone, so it is not processed again.
    case ownMessage
    /// Bytes that do not parse, or a parsed message that is not well formed.
    case malformedMessage(String)
    /// A message kind the group does not process here (Welcome, KeyPackage, external commit, …).
    case unsupportedMessage(String)
    /// An incoming handshake (proposal or commit) in a wire format the configuration does not
    /// accept: `acceptPublicHandshakes` / `acceptPrivateHandshakes` (Marmot v2 refuses PrivateMessage).
    case wireFormatNotAllowed(WireFormat)
    /// A PSK named by a proposal or Welcome is not available (§8.4).
    case missingPSK(PreSharedKeyID)
    /// Proposals are pending: a member must commit them before sending application data (§12.4).
    case pendingProposals(Int)
    /// A KeyPackage failed validation (§10.1).
    case invalidKeyPackage(KeyPackageValidationError)
    /// A LeafNode failed validation (§7.3).
    case invalidLeafNode(LeafNodeValidationError)
    /// A commit's proposal list failed validation (§12.2).
    case invalidProposalList(ProposalListValidationError)
    /// GroupContext extensions some member does not support (§11.1, §12.1.7, §13.4).
    case invalidGroupContextExtensions(GroupContextExtensionsError)
    /// Private keys given to create or join a group do not belong to the leaf or KeyPackage.
    case privateKeyMismatch(String)
    /// A Welcome could not be used to join (§12.4.3.1).
    case invalidWelcome(String)
    /// The ratchet tree rejected an operation (§7).
    case tree(TreeError)
    /// A serialized group state that cannot be restored.
    case invalidState(String)
    /// An input or counter beyond what MLS can encode or the group can reach: a value of 2^30 bytes
    /// or more (§2.1.2), or an epoch that cannot advance past 2^64 - 1.
    case tooLarge(String)
    /// Only suite 0x0001 is implemented.
    case unsupportedCipherSuite(CipherSuite)
    /// A cipher-suite primitive failed for a reason other than authentication.
    case crypto(MLSCryptoError)

    public var description: String {
        switch self {
        case .wrongEpoch(let expected, let got): "message is for epoch \(got), group is at epoch \(expected)"
        case .wrongGroupID(let id): "message is for another group (\(id))"
        case .unknownSender(let sender): "unknown sender \(sender)"
        case .senderNotAllowed(let why): "sender not allowed: \(why)"
        case .badSignature: "signature does not verify"
        case .badMembershipTag: "membership tag missing or invalid"
        case .badConfirmationTag: "confirmation tag does not verify"
        case .invalidProposal(let why): "invalid proposal: \(why)"
        case .invalidCommit(let why): "invalid commit: \(why)"
        case .missingProposal(let ref): "commit refers to unknown \(ref)"
        case .pathRequired: "commit lacks the UpdatePath its proposals require"
        case .notAMember: "not a member of the group"
        case .decryptionFailed: "message does not decrypt"
        case .keyAlreadyUsed(let g): "key for generation \(g) was already used"
        case .generationOutOfWindow(let g): "generation \(g) is outside the accepted window"
        case .ownMessage: "message was sent by this member"
        case .malformedMessage(let why): "malformed message: \(why)"
        case .unsupportedMessage(let why): "unsupported message: \(why)"
        case .wireFormatNotAllowed(let format):
            switch format {
            case .privateMessage: "PrivateMessage handshakes are not accepted by this group (PublicMessage only)"
            case .publicMessage: "PublicMessage handshakes are not accepted by this group"
            default: "wire format \(format) not accepted"
            }
        case .missingPSK(let id): "PSK not available: \(id.kind)"
        case .pendingProposals(let n): "\(n) pending proposals must be committed first"
        case .invalidKeyPackage(let error): "invalid KeyPackage: \(error)"
        case .invalidLeafNode(let error): "invalid LeafNode: \(error)"
        case .invalidProposalList(let error): "invalid proposal list: \(error)"
        case .invalidGroupContextExtensions(let error): "invalid GroupContext extensions: \(error)"
        case .privateKeyMismatch(let why): "private keys do not match: \(why)"
        case .invalidWelcome(let why): "cannot join from Welcome: \(why)"
        case .tree(let error): "ratchet tree: \(error)"
        case .invalidState(let why): "invalid group state: \(why)"
        case .tooLarge(let what): "too large: \(what)"
        case .unsupportedCipherSuite(let suite): "unsupported cipher suite \(suite)"
        case .crypto(let error): "crypto failure: \(error)"
        }
    }
}

extension GroupError {
    /// The group error for a framing failure while processing a message of the current epoch.
    init(_ error: MessageProtectionError, currentEpoch: UInt64) {
        switch error {
        case .wrongGroup(let id): self = .wrongGroupID(id)
        case .wrongEpoch(let epoch): self = .wrongEpoch(expected: currentEpoch, got: epoch)
        case .unknownSender(let sender): self = .unknownSender(sender)
        case .senderNotAllowed(let sender, let type): self = .senderNotAllowed("\(sender) may not send \(type)")
        case .applicationMessageMustBeEncrypted: self = .senderNotAllowed("application data must be a PrivateMessage")
        case .badMembershipTag: self = .badMembershipTag
        case .badSignature: self = .badSignature
        case .confirmationTagMismatch: self = .malformedMessage("confirmation tag present exactly for commits")
        case .groupContextRequired: self = .malformedMessage("group context required")
        case .senderDataDecryptionFailed, .decryptionFailed: self = .decryptionFailed
        case .malformedSenderData: self = .malformedMessage("sender data")
        case .malformedContent(let why): self = .malformedMessage(why)
        case .keyAlreadyUsed(let generation): self = .keyAlreadyUsed(generation: generation)
        case .generationOutOfWindow(let generation): self = .generationOutOfWindow(generation: generation)
        case .generationsExhausted: self = .invalidState("sender ratchet generations exhausted")
        case .invalidPadding: self = .invalidState("invalid padding policy")
        case .crypto(let error): self = .crypto(error)
        }
    }
}

extension GroupError {
    /// A proposal-list failure, with the path rule and leaf and KeyPackage failures lifted out.
    init(_ error: ProposalListValidationError) {
        switch error {
        case .pathRequired: self = .pathRequired
        case .invalidKeyPackage(_, let inner): self = .invalidKeyPackage(inner)
        case .invalidUpdate(_, let inner): self = .invalidLeafNode(inner)
        case .invalidGroupContextExtensions(let inner): self = .invalidGroupContextExtensions(inner)
        default: self = .invalidProposalList(error)
        }
    }
}
