import Foundation
import MarmotWire
import MLS
import Nostr

/// What the group engine made of an input: for the caller to store, show and publish.
///
/// The engine does no I/O; each output says what happened to the group so the runtime (the client
/// over relays, or the conformance runner over its bus) can act on it.
package enum EngineOutput: Sendable, Equatable {
    /// An application message that is now canonical: shown once, in this order. `rumor` is its inner
    /// event as the version's rules read it (a chat message, a reaction, a reply, an edit…).
    /// `leaf` is the sender's leaf in the state it opened on (one account's devices share a key).
    case application(sender: PublicKey, rumor: ChatRumor, epoch: UInt64, digest: Data, leaf: LeafIndex)
    /// Another member's commit moved the canonical tip.
    case commitApplied(CommitSummary, committer: PublicKey, epoch: UInt64)
    /// A proposal was stored for a later commit.
    case proposalStored(ProposalType)
    /// Branch selection moved the group to another branch: the messages shown on the abandoned one
    /// (`invalidated`, by inner event id) are no longer canonical; ours sent there come again as
    /// `publish`.
    case branchSwitched(fromEpoch: UInt64, toEpoch: UInt64, invalidated: [EventID])
    /// An application message of ours the engine made (a queued send, or one re-made on the winning
    /// branch), for the runtime to publish; `rumor` is its inner event's id, so the runtime's outbox
    /// can note the envelope that now carries it.
    case publish(Data, rumor: EventID)
    /// The input is kept until the state it needs exists (a later epoch, a parent commit not seen yet).
    case parked
    /// An application message that opens on no state we hold: kept and tried again as branches
    /// arrive (MDK 0.9.14 `PeelDeferred`), until the history it needs is pruned.
    case deferred
    /// The same bytes were processed before.
    case duplicate
    /// The input was refused, for this reason.
    case dropped(DropReason)
}

/// A commit of ours that is built but not yet published: adopted by `confirm` once a relay took it,
/// forgotten by dropping it when every relay refused (MIP-03: publish before apply).
package struct OwnCommit: Sendable {
    package let parent: BranchGraph.NodeID
    package let pending: PendingCommit
    package let key: CommitOrderingKey
    /// The commit's MLSMessage bytes, as published.
    package var bytes: Data { pending.message.tlsSerialized }
    /// The commit as the engine keeps it until it is confirmed or abandoned.
    package var unconfirmed: UnconfirmedCommit {
        UnconfirmedCommit(parent: parent, key: key, bytes: bytes, newGroup: pending.newGroup)
    }
}

/// A commit of ours built and not yet confirmed or abandoned, as the engine keeps it, across a
/// restart too (`EngineRecord.Awaiting`): a runtime that restarts publishes it again
/// (`GroupEngine.unconfirmed`), and a relay giving it back adopts it.
package struct UnconfirmedCommit: Sendable {
    package let parent: BranchGraph.NodeID
    package let key: CommitOrderingKey
    /// The commit's MLSMessage bytes.
    package let bytes: Data
    /// The group in the epoch it leads to.
    package let newGroup: MLSGroup
}

/// What `GroupEngine.send` did with a message of ours.
package enum SendDisposition: Sendable, Hashable {
    /// Encrypted on the canonical tip: publish these bytes now.
    case published(Data)
    /// Kept as an intent while a commit of ours is unconfirmed; made against the selected state
    /// afterwards and handed out as `EngineOutput.publish` (MDK `SendAcceptDisposition::AcceptedPending`).
    case queued
}

/// Where the group stands in settling on one history (MDK 0.9.14 `ConvergenceStatus`).
///
/// Reported by the engine and, per group, by `MarmotClient.convergence(of:)`, so a renderer can say
/// why a chat is not settled (issue 24).
public enum ConvergenceStatus: Sendable, Hashable, CustomStringConvertible {
    /// One canonical history; nothing waits.
    case settled
    /// Inputs wait for a state they need (a later epoch, a parent commit still on its way).
    case syncing(waiting: Int)
    /// A commit of ours is built and not yet confirmed; our sends are queued as intents.
    case resolving(pendingCommits: Int)
    /// Inputs were lost (the parked queue overflowed): only a full re-fetch of the group's history
    /// can settle it.
    case blocked(String)

    public var description: String {
        switch self {
        case .settled: "settled"
        case .syncing(let waiting): "syncing (\(waiting) waiting)"
        case .resolving(let pending): "resolving (\(pending) commit\(pending == 1 ? "" : "s") of ours unconfirmed)"
        case .blocked(let why): "blocked: \(why)"
        }
    }
}

/// Why the engine refused to build a change of ours.
package enum EngineError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Only an admin may make this change (MIP-03; v2 admin policy 0x8003).
    case notAdmin
    /// The requested admin set is not acceptable (empty, or names a non-member).
    case invalidAdminPolicy(String)
    /// We are no longer a member of this group.
    case notAMember
    /// Our own commit would be dropped by every member's `GroupRules.authorize`, for this reason.
    case refused(DropReason)
    /// Our own message or commit is not ours to make (not authored by our account, our leaf
    /// without an identity), or a Welcome's group is not acceptable.
    case unauthorized(String)
    /// MLS refused to build the commit or message.
    case mls(String)
    /// As many of our sends as the engine keeps already wait for our commit to settle
    /// (`EngineLimits.intents`).
    case queueFull(Int)

    package var description: String {
        switch self {
        case .notAdmin: "not_group_admin"
        case .invalidAdminPolicy(let why): "invalid_admin_policy: \(why)"
        case .notAMember: "not a member"
        case .refused(let why): "our commit would be refused: \(why)"
        case .unauthorized(let why): "unauthorized: \(why)"
        case .mls(let why): "mls: \(why)"
        case .queueFull(let count): "\(count) messages already wait for our commit"
        }
    }
}
