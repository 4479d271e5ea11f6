import Foundation
import MLS

/// One group's recent history as a tree of MLS states: the canonical tip, every competing branch
/// within the rewind horizon, and the application traffic seen on each, so branch selection can run
/// over them.
///
/// Pure value: no relay, clock or store inside. A commit made from a state becomes a child of that
/// state; several children of one state are a fork. `select()` runs `BranchSelector` over the tips
/// and moves the canonical tip to the winner (MDK 0.9.14 distributed convergence: candidates are
/// materialized from retained states, ranked by protocol evidence, the loser is parked off the
/// canonical branch). Nodes further back than the rewind horizon are pruned, and with them the
/// secrets of those epochs (RFC 9420 §16.8 forward secrecy).
package struct BranchGraph: Sendable {
    package typealias NodeID = Int

    /// The commit that led to a state, as evidence for ordering.
    package struct CommitEvidence: Sendable, Hashable {
        package let key: CommitOrderingKey
        package let summary: CommitSummary
    }

    package struct Node: Sendable {
        package let id: NodeID
        package let parent: NodeID?
        package var mls: MLSGroup
        /// Nil for the anchor (a state we joined, created or kept as the oldest retained one).
        package let commit: CommitEvidence?
        package var children: [NodeID] = []
        /// Application senders seen in this node's epoch on this branch.
        package var witnesses: Set<AppWitness> = []
        package var epoch: UInt64 { mls.epoch }
    }

    package private(set) var nodes: [NodeID: Node] = [:]
    package private(set) var canonical: NodeID
    package private(set) var anchor: NodeID
    /// Tips left out of selection: their branch from some fork races a revocation of an
    /// authority it used (`excludeRacesAgainstRevocation`).
    package private(set) var excluded: Set<NodeID> = []
    private var nextID: NodeID = 1
    package let policy: ConvergencePolicy

    package init(anchor mls: MLSGroup, policy: ConvergencePolicy = .v1) {
        self.policy = policy
        nodes[0] = Node(id: 0, parent: nil, mls: mls, commit: nil)
        canonical = 0
        anchor = 0
    }

    package var tip: Node { nodes[canonical]! }

    /// Grows with every state added: what could not be opened before can only open once it moved.
    package var version: Int { nextID }

    /// Replaces the MLS state of a node (a stored proposal, a consumed message key).
    package mutating func update(_ id: NodeID, _ mls: MLSGroup) {
        nodes[id]?.mls = mls
    }

    /// The state `commit` leads to from `parent`; the existing child when the same commit (same
    /// digest) was already applied there.
    @discardableResult
    package mutating func extend(from parent: NodeID, to mls: MLSGroup, commit: CommitEvidence) -> NodeID {
        if let existing = nodes[parent]?.children.first(where: { nodes[$0]?.commit?.key == commit.key }) { return existing }
        let id = nextID
        nextID += 1
        nodes[id] = Node(id: id, parent: parent, mls: mls, commit: commit)
        nodes[parent]?.children.append(id)
        return id
    }

    /// Makes `id` the canonical tip (our own confirmed commit, an inbound commit on the tip).
    package mutating func adopt(_ id: NodeID) {
        guard nodes[id] != nil else { return }
        canonical = id
    }

    /// Whether a child of some state already carries this commit.
    package func contains(_ key: CommitOrderingKey) -> Bool {
        nodes.values.contains { $0.commit?.key == key }
    }

    /// States of `epoch`, canonical path first.
    package func nodes(atEpoch epoch: UInt64) -> [NodeID] {
        let onPath = Set(path(to: canonical))
        return nodes.values.filter { $0.epoch == epoch }.map(\.id).sorted { a, b in
            let pa = onPath.contains(a), pb = onPath.contains(b)
            return pa != pb ? pa : a < b
        }
    }

    /// The nodes from the anchor to `id`, in order.
    package func path(to id: NodeID) -> [NodeID] {
        var result: [NodeID] = []
        var current: NodeID? = id
        while let node = current.flatMap({ nodes[$0] }) {
            result.append(node.id)
            current = node.parent
        }
        return result.reversed()
    }

    /// Whether `id` is on the canonical path (the tip or one of its ancestors).
    package func isCanonical(_ id: NodeID) -> Bool { path(to: canonical).contains(id) }

    /// The ancestor of `id` (or `id` itself) at `epoch`.
    package func ancestor(of id: NodeID, atEpoch epoch: UInt64) -> NodeID? {
        path(to: id).first { nodes[$0]?.epoch == epoch }
    }

    /// Records an application sender seen at `id`'s epoch on `id`'s branch.
    package mutating func witness(_ witness: AppWitness, at id: NodeID) {
        nodes[id]?.witnesses.insert(witness)
    }

    private func candidate(_ id: NodeID, forkEpoch: UInt64) -> BranchCandidate? {
        guard let node = nodes[id] else { return nil }
        let witnesses = path(to: id).compactMap { nodes[$0] }.filter { $0.epoch > forkEpoch }.flatMap(\.witnesses)
        let key = node.commit?.key
        return BranchCandidate(
            id: Self.branchID(id, in: self), forkEpoch: forkEpoch, tipEpoch: node.epoch,
            tipPriority: key?.priority ?? .ordinary, tipCommitter: key?.committer ?? Data(), tipDigest: key?.digest ?? Data(),
            appWitnesses: Array(witnesses))
    }

    /// A stable id for a branch: the hex of its tip commit's digest (the same on every replica).
    package static func branchID(_ id: NodeID, in graph: BranchGraph) -> String {
        guard let digest = graph.nodes[id]?.commit?.key.digest else { return "anchor" }
        return digest.prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    /// Runs branch selection at every fork from the anchor down and moves the canonical tip to the
    /// winner; returns the decision at the fork nearest the anchor that had a choice (nil when
    /// there was nothing to choose).
    ///
    /// At a fork, each child stands for its own subtree by the tip that subtree selects, and the
    /// tips are ranked from the fork's epoch. The result depends only on the states and witnesses
    /// held, never on the order they arrived in or on which branch was canonical before, so every
    /// replica holding the same graph selects the same tip (issue 24: with three or more branches
    /// forking at different epochs, ranking each against the canonical path made the choice
    /// depend on the delivery order).
    package mutating func select() -> BranchDecision? {
        var decision: BranchDecision?
        canonical = selectedTip(from: anchor, decision: &decision)
        return decision
    }

    private func selectedTip(from id: NodeID, decision: inout BranchDecision?) -> NodeID {
        func viable(_ id: NodeID) -> Bool {
            guard let children = nodes[id]?.children else { return false }
            return children.isEmpty ? !excluded.contains(id) : children.contains(where: viable)
        }
        func selectable(_ id: NodeID) -> [NodeID] { (nodes[id]?.children ?? []).filter(viable) }
        var node = id
        while case let children = selectable(node), children.count == 1 { node = children[0] }
        let children = selectable(node)
        guard !children.isEmpty else { return node }
        var below: BranchDecision?
        let tips = children.sorted().map { selectedTip(from: $0, decision: &below) }
        let forkEpoch = nodes[node]!.epoch
        let ranked = BranchSelector.select(
            tips.compactMap { candidate($0, forkEpoch: forkEpoch) }, currentTipEpoch: tip.epoch, policy: policy)
        if decision == nil { decision = ranked }
        let onCanonical = Set(path(to: canonical))
        let fallback = tips.first(where: onCanonical.contains) ?? tips[0]
        guard let winner = ranked.selected else { return fallback }
        return tips.first { Self.branchID($0, in: self) == winner.id } ?? fallback
    }

    /// Forgets states more than the rewind horizon behind the canonical tip, and every branch that
    /// does not descend from the new anchor.
    package mutating func prune() {
        let canonicalPath = path(to: canonical)
        guard let newAnchor = canonicalPath.first(where: { nodes[$0]!.epoch + policy.maxRewindCommits >= tip.epoch }),
              newAnchor != anchor else { return }
        var keep: Set<NodeID> = []
        var stack = [newAnchor]
        while let id = stack.popLast() {
            keep.insert(id)
            stack += nodes[id]?.children ?? []
        }
        nodes = nodes.filter { keep.contains($0.key) }
        anchor = newAnchor
    }

    /// Leaves out of selection every branch whose commits used an authority that a competing
    /// branch from the same fork revokes and that branch itself does not (`BranchStep`): a member
    /// racing its own removal (with self-updates, however dated, padded or deep), or an admin
    /// making admin-only commits beside the branch that demotes it, is never a valid history, and
    /// could otherwise grow its branch deeper alone and win on depth (issue 24, N1 and N2).
    ///
    /// A branch here is the path from a fork to a tip; it is weighed against every commit in each
    /// sibling subtree of that fork, and a tip left out at any fork above it is no candidate. The
    /// branches stay in the graph (their commits still count, later commits still attach to
    /// them, and a branch that revokes the same authority later is weighed again), so what is
    /// left out depends only on the states held, never on the order they came in. Two admins
    /// revoking each other at once leave both branches out and the group stays where it was;
    /// those two branches then leave nothing else out (`RevocationPairs`), so the group can go on
    /// from there.
    package mutating func excludeRacesAgainstRevocation(rules: any GroupRules) {
        var steps: [NodeID: BranchStep] = [:]
        func step(_ id: NodeID) -> BranchStep? {
            if let known = steps[id] { return known }
            guard let node = nodes[id], let parent = node.parent.flatMap({ nodes[$0] }), let commit = node.commit else { return nil }
            let made = BranchStep(key: commit.key, before: parent.mls, after: node.mls, rules: rules)
            steps[id] = made
            return made
        }
        /// Every tip under `id` with the commits from `id` down to it.
        func paths(_ id: NodeID) -> [(tip: NodeID, steps: [BranchStep])] {
            var result: [(tip: NodeID, steps: [BranchStep])] = []
            var stack: [(NodeID, [BranchStep])] = [(id, [])]
            while let (next, above) = stack.popLast() {
                let here = above + (step(next).map { [$0] } ?? [])
                let children = nodes[next]?.children ?? []
                if children.isEmpty { result.append((next, here)) }
                stack += children.map { ($0, here) }
            }
            return result
        }
        var left: Set<NodeID> = []
        for parent in nodes.values where parent.children.count > 1 {
            let subtrees = parent.children.map { paths($0) }
            let commits = subtrees.map { $0.flatMap(\.steps) }
            let pairs = RevocationPairs(count: subtrees.count) { i, j in
                subtrees[i].contains { $0.steps.isRevoked(by: commits[j]) }
            }
            for (i, branches) in subtrees.enumerated() {
                for branch in branches where subtrees.indices.contains(where: { j in
                    j != i && pairs.counts(j, against: i) && branch.steps.isRevoked(by: commits[j])
                }) {
                    left.insert(branch.tip)
                }
            }
        }
        excluded = left
    }

    /// Re-reads every state from its serialized form, as a restarted process does from its store.
    package mutating func reloadStates() throws {
        for id in nodes.keys {
            guard let mls = nodes[id]?.mls else { continue }
            nodes[id]?.mls = try MLSGroup(serialized: mls.serialized())
        }
    }
}
