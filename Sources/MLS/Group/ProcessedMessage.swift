import Foundation

/// What processing one incoming MLSMessage produced (RFC 9420 §6, §12).
public enum ProcessedMessage: Hashable, Sendable {
    /// Application data from a member, of the current or a retained past epoch.
    case application(ApplicationMessage)
    /// A proposal, now pending under its reference until a commit covers it.
    case proposal(PendingProposal)
    /// A commit from another member: the group moved to the next epoch (or removed this member).
    case commit(CommitSummary)
    /// This member's own commit, echoed back after its state was merged; nothing changed.
    case ownCommit(epoch: UInt64)
    /// This member's own proposal, echoed back; it was already pending, nothing changed.
    case ownProposal(ProposalRef)
}

/// A decrypted application message and who sent it.
public struct ApplicationMessage: Hashable, Sendable {
    public let data: Data
    public let sender: LeafIndex
    /// The sender's credential in the epoch the message was sent in.
    public let credential: Credential
    public let authenticatedData: Data
    /// The epoch the message was sent in (a retained past epoch for late messages).
    public let epoch: UInt64
}

/// What a commit changed (RFC 9420 §12.3, §12.4.2).
public struct CommitSummary: Hashable, Sendable {
    /// The committing member.
    public let committer: LeafIndex
    /// The epoch the commit started (unchanged when this member was removed).
    public let epoch: UInt64
    /// Members added by Add proposals, at their new leaves.
    public let added: [GroupMember]
    /// Members removed by Remove or SelfRemove proposals, as they were before the commit.
    public let removed: [GroupMember]
    /// The subset of `removed` that left by their own SelfRemove proposal.
    public let selfRemoved: [LeafIndex]
    /// Leaves whose LeafNode changed: Update proposals and the committer's UpdatePath.
    public let updated: [LeafIndex]
    /// The new GroupContext extensions when a GroupContextExtensions proposal was applied.
    public let newExtensions: [Extension]?
    /// PSKs injected into the new epoch.
    public let psks: [PreSharedKeyID]
    /// True when the commit removed this member: the group is now inactive.
    public let removedSelf: Bool

    /// Whether the group's extensions changed.
    public var extensionsChanged: Bool { newExtensions != nil }
}
