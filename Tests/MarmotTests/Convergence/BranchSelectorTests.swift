import Foundation
import Testing
@testable import Marmot
import TestSupport

/// MDK 0.9.14's branch-selector cases (`formal/tamarin/policy_cases.json`, read from
/// `../shared/vectors/mdk-conformance/policy/`) and the selection rules one by one.
@Suite struct BranchSelectorTests {
    struct Case: Decodable, Sendable, CustomTestStringConvertible {
        struct Policy: Decodable, Sendable {
            let max_rewind_commits: UInt64
            let witness_quorum_senders_per_epoch: Int
            let witness_quorum_epochs: Int
            let max_witness_override_depth: UInt64
        }
        struct Expected: Decodable, Sendable { let branch: String; let reason: String }
        struct Witness: Decodable, Sendable { let epoch: UInt64; let sender: String }
        struct Branch: Decodable, Sendable {
            let id: String
            let fork_epoch: UInt64
            let tip_epoch: UInt64
            let tip_priority: String?
            let tip_committer: String?
            let tip_digest: String
            let app_witnesses: [Witness]
        }
        let name: String
        let current_tip_epoch: UInt64
        let policy: Policy
        let expected: Expected
        let branches: [Branch]
        var testDescription: String { name }

        /// As MDK's `to_candidate`: committer defaults to the id, digest "00"/"ff" fills 32 bytes.
        var candidates: [BranchCandidate] {
            branches.map { branch in
                BranchCandidate(
                    id: branch.id, forkEpoch: branch.fork_epoch, tipEpoch: branch.tip_epoch,
                    tipPriority: branch.tip_priority == "privileged" ? .privileged : .ordinary,
                    tipCommitter: Data((branch.tip_committer ?? branch.id).utf8),
                    tipDigest: Data(repeating: branch.tip_digest == "ff" ? 0xff : 0x00, count: 32),
                    appWitnesses: branch.app_witnesses.map { AppWitness(epoch: $0.epoch, sender: Data($0.sender.utf8)) })
            }
        }
    }

    static let cases: [Case] = (try? SharedFixtures.loadJSON([Case].self, "mdk-conformance/policy/policy_cases.json")) ?? []

    /// The reason words of the cases for each rule (MDK `policy_cases.rs` `reason_against`).
    static let reasons: [BranchRule: String] = [
        .effectiveCommitDepth: "effective_depth", .witnessQuorumMet: "quorum_tie", .appWitnessScore: "witness_score_tie",
        .tipPriority: "priority_tie", .tipCommitter: "committer_tie", .tipDigest: "digest_tie",
    ]

    @Test func casesArePresent() throws {
        guard SharedFixtures.shouldRun else { return }
        #expect(Self.cases.count == 7, "policy_cases.json must load (set MARMOT_SHARED)")
        SharedFixtures.report("mdk-conformance/policy/policy_cases.json", ran: Self.cases.count, skipped: 0, reason: "none skipped")
    }

    @Test(arguments: cases)
    func selectsTheExpectedBranchForTheExpectedReason(_ item: Case) throws {
        let policy = try ConvergencePolicy(
            maxRewindCommits: item.policy.max_rewind_commits,
            witnessQuorumSendersPerEpoch: item.policy.witness_quorum_senders_per_epoch,
            witnessQuorumEpochs: item.policy.witness_quorum_epochs,
            maxWitnessOverrideDepth: item.policy.max_witness_override_depth)
        for order in [item.candidates, item.candidates.reversed()] {
            let decision = BranchSelector.select(order, currentTipEpoch: item.current_tip_epoch, policy: policy)
            #expect(decision.selected?.id == item.expected.branch)
            let rule = try #require(decision.decisiveRule)
            #expect(Self.reasons[rule] == item.expected.reason)
        }
    }

    @Test func aBranchPastTheRewindHorizonIsNeverSelected() {
        let old = BranchCandidate(
            id: "old", forkEpoch: 0, tipEpoch: 9, tipPriority: .privileged, tipCommitter: Data([0]), tipDigest: Data([0]))
        let recent = BranchCandidate(
            id: "recent", forkEpoch: 6, tipEpoch: 7, tipPriority: .ordinary, tipCommitter: Data([9]), tipDigest: Data([9]))
        let decision = BranchSelector.select([old, recent], currentTipEpoch: 7, policy: .v1)
        #expect(decision.selected?.id == "recent")
        #expect(decision.ineligible == ["old"])
    }

    @Test func aWitnessBoostBeyondTheRewindHorizonIsRefused() {
        #expect(throws: ConvergencePolicyError.self) {
            try ConvergencePolicy(maxRewindCommits: 2, witnessQuorumSendersPerEpoch: 2, witnessQuorumEpochs: 1, maxWitnessOverrideDepth: 3)
        }
    }

    @Test func commitOrderingIgnoresEverythingButProtocolEvidence() {
        let admin = CommitOrderingKey(sourceEpoch: 3, priority: .privileged, committer: Data([0xff]), digest: Data([0xff]))
        let member = CommitOrderingKey(sourceEpoch: 3, priority: .ordinary, committer: Data([0x00]), digest: Data([0x00]))
        #expect(admin < member, "an admin's commit outranks a self-update whatever its key and digest")
        let lowCommitter = CommitOrderingKey(sourceEpoch: 3, priority: .ordinary, committer: Data([0x01]), digest: Data([0xff]))
        #expect(lowCommitter < CommitOrderingKey(sourceEpoch: 3, priority: .ordinary, committer: Data([0x02]), digest: Data([0x00])))
        let sameCommitter = CommitOrderingKey(sourceEpoch: 3, priority: .ordinary, committer: Data([0x01]), digest: Data([0x00]))
        #expect(sameCommitter < lowCommitter, "the digest decides only between commits of one committer")
    }
}
