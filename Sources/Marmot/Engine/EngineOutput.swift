import Foundation
import MLS
import Nostr

/// What the group engine made of an input: for the caller to store, show and publish.
///
/// The engine does no I/O; each output says what happened to the group so the runtime (the client
/// over relays, or the conformance runner over its bus) can act on it.
package enum EngineOutput: Sendable, Hashable {
    /// An application message that is now canonical: shown once, in this order.
    case application(sender: PublicKey, content: String, epoch: UInt64, digest: Data)
    /// Another member's commit moved the canonical tip.
    case commitApplied(CommitSummary, committer: PublicKey, epoch: UInt64)
    /// A proposal was stored for a later commit.
    case proposalStored(ProposalType)
    /// Branch selection moved the group to another branch: messages shown on the abandoned one
    /// are no longer canonical, and ours of them need sending again.
    case branchSwitched(fromEpoch: UInt64, toEpoch: UInt64, invalidated: [Data], resend: [String])
    /// The input is kept until the state it needs exists (a later epoch, a parent commit not seen yet).
    case parked
    /// The same bytes were processed before.
    case duplicate
    /// The input was refused; the reason is for the log.
    case dropped(String)
}

/// A commit of ours that is built but not yet published: adopted by `confirm` once a relay took it,
/// forgotten by dropping it when every relay refused (MIP-03: publish before apply).
package struct OwnCommit: Sendable {
    package let parent: BranchGraph.NodeID
    package let pending: PendingCommit
    package let key: CommitOrderingKey
    /// The commit's MLSMessage bytes, as published.
    package var bytes: Data { pending.message.tlsSerialized }
}

/// Why the engine refused to build a change of ours.
package enum EngineError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Only an admin may make this change (MIP-03; v2 admin policy 0x8003).
    case notAdmin
    /// The requested admin set is not acceptable (empty, or names a non-member).
    case invalidAdminPolicy(String)
    /// We are no longer a member of this group.
    case notAMember
    /// Our own commit would not pass the checks every other member runs on it.
    case unauthorized(String)
    /// MLS refused to build the commit or message.
    case mls(String)

    package var description: String {
        switch self {
        case .notAdmin: "not_group_admin"
        case .invalidAdminPolicy(let why): "invalid_admin_policy: \(why)"
        case .notAMember: "not a member"
        case .unauthorized(let why): "our commit would be refused: \(why)"
        case .mls(let why): "mls: \(why)"
        }
    }
}
