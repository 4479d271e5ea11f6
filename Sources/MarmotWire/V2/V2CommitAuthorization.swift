import Foundation
import MLS
import Nostr

/// What the v2 authorization rule needs to know about a commit, independent of how it was framed.
public struct V2CommitSummary: Sendable, Hashable {
    /// One proposal the commit covers (by value or by reference), with its sender's account.
    public struct ProposalEntry: Sendable, Hashable {
        public let type: ProposalType
        /// The proposal's authenticated sender; a by-value proposal is the committer's.
        public let sender: PublicKey?
        /// Whether the commit names it by reference (false: inline).
        public let byReference: Bool
        /// For an AppDataUpdate, its component id.
        public let componentID: UInt16?
        public init(type: ProposalType, sender: PublicKey?, byReference: Bool = false, componentID: UInt16? = nil) {
            self.type = type
            self.sender = sender
            self.byReference = byReference
            self.componentID = componentID
        }
    }

    public let committer: PublicKey
    public let wireFormat: WireFormat
    public let proposals: [ProposalEntry]
    /// Whether the commit carries an UpdatePath (the committer's new leaf).
    public let hasPath: Bool

    public init(committer: PublicKey, wireFormat: WireFormat, proposals: [ProposalEntry], hasPath: Bool) {
        self.committer = committer
        self.wireFormat = wireFormat
        self.proposals = proposals
        self.hasPath = hasPath
    }
}

/// The v2 commit authorization rule (protocol-core/group-messaging.md; MDK
/// `staged_commit_requires_admin` and the admin-SelfRemove ban in cgka-engine `app_components.rs`):
/// handshakes are PublicMessage; admins commit anything; a non-admin commits only a pure self-update
/// (no proposals, an UpdatePath) or a commit whose proposals are all SelfRemove (at least one);
/// a SelfRemove sent by an admin is refused. Each proposal's own sender is checked too (MDK
/// `authorize_proposal`): Add, Remove, Update, GroupContextExtensions and AppDataUpdate only from an
/// admin, a lifecycle (0x800c) AppDataUpdate only inline, PSK/ReInit/ExternalInit/other types refused.
public enum V2CommitAuthorization {
    public static func authorize(_ commit: V2CommitSummary, admins: AdminPolicy) throws(V2AuthorizationError) {
        guard commit.wireFormat == .publicMessage else { throw .handshakeNotPublic }
        for entry in commit.proposals {
            let senderIsAdmin = entry.sender.map(admins.isAdmin) ?? false
            switch entry.type {
            case .selfRemove:
                guard entry.sender != nil, !senderIsAdmin else { throw .adminSelfRemove }
            case .appDataUpdate:
                guard senderIsAdmin else { throw .proposalSenderNotAdmin(entry.type) }
                if entry.componentID == MarmotComponentID.lifecycle, entry.byReference { throw .lifecycleUpdateByReference }
            case .add, .remove, .update, .groupContextExtensions:
                guard senderIsAdmin else { throw .proposalSenderNotAdmin(entry.type) }
            default:
                throw .unsupportedProposal(entry.type)
            }
        }
        if admins.isAdmin(commit.committer) { return }
        let selfRemoves = commit.proposals.filter { $0.type == .selfRemove }.count
        let pureSelfUpdate = commit.proposals.isEmpty && commit.hasPath
        let selfRemoveOnly = selfRemoves > 0 && selfRemoves == commit.proposals.count
        guard pureSelfUpdate || selfRemoveOnly else { throw .requiresAdmin }
    }
}

/// Why a v2 commit is not authorized.
public enum V2AuthorizationError: Error, Sendable, Equatable, CustomStringConvertible {
    case handshakeNotPublic
    case requiresAdmin
    case adminSelfRemove
    case proposalSenderNotAdmin(ProposalType)
    case lifecycleUpdateByReference
    case unsupportedProposal(ProposalType)

    public var description: String {
        switch self {
        case .handshakeNotPublic: "v2 handshake messages must be PublicMessage"
        case .requiresAdmin: "only an admin may commit this"
        case .adminSelfRemove: "an admin may not SelfRemove"
        case .proposalSenderNotAdmin(let t): "only an admin may propose \(t)"
        case .lifecycleUpdateByReference: "a lifecycle AppDataUpdate must be inline"
        case .unsupportedProposal(let t): "proposal type \(t) is not supported in v2 groups"
        }
    }
}
