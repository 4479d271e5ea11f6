import Foundation
import MLS
import Nostr
import Testing
@testable import Marmot

/// The branches our client holds as one tree, selected with the engine's code (issue 24): kept
/// branches sharing commits share nodes and witnesses, a branch racing a revocation of an
/// authority it used is left out however deep, two branches revoking each other leave the fork's
/// state, and a kept branch can be the one selected; no client, store or relay.
@Suite struct HeldBranchesTests {
    static let (m, e) = (Data(repeating: 0x0B, count: 32), Data(repeating: 0x0E, count: 32))

    /// A commit made from `epoch` by `committer`, named `name` (its event content and digest).
    struct Commit {
        let snapshot: EpochSnapshot
        let step: BranchStep
    }

    static func commit(
        _ name: UInt8, epoch: UInt64, by committer: Data, privileged: Bool = false, removes: Set<Data> = [], demotes: Set<Data> = []
    ) throws -> Commit {
        let signer = Keys.generate()
        let event = try UnsignedEvent(pubkey: signer.publicKey, createdAt: 1_800_000_000, kind: .groupMessage, content: "c\(name)")
            .signed(with: signer)
        let key = CommitOrderingKey(
            sourceEpoch: epoch, priority: privileged ? .privileged : .ordinary, committer: committer,
            digest: Data(repeating: name, count: 32))
        return Commit(
            snapshot: EpochSnapshot(epoch: epoch, state: Data([name]), commit: event, orderingKey: key),
            step: BranchStep(key: key, removed: removes, demoted: demotes))
    }

    /// A branch from `commits[0].snapshot.epoch` made of `commits`, with `witnesses`.
    static func branch(_ commits: [Commit], witnesses: [UInt64: Set<Data>] = [:]) -> (AlternateBranch, [BranchStep]) {
        let branch = AlternateBranch(
            forkEpoch: commits[0].snapshot.epoch, snapshot: commits[0].snapshot, mls: BranchBookTests.group,
            witnesses: witnesses, path: commits.dropFirst().map(\.snapshot))
        return (branch, commits.map(\.step))
    }

    /// Our branch from epoch 4 made of `commits`.
    static func ours(_ commits: [Commit], witnesses: [UInt64: Set<Data>] = [:]) -> HeldBranches {
        HeldBranches(from: 4, tip: 4 + UInt64(commits.count), snapshots: commits.map(\.snapshot), steps: commits.map(\.step), witnesses: witnesses)
    }

    @Test func keptBranchesSharingTheirFirstCommitsShareNodesAndWitnesses() throws {
        let first = try Self.commit(1, epoch: 4, by: Self.e)
        let (a, aSteps) = Self.branch([first, try Self.commit(2, epoch: 5, by: Self.e)], witnesses: [5: [Self.e]])
        let (b, bSteps) = Self.branch([first, try Self.commit(3, epoch: 5, by: Self.e)], witnesses: [5: [Self.e]])
        var held = Self.ours([try Self.commit(9, epoch: 4, by: Self.m)])
        held.add(a, steps: aSteps)
        held.add(b, steps: bSteps)
        // The root, our commit, the shared first commit and the two that part after it.
        #expect(held.tree.nodes.count == 5)
        let shared = try #require(held.tree.nodes.values.first { $0.key?.digest == Data(repeating: 1, count: 32) })
        #expect(shared.children.count == 2)
        #expect(shared.witnesses == [AppWitness(epoch: 5, sender: Self.e)], "one sender seen on both branches counts once")
        // Deeper than ours: the two kept branches outrank it, and the lower digest decides between them.
        #expect(held.selected(policy: .v1).pick == .kept(0))
    }

    @Test func aMemberRacingItsRemovalIsLeftOutHoweverDeep() throws {
        let removal = try Self.commit(9, epoch: 4, by: Self.m, privileged: true, removes: [Self.e])
        let racing = try (0..<3).map { try Self.commit(UInt8(1 + $0), epoch: 4 + UInt64($0), by: Self.e) }
        let (theirs, steps) = Self.branch(racing)
        var held = Self.ours([removal])
        held.addCandidate(theirs, steps: steps)
        #expect(held.selected(policy: .v1).pick == .ours)
        // Without the removal, the deeper branch is taken.
        var plain = Self.ours([try Self.commit(9, epoch: 4, by: Self.m, privileged: true)])
        plain.addCandidate(theirs, steps: steps)
        #expect(plain.selected(policy: .v1).pick == .candidate)
    }

    @Test func twoAdminsDemotingEachOtherLeaveTheForkState() throws {
        var held = Self.ours([try Self.commit(9, epoch: 4, by: Self.m, privileged: true, demotes: [Self.e])])
        let (theirs, steps) = Self.branch([try Self.commit(1, epoch: 4, by: Self.e, privileged: true, demotes: [Self.m])])
        held.addCandidate(theirs, steps: steps)
        #expect(held.selected(policy: .v1).pick == .forkState(epoch: 4))
        #expect(V2GroupRules().pick(held) == .forkState(epoch: 4))
    }

    /// v1 weighs only the two commits that race: the candidate is taken when its first commit
    /// removes the committer of ours, and left to the race rule otherwise, however deep.
    @Test func v1TakesOnlyACommitThatRevokesOursAndLeavesTheRestToItsRule() throws {
        var revoked = Self.ours([try Self.commit(9, epoch: 4, by: Self.e)])
        let (removal, removalSteps) = Self.branch([try Self.commit(1, epoch: 4, by: Self.m, privileged: true, removes: [Self.e])])
        revoked.addCandidate(removal, steps: removalSteps)
        #expect(V1GroupRules().pick(revoked) == .candidate)
        var deeper = Self.ours([try Self.commit(9, epoch: 4, by: Self.e)])
        let (long, longSteps) = Self.branch(try (0..<3).map { try Self.commit(UInt8(1 + $0), epoch: 4 + UInt64($0), by: Self.m) })
        deeper.addCandidate(long, steps: longSteps)
        #expect(V1GroupRules().pick(deeper) == nil)
        #expect(V2GroupRules().pick(deeper) == .candidate)
    }
}
