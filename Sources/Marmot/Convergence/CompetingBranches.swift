import Foundation

/// The branch a client is on and one other branch from the same fork, as branch selection sees them.
///
/// A client that keeps only its applied branch and the other branches' states (not MDK's whole
/// graph) still ranks a two-way fork exactly as MDK 0.9.14 does: both are candidates from the same
/// fork epoch, so selection comes down to effective depth, witness quorum, witness score, then the
/// tip commits' ordering keys (`BranchSelector`; MDK `cgka-engine/src/convergence.rs`).
public struct CompetingBranches: Sendable, Hashable {
    public let current: BranchCandidate
    public let other: BranchCandidate

    /// Both branches from `forkEpoch`: ours up to `currentTip` with its last commit's key, the other
    /// up to `otherTip`; witnesses are each branch's application senders per epoch (epochs at or
    /// before the fork are shared history and never count).
    public init(
        forkEpoch: UInt64,
        current currentTip: (epoch: UInt64, key: CommitOrderingKey?, witnesses: [UInt64: Set<Data>]),
        other otherTip: (epoch: UInt64, key: CommitOrderingKey?, witnesses: [UInt64: Set<Data>])
    ) {
        current = Self.candidate("current", forkEpoch: forkEpoch, tip: currentTip)
        other = Self.candidate("other", forkEpoch: forkEpoch, tip: otherTip)
    }

    /// Whether selection under `policy` picks the other branch; a fork past the rewind horizon never
    /// moves us (MDK `BeyondRewindHorizon`).
    public func otherIsSelected(policy: ConvergencePolicy = .v1) -> Bool {
        BranchSelector.select([current, other], currentTipEpoch: current.tipEpoch, policy: policy).selected?.id == other.id
    }

    /// The rule that decided between them, for the log; nil when nothing tells them apart.
    public func decisiveRule(policy: ConvergencePolicy = .v1) -> BranchRule? {
        BranchSelector.decidingRule(current.score(policy), other.score(policy))
    }

    private static func candidate(
        _ id: String, forkEpoch: UInt64, tip: (epoch: UInt64, key: CommitOrderingKey?, witnesses: [UInt64: Set<Data>])
    ) -> BranchCandidate {
        let witnesses = tip.witnesses.filter { $0.key > forkEpoch }
            .flatMap { epoch, senders in senders.map { AppWitness(epoch: epoch, sender: $0) } }
        return BranchCandidate(
            id: id, forkEpoch: forkEpoch, tipEpoch: tip.epoch, tipPriority: tip.key?.priority ?? .ordinary,
            tipCommitter: tip.key?.committer ?? Data(), tipDigest: tip.key?.digest ?? Data(), appWitnesses: witnesses)
    }
}
