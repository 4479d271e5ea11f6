import Foundation
import Marmot

/// Runs MDK's branch-selector cases (formal/tamarin/policy_cases.json): given branches, witnesses
/// and a policy, the expected branch must win for the expected reason, in every input order.
enum PolicyCases {
    struct Result {
        let name: String
        let failure: String?
    }

    static func run(_ file: JSON) throws -> [Result] {
        guard let cases = file.array else { throw VectorError.wrongType(file.path, "array of cases") }
        return try cases.map(runCase)
    }

    static func runCase(_ item: JSON) throws -> Result {
        let name = try item.string("name")
        let policyJSON = try item.required("policy")
        let policy: ConvergencePolicy
        do {
            policy = try ConvergencePolicy(
                maxRewindCommits: UInt64(try policyJSON.int("max_rewind_commits")),
                witnessQuorumSendersPerEpoch: try policyJSON.int("witness_quorum_senders_per_epoch"),
                witnessQuorumEpochs: try policyJSON.int("witness_quorum_epochs"),
                maxWitnessOverrideDepth: UInt64(try policyJSON.int("max_witness_override_depth")))
        } catch {
            return Result(name: name, failure: "policy refused: \(error)")
        }
        guard let branchItems = try item.required("branches").array else { throw VectorError.wrongType(item.path, "branches") }
        let branches = try branchItems.map(candidate)
        let tip = UInt64(try item.int("current_tip_epoch"))
        let expected = try item.required("expected")
        let expectedBranch = try expected.string("branch")
        let expectedReason = try expected.string("reason")
        // Every rotation of the input must give the same answer (selection is order independent).
        for shift in 0..<max(1, branches.count) {
            let rotated = Array(branches[shift...] + branches[..<shift])
            for order in [rotated, rotated.reversed()] {
                let decision = BranchSelector.select(order, currentTipEpoch: tip, policy: policy)
                guard let winner = decision.selected else { return Result(name: name, failure: "no branch selected") }
                guard winner.id == expectedBranch else {
                    return Result(name: name, failure: "selected \(winner.id), expected \(expectedBranch)")
                }
                let reason = reasonLabel(winner: winner, branches: order, policy: policy, tip: tip)
                guard reason == expectedReason else {
                    return Result(name: name, failure: "won by \(reason), expected \(expectedReason)")
                }
            }
        }
        return Result(name: name, failure: nil)
    }

    /// The reason vocabulary of the cases: the first selector rule on which the winner beats the
    /// best other eligible branch (MDK `policy_cases.rs` `reason_against`).
    static func reasonLabel(winner: BranchCandidate, branches: [BranchCandidate], policy: ConvergencePolicy, tip: UInt64) -> String {
        let others = branches.filter { $0.id != winner.id && BranchSelector.isEligible($0, currentTipEpoch: tip, policy: policy) }
        let winnerScore = winner.score(policy)
        guard let best = others.map({ $0.score(policy) }).sorted(by: { BranchSelector.better($0, than: $1) }).first,
              let rule = BranchSelector.decidingRule(winnerScore, best) else { return "only_eligible" }
        switch rule {
        case .effectiveCommitDepth: return "effective_depth"
        case .witnessQuorumMet: return "quorum_tie"
        case .appWitnessScore: return "witness_score_tie"
        case .tipPriority: return "priority_tie"
        case .tipCommitter: return "committer_tie"
        case .tipDigest: return "digest_tie"
        }
    }

    /// A branch of a case: missing committer = the branch id; digest "00"/"ff" = 32 such bytes;
    /// priority "privileged"/"admin" or "ordinary"/"member" (MDK `PolicyCaseBranch::to_candidate`).
    static func candidate(_ item: JSON) throws -> BranchCandidate {
        let id = try item.string("id")
        let priority: CommitPriority
        switch item["tip_priority"]?.string ?? "ordinary" {
        case "privileged", "admin": priority = .privileged
        case "ordinary", "member": priority = .ordinary
        case let other: throw VectorError.unknown("unknown priority \(other)")
        }
        let digestByte: UInt8
        switch try item.string("tip_digest") {
        case "00", "g00": digestByte = 0x00
        case "ff", "gff": digestByte = 0xff
        case let other: throw VectorError.unknown("unknown digest rank \(other)")
        }
        guard let witnessItems = try item.required("app_witnesses").array else { throw VectorError.wrongType(item.path, "witnesses") }
        let witnesses = try witnessItems.map { AppWitness(epoch: UInt64(try $0.int("epoch")), sender: Data(try $0.string("sender").utf8)) }
        return BranchCandidate(
            id: id, forkEpoch: UInt64(try item.int("fork_epoch")), tipEpoch: UInt64(try item.int("tip_epoch")),
            tipPriority: priority, tipCommitter: Data((item["tip_committer"]?.string ?? id).utf8),
            tipDigest: Data(repeating: digestByte, count: 32), appWitnesses: witnesses)
    }
}
