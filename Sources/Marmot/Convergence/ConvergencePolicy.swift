import Foundation

/// The constants of branch selection: how far back a fork may be rewound and how application traffic
/// on a branch can outweigh a deeper one.
///
/// Marmot v2 convergence policy v1 is implicit (no group field carries it), so every client must use
/// the same numbers (MDK 0.9.14 `cgka-engine/src/convergence.rs`, `V1_*` constants; protocol-core
/// convergence.md). A witness boost larger than the rewind horizon would let chatter outrun any
/// valid deeper branch, so such a policy is refused.
public struct ConvergencePolicy: Sendable, Hashable {
    /// Commits that may be rolled back from the current tip to reach a fork point.
    public var maxRewindCommits: UInt64
    /// Distinct application senders an epoch needs to count toward the witness quorum.
    public var witnessQuorumSendersPerEpoch: Int
    /// Epochs of a branch that must reach that count for the quorum to be met.
    public var witnessQuorumEpochs: Int
    /// Commits of depth a branch gains when its witness quorum is met.
    public var maxWitnessOverrideDepth: UInt64

    public init(maxRewindCommits: UInt64, witnessQuorumSendersPerEpoch: Int, witnessQuorumEpochs: Int, maxWitnessOverrideDepth: UInt64) throws(ConvergencePolicyError) {
        guard maxWitnessOverrideDepth <= maxRewindCommits else {
            throw .witnessOverrideExceedsRewind(override: maxWitnessOverrideDepth, rewind: maxRewindCommits)
        }
        guard witnessQuorumSendersPerEpoch >= 0, witnessQuorumEpochs >= 0 else { throw .negativeQuorum }
        self.maxRewindCommits = maxRewindCommits
        self.witnessQuorumSendersPerEpoch = witnessQuorumSendersPerEpoch
        self.witnessQuorumEpochs = witnessQuorumEpochs
        self.maxWitnessOverrideDepth = maxWitnessOverrideDepth
    }

    /// Policy v1 as every Marmot v2 client runs it: rewind 5, quorum of 2 senders in 1 epoch, boost 1.
    public static let v1 = ConvergencePolicy(uncheckedRewind: 5, senders: 2, epochs: 1, boost: 1)

    private init(uncheckedRewind: UInt64, senders: Int, epochs: Int, boost: UInt64) {
        maxRewindCommits = uncheckedRewind
        witnessQuorumSendersPerEpoch = senders
        witnessQuorumEpochs = epochs
        maxWitnessOverrideDepth = boost
    }
}

/// Why a convergence policy cannot be used.
public enum ConvergencePolicyError: Error, Sendable, Hashable, CustomStringConvertible {
    case witnessOverrideExceedsRewind(override: UInt64, rewind: UInt64)
    case negativeQuorum

    public var description: String {
        switch self {
        case .witnessOverrideExceedsRewind(let override, let rewind):
            "the witness override depth (\(override)) exceeds the rewind horizon (\(rewind))"
        case .negativeQuorum: "a witness quorum count is negative"
        }
    }
}
