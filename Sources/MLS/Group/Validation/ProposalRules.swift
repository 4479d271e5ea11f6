import Foundation

extension ProposalType {
    /// Whether a Commit covering this type must carry an UpdatePath (RFC 9420 §12.4, §17.4 "Path"):
    /// only add, psk and reinit do not, nor does app_data_update (draft-ietf-mls-extensions
    /// §AppDataUpdate: "do not require an UpdatePath"; OpenMLS agrees). self_remove requires one
    /// (registry entry "Path Required: Y"), and unknown types are treated as requiring one.
    public var requiresPath: Bool { !(self == .add || self == .psk || self == .reinit || self == .appDataUpdate) }

    /// Whether an external sender may send this type (§12.1.8, §17.4 "Ext"): add, remove, psk, reinit
    /// and group_context_extensions, plus app_data_update (draft-ietf-mls-extensions §AppDataUpdate).
    /// self_remove may not (draft-ietf-mls-extensions), nor may types this code does not know.
    public var allowedFromExternalSender: Bool {
        self == .add || self == .remove || self == .psk || self == .reinit || self == .groupContextExtensions
            || self == .appDataUpdate
    }

    /// Whether `sender` may send a proposal of this type (§6.1, §12.1.6, §12.1.8):
    /// members anything but external_init; external senders the "Ext" types; new_member_proposal only
    /// add; an external committer (new_member_commit) only external_init, remove and psk, inline.
    public func canBeSent(by sender: Sender) -> Bool {
        switch sender {
        case .member: self != .externalInit
        case .external: allowedFromExternalSender
        case .newMemberProposal: self == .add
        case .newMemberCommit: self == .externalInit || self == .remove || self == .psk
        }
    }
}

/// A proposal as covered by a Commit, after resolving references: the proposal, who sent it, and the
/// reference when it was not carried inline (RFC 9420 §12.4).
public struct CommittedProposal: Hashable, Sendable {
    public var proposal: Proposal
    /// The proposal's sender; for an inline proposal this is the committer.
    public var sender: Sender
    /// The ProposalRef it was committed by, or nil when carried by value in the Commit.
    public var reference: ProposalRef?

    public init(proposal: Proposal, sender: Sender, reference: ProposalRef? = nil) {
        self.proposal = proposal
        self.sender = sender
        self.reference = reference
    }

    /// True when the Commit carried the proposal by value.
    public var isInline: Bool { reference == nil }
}
