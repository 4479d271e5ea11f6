import Foundation
import MLS
import Nostr

/// The branches our client holds for one group, as one `BranchTree`: the branch we are on from
/// the oldest open fork, each kept branch hanging from it where it forks (branches sharing their
/// first commits share those nodes), and a candidate, a branch that new evidence (a competing
/// commit, a commit or message on a kept branch) brings.
///
/// Our client keeps states per epoch and per kept branch rather than the engine's graph, but
/// selects over the same tree with the same code (`BranchTree`), so the two choose alike
/// whatever the order things came in (issue 24). Pure: the client loads the snapshots and passes
/// them in.
package struct HeldBranches: Sendable {
    /// Which held branch selection takes.
    package enum Pick: Sendable, Equatable {
        /// The branch we are on.
        case ours
        /// The candidate branch.
        case candidate
        /// The kept branch at this index of those added (`add`).
        case kept(Int)
        /// None from the fork at this epoch on our branch: every branch from it is left out
        /// (two admins revoking each other), and the group goes back to that fork's state.
        case forkState(epoch: UInt64)
    }

    private(set) var tree: BranchTree
    /// The node of our branch's state of each epoch from the oldest fork up to our tip.
    private var trunk: [UInt64: BranchTree.NodeID] = [:]
    private let ourTip: BranchTree.NodeID
    /// Our branch's commit steps by the epoch they were made from.
    private var ourSteps: [UInt64: BranchStep] = [:]
    private var keptTips: [BranchTree.NodeID?] = []
    private var candidateTip: BranchTree.NodeID?
    private var candidateFirst: (fork: UInt64, step: BranchStep)?
    /// The commit that led to each node, so branches sharing commits share nodes.
    private var commitOf: [BranchTree.NodeID: EventID] = [:]
    private var nextID: BranchTree.NodeID

    /// Our branch from the state of epoch `low` to `tip` (our state's epoch): `snapshots` are our
    /// stored states from `low` on, each with the commit that left it (some may be missing),
    /// `steps` those commits' steps in the same order (empty when they could not be read), and
    /// `witnesses` the application senders per epoch on our branch.
    init(from low: UInt64, tip: UInt64, snapshots: [EpochSnapshot], steps: [BranchStep], witnesses: [UInt64: Set<Data>]) {
        func seen(_ epoch: UInt64, _ senders: Set<Data>?) -> Set<AppWitness> {
            Set((senders ?? []).map { AppWitness(epoch: epoch, sender: $0) })
        }
        tree = BranchTree(root: 0, epoch: low, witnesses: seen(low, witnesses[low]))
        trunk[low] = 0
        nextID = 1
        let byEpoch = Dictionary(snapshots.map { ($0.epoch, $0) }, uniquingKeysWith: { first, _ in first })
        let stepByEpoch = steps.count == snapshots.count ? Dictionary(zip(snapshots.map(\.epoch), steps), uniquingKeysWith: { a, _ in a }) : [:]
        var parent: BranchTree.NodeID = 0
        for epoch in (low + 1)..<max(low + 1, tip + 1) {
            let commit = byEpoch[epoch - 1]
            let id = nextID
            nextID += 1
            tree.add(
                id, parent: parent, epoch: epoch, key: commit?.orderingKey, step: stepByEpoch[epoch - 1],
                witnesses: seen(epoch, witnesses[epoch]))
            commitOf[id] = commit?.commitEventID
            trunk[epoch] = id
            parent = id
        }
        ourTip = parent
        ourSteps = stepByEpoch
    }

    /// Adds a kept branch with its commits' `steps` (`AlternateBranch.steps`); `.kept(i)` names
    /// the i-th added. A branch forking outside our branch's epochs is held but never taken.
    mutating func add(_ branch: AlternateBranch, steps: [BranchStep]) {
        keptTips.append(attach(branch, steps: steps))
    }

    /// Adds the branch the new evidence brings (`.candidate`).
    mutating func addCandidate(_ branch: AlternateBranch, steps: [BranchStep]) {
        candidateTip = attach(branch, steps: steps)
        if let first = steps.first { candidateFirst = (branch.forkEpoch, first) }
    }

    private mutating func attach(_ branch: AlternateBranch, steps: [BranchStep]) -> BranchTree.NodeID? {
        guard var node = trunk[branch.forkEpoch] else { return nil }
        let commits = [branch.snapshot] + branch.path
        var onPath: [UInt64: BranchTree.NodeID] = [:]
        for (index, commit) in commits.enumerated() {
            let epoch = commit.epoch + 1
            if let shared = tree.nodes[node]?.children.first(where: { commitOf[$0] == commit.commitEventID }) {
                node = shared
            } else {
                let id = nextID
                nextID += 1
                tree.add(
                    id, parent: node, epoch: epoch, key: commit.orderingKey,
                    step: steps.count == commits.count ? steps[index] : nil)
                commitOf[id] = commit.commitEventID
                node = id
            }
            onPath[epoch] = node
        }
        for (epoch, senders) in branch.witnesses where epoch > branch.forkEpoch {
            guard let at = onPath[epoch] else { continue }
            tree.witness(Set(senders.map { AppWitness(epoch: epoch, sender: $0) }), at: at)
        }
        return node
    }

    /// Whether the candidate's first commit revokes an authority the first commit of ours from
    /// the same state used (MDK 0.8.0's v1 groups weigh only the two commits that race).
    var candidateRevokesOurFirstCommit: Bool {
        guard let first = candidateFirst, let ours = ourSteps[first.fork] else { return false }
        return [ours].isRevoked(by: [first.step])
    }

    /// The branch selection takes over everything held (`BranchTree`), with the decision that
    /// chose it.
    func selected(policy: ConvergencePolicy) -> (pick: Pick, decision: BranchDecision?) {
        let (tip, decision) = tree.select(current: ourTip, excluded: tree.excludedTips(), policy: policy)
        if tip == candidateTip { return (.candidate, decision) }
        if tip == ourTip { return (.ours, decision) }
        if let index = keptTips.firstIndex(of: tip) { return (.kept(index), decision) }
        if let epoch = trunk.first(where: { $0.value == tip })?.key { return (.forkState(epoch: epoch), decision) }
        return (.ours, decision)
    }
}
