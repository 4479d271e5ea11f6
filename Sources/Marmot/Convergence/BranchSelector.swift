import Foundation

/// The selection rules in the order they are applied; the first that differs decides.
public enum BranchRule: String, Sendable, Hashable, CaseIterable {
    case effectiveCommitDepth = "effective_commit_depth"
    case witnessQuorumMet = "witness_quorum_met"
    case appWitnessScore = "app_witness_score"
    case tipPriority = "tip_priority"
    case tipCommitter = "tip_committer"
    case tipDigest = "tip_digest"
}

/// The outcome of one branch selection, with what decided it (for the audit trail and the
/// conformance runner's `convergence_decision`).
public struct BranchDecision: Sendable, Hashable {
    public let selected: BranchCandidate?
    public let selectedScore: BranchScore?
    /// The first rule on which the winner beat the runner-up; nil with a single eligible branch.
    public let decisiveRule: BranchRule?
    public let runnerUp: String?
    /// Branches past the rewind horizon, never selectable.
    public let ineligible: [String]
    /// Every other branch, by id.
    public let losing: [String]
}

/// Picks the canonical branch among competing ones, the same way on every replica.
///
/// A branch is eligible when its fork point is within the rewind horizon of the current tip. Among
/// eligible branches the best has the greater effective depth, then the met witness quorum, then
/// the higher witness score, then the privileged tip, then the lower committer key, then the lower
/// digest (MDK 0.9.14 `cgka-engine/src/convergence.rs` `select_canonical_branch`,
/// docs/marmot-architecture/distributed-convergence.md). The result depends only on the set of
/// candidates, never on their order.
public enum BranchSelector {
    public static func isEligible(_ branch: BranchCandidate, currentTipEpoch: UInt64, policy: ConvergencePolicy) -> Bool {
        let rewind = currentTipEpoch >= branch.forkEpoch ? currentTipEpoch - branch.forkEpoch : 0
        return rewind <= policy.maxRewindCommits
    }

    public static func select(_ candidates: [BranchCandidate], currentTipEpoch: UInt64, policy: ConvergencePolicy) -> BranchDecision {
        let ordered = candidates.sorted { $0.id < $1.id }
        let eligible = ordered.filter { isEligible($0, currentTipEpoch: currentTipEpoch, policy: policy) }
        let ranked = eligible.map { ($0, $0.score(policy)) }.sorted { better($0.1, than: $1.1) }
        guard let (winner, score) = ranked.first else {
            return BranchDecision(
                selected: nil, selectedScore: nil, decisiveRule: nil, runnerUp: nil,
                ineligible: ordered.map(\.id), losing: ordered.map(\.id))
        }
        let runnerUp = ranked.dropFirst().first
        return BranchDecision(
            selected: winner, selectedScore: score, decisiveRule: runnerUp.flatMap { decidingRule(score, $0.1) },
            runnerUp: runnerUp?.0.id,
            ineligible: ordered.filter { !isEligible($0, currentTipEpoch: currentTipEpoch, policy: policy) }.map(\.id),
            losing: ordered.map(\.id).filter { $0 != winner.id })
    }

    /// Whether `a` ranks strictly before `b`.
    public static func better(_ a: BranchScore, than b: BranchScore) -> Bool {
        guard let rule = decidingRule(a, b) else { return false }
        return wins(a, b, on: rule)
    }

    /// The first rule on which the two scores differ.
    public static func decidingRule(_ a: BranchScore, _ b: BranchScore) -> BranchRule? {
        BranchRule.allCases.first { differs(a, b, on: $0) }
    }

    private static func differs(_ a: BranchScore, _ b: BranchScore, on rule: BranchRule) -> Bool {
        switch rule {
        case .effectiveCommitDepth: a.effectiveCommitDepth != b.effectiveCommitDepth
        case .witnessQuorumMet: a.witnessQuorumMet != b.witnessQuorumMet
        case .appWitnessScore: a.appWitnessScore != b.appWitnessScore
        case .tipPriority: a.tipPriority != b.tipPriority
        case .tipCommitter: a.tipCommitter != b.tipCommitter
        case .tipDigest: a.tipDigest != b.tipDigest
        }
    }

    private static func wins(_ a: BranchScore, _ b: BranchScore, on rule: BranchRule) -> Bool {
        switch rule {
        case .effectiveCommitDepth: a.effectiveCommitDepth > b.effectiveCommitDepth
        case .witnessQuorumMet: a.witnessQuorumMet && !b.witnessQuorumMet
        case .appWitnessScore: a.appWitnessScore > b.appWitnessScore
        case .tipPriority: a.tipPriority < b.tipPriority
        case .tipCommitter: a.tipCommitter.lexicographicallyPrecedes(b.tipCommitter)
        case .tipDigest: a.tipDigest.lexicographicallyPrecedes(b.tipDigest)
        }
    }
}
