import Foundation
import MLS
import Nostr

/// The v2 group-lifecycle transition rule (0x800c) every commit must keep, received or our own.
///
/// Why: a disband that one client accepts and another refuses splits the group (v2 conformance review
/// N1, L2). The rule is MDK 0.9.14's `validate_group_lifecycle_transition` (cgka-engine
/// `app_components.rs`), applied to the state a commit starts from and the one it makes:
/// - a Disbanded group takes no commit at all (Disbanded is terminal);
/// - lifecycle, once in the required list (0x0001), stays there;
/// - putting it in the list must install Active, with inline AppDataUpdates of 0x0001 and 0x800c only;
/// - any other change of lifecycle than Active → Disbanded is refused, and so is an update that
///   leaves it as it was;
/// - Active → Disbanded (with lifecycle required before and after) is exactly: every proposal inline,
///   one lifecycle update to Disbanded, one admin-policy update naming only the committer's account,
///   and a Remove of every other leaf of the source state, nothing else.
public enum V2LifecycleTransition {
    /// One proposal of the commit, as the rule looks at it.
    public struct Entry: Sendable, Hashable {
        public let proposal: Proposal
        /// False when the commit names it by reference.
        public let isInline: Bool
        public init(_ proposal: Proposal, isInline: Bool) {
            self.proposal = proposal
            self.isInline = isInline
        }
    }

    /// Checks one commit from `before` (the source state's components) to `after` (the components it
    /// results in), committed by `committerLeaf` (account `committer`) in a group whose leaves were
    /// `members`.
    public static func check(
        before: GroupComponents, after: GroupComponents, proposals: [Entry], committerLeaf: LeafIndex, committer: PublicKey,
        members: Set<LeafIndex>
    ) throws(V2LifecycleError) {
        let lifecycle = MarmotComponentID.lifecycle
        let beforeRequired = before.required.contains(lifecycle)
        let afterRequired = after.required.contains(lifecycle)
        if before.lifecycle == .disbanded { throw .disbandedIsTerminal }
        if beforeRequired && !afterRequired { throw .lifecycleUnrequired }
        if !beforeRequired && afterRequired {
            guard after.lifecycle == .active else { throw .enablementNotActive }
            for entry in proposals {
                guard entry.isInline else { throw .notInline }
                guard case .appDataUpdate(let update) = entry.proposal,
                      update.componentID == MarmotComponentID.appComponents || update.componentID == lifecycle
                else { throw .enablementWithOtherProposals }
            }
            return
        }
        guard before.lifecycle == .active, after.lifecycle == .disbanded else {
            if before.lifecycle != after.lifecycle { throw .unsupportedTransition }
            if proposals.contains(where: { Self.componentID($0.proposal) == lifecycle }) { throw .redundantLifecycleUpdate }
            return
        }
        guard beforeRequired, afterRequired else { throw .disbandWithoutRequiredLifecycle }
        try checkDisband(proposals, committerLeaf: committerLeaf, committer: committer, members: members)
    }

    /// Whether the commit from `before` to `after` is a disband (Active → Disbanded).
    public static func disbands(before: GroupComponents, after: GroupComponents) -> Bool {
        before.lifecycle == .active && after.lifecycle == .disbanded
    }

    /// Whether a commit's proposals set the lifecycle to Disbanded (a commit that passed `check`
    /// then is the terminal one; v1 commits carry no AppDataUpdate and never are).
    public static func disbands(_ proposals: [Proposal]) -> Bool {
        proposals.contains { proposal in
            guard case .appDataUpdate(let update) = proposal, update.componentID == MarmotComponentID.lifecycle,
                  update.operation == .update
            else { return false }
            return (try? GroupLifecycle(bytes: Array(update.update))) == .disbanded
        }
    }

    /// The shape of a disband commit: inline Removes of every other leaf, one lifecycle update to
    /// Disbanded, one admin-policy update of exactly `[committer]`.
    static func checkDisband(
        _ proposals: [Entry], committerLeaf: LeafIndex, committer: PublicKey, members: Set<LeafIndex>
    ) throws(V2LifecycleError) {
        var lifecycleUpdates = 0
        var adminUpdates = 0
        var removed = Set<LeafIndex>()
        for entry in proposals {
            guard entry.isInline else { throw .notInline }
            switch entry.proposal {
            case .remove(let remove):
                removed.insert(remove.removed)
            case .appDataUpdate(let update) where update.componentID == MarmotComponentID.lifecycle:
                guard update.operation == .update, (try? GroupLifecycle(bytes: Array(update.update))) == .disbanded else {
                    throw .lifecycleUpdateNotDisbanded
                }
                lifecycleUpdates += 1
            case .appDataUpdate(let update) where update.componentID == MarmotComponentID.adminPolicy:
                guard update.operation == .update, let policy = try? AdminPolicy(bytes: Array(update.update)) else {
                    throw .disbandAdminPolicyNotCommitter
                }
                guard policy.admins == [committer] else { throw .disbandAdminPolicyNotCommitter }
                adminUpdates += 1
            default:
                throw .forbiddenProposalInDisband
            }
        }
        guard lifecycleUpdates == 1, adminUpdates == 1 else { throw .disbandUpdateCount }
        guard removed == members.subtracting([committerLeaf]) else { throw .disbandMustRemoveEveryOtherLeaf }
    }

    static func componentID(_ proposal: Proposal) -> UInt16? {
        guard case .appDataUpdate(let update) = proposal else { return nil }
        return update.componentID
    }
}

/// Why a commit breaks the v2 lifecycle rule (`V2LifecycleTransition`); the texts follow MDK's.
public enum V2LifecycleError: Error, Sendable, Equatable, CustomStringConvertible {
    case disbandedIsTerminal
    case lifecycleUnrequired
    case enablementNotActive
    case enablementWithOtherProposals
    case notInline
    case unsupportedTransition
    case redundantLifecycleUpdate
    case disbandWithoutRequiredLifecycle
    case lifecycleUpdateNotDisbanded
    case disbandAdminPolicyNotCommitter
    case forbiddenProposalInDisband
    case disbandUpdateCount
    case disbandMustRemoveEveryOtherLeaf

    public var description: String {
        switch self {
        case .disbandedIsTerminal: "Disbanded has no outgoing transition"
        case .lifecycleUnrequired: "lifecycle-v1 cannot be un-required"
        case .enablementNotActive: "lifecycle enablement must install Active"
        case .enablementWithOtherProposals: "lifecycle enablement contains unrelated proposals"
        case .notInline: "every lifecycle proposal must be inline"
        case .unsupportedTransition: "unsupported group lifecycle transition"
        case .redundantLifecycleUpdate: "redundant lifecycle update"
        case .disbandWithoutRequiredLifecycle: "disband requires lifecycle-v1 in the parent and result"
        case .lifecycleUpdateNotDisbanded: "terminal lifecycle update is not Disbanded"
        case .disbandAdminPolicyNotCommitter: "disband admin policy must contain only the committer"
        case .forbiddenProposalInDisband: "disband contains a forbidden proposal"
        case .disbandUpdateCount: "disband needs exactly one lifecycle and one admin-policy update"
        case .disbandMustRemoveEveryOtherLeaf: "disband must remove every source-state leaf except the committer"
        }
    }
}
