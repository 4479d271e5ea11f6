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
    /// The new epoch's GroupContext extensions when a GroupContextExtensions or an AppDataUpdate
    /// proposal was applied (even if the bytes came out the same); nil otherwise.
    public let newExtensions: [Extension]?
    /// PSKs injected into the new epoch.
    public let psks: [PreSharedKeyID]
    /// True when the commit removed this member: the group is now inactive.
    public let removedSelf: Bool
    /// Every proposal the commit covers, in commit order, with its sender and, when committed by
    /// reference, its reference (inline ones are the committer's).
    public let proposals: [CommittedProposal]
    /// The AppDataUpdate proposals applied to the `app_data_dictionary`, in commit order.
    public let appDataUpdates: [CommittedAppDataUpdate]
    /// Whether the commit carried an UpdatePath (the committer's leaf was replaced).
    public let hasUpdatePath: Bool

    /// Whether the group's extensions changed.
    public var extensionsChanged: Bool { newExtensions != nil }
    /// Component ids set by an AppDataUpdate `update`, ascending.
    public var updatedComponentIDs: [UInt16] {
        appDataUpdates.filter { $0.update.operation == .update }.map(\.update.componentID).sorted()
    }
    /// Component ids deleted by an AppDataUpdate `remove`, ascending.
    public var removedComponentIDs: [UInt16] {
        appDataUpdates.filter { $0.update.operation == .remove }.map(\.update.componentID).sorted()
    }
}

/// An AppDataUpdate a commit applied, with who proposed it (draft-ietf-mls-extensions).
public struct CommittedAppDataUpdate: Hashable, Sendable {
    public let update: AppDataUpdate
    /// The proposal's sender; the committer for an inline one.
    public let sender: Sender
    /// The reference it was committed by; nil when inline.
    public let reference: ProposalRef?

    public init(update: AppDataUpdate, sender: Sender, reference: ProposalRef?) {
        self.update = update
        self.sender = sender
        self.reference = reference
    }
}
