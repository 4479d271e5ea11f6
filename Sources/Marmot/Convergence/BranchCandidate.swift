import Foundation

/// One application message seen on a branch: its epoch and its authenticated sender.
///
/// Members keep talking on the branch they are on, so distinct senders are evidence of where the
/// group is (MDK 0.9.14 `cgka-engine/src/convergence.rs` `AppWitness`).
public struct AppWitness: Sendable, Hashable {
    public let epoch: UInt64
    public let sender: Data
    public init(epoch: UInt64, sender: Data) {
        self.epoch = epoch
        self.sender = sender
    }
}

/// A branch of a group's history that could become canonical: where it leaves the common history,
/// its tip, the tip commit's ordering evidence and the application traffic seen on it.
public struct BranchCandidate: Sendable, Hashable {
    public let id: String
    /// The epoch of the state the branch's first commit was made from.
    public let forkEpoch: UInt64
    /// The epoch the branch's last commit leads to.
    public let tipEpoch: UInt64
    public let tipPriority: CommitPriority
    public let tipCommitter: Data
    public let tipDigest: Data
    public var appWitnesses: [AppWitness]

    public init(
        id: String, forkEpoch: UInt64, tipEpoch: UInt64, tipPriority: CommitPriority, tipCommitter: Data, tipDigest: Data,
        appWitnesses: [AppWitness] = []
    ) {
        self.id = id
        self.forkEpoch = forkEpoch
        self.tipEpoch = tipEpoch
        self.tipPriority = tipPriority
        self.tipCommitter = tipCommitter
        self.tipDigest = tipDigest
        self.appWitnesses = appWitnesses
    }

    /// The branch's score under `policy`.
    public func score(_ policy: ConvergencePolicy) -> BranchScore {
        var byEpoch: [UInt64: Set<Data>] = [:]
        for witness in appWitnesses { byEpoch[witness.epoch, default: []].insert(witness.sender) }
        let quorum = policy.witnessQuorumSendersPerEpoch > 0 && policy.witnessQuorumEpochs > 0
            && byEpoch.values.filter { $0.count >= policy.witnessQuorumSendersPerEpoch }.count >= policy.witnessQuorumEpochs
        let depth = tipEpoch >= forkEpoch ? tipEpoch - forkEpoch : 0
        return BranchScore(
            validCommitDepth: depth,
            effectiveCommitDepth: depth &+ (quorum ? policy.maxWitnessOverrideDepth : 0),
            witnessQuorumMet: quorum,
            appWitnessScore: byEpoch.values.reduce(0) { $0 + min($1.count, policy.witnessQuorumSendersPerEpoch) },
            tipPriority: tipPriority, tipCommitter: tipCommitter, tipDigest: tipDigest)
    }
}

/// What a branch is ranked by, rule after rule.
public struct BranchScore: Sendable, Hashable {
    public let validCommitDepth: UInt64
    /// Depth plus the witness boost when the quorum is met.
    public let effectiveCommitDepth: UInt64
    public let witnessQuorumMet: Bool
    /// Distinct senders per epoch, each epoch capped at the quorum size, summed.
    public let appWitnessScore: Int
    public let tipPriority: CommitPriority
    public let tipCommitter: Data
    public let tipDigest: Data
}
