import Foundation

/// A group's recent history as branch selection sees it: a tree of commits from one retained
/// state, each with its ordering key, the authority it used or took away, and the application
/// senders seen in its epoch on its branch.
///
/// Pure value, holding no MLS state, so the engine (`BranchGraph`, from its states) and our client
/// (`HeldBranches`, from the branch it is on and the branches it keeps) select over the same
/// tree with the same code and every replica holding the same commits and witnesses selects the
/// same tip (MDK 0.9.14 distributed convergence: candidates materialized from retained states,
/// ranked by protocol evidence; issue 24).
package struct BranchTree: Sendable {
    package typealias NodeID = Int

    package struct Node: Sendable {
        package let id: NodeID
        package let parent: NodeID?
        package let epoch: UInt64
        /// The commit that led here (nil at the root, or for a commit kept from before keys were stored).
        package let key: CommitOrderingKey?
        /// What the commit used and revoked (nil at the root, or when it could not be read).
        package let step: BranchStep?
        /// Application senders seen in this node's epoch on this branch.
        package var witnesses: Set<AppWitness>
        package var children: [NodeID] = []
    }

    package private(set) var nodes: [NodeID: Node] = [:]
    package let root: NodeID

    /// A tree holding only `root`, a state of `epoch`.
    package init(root: NodeID, epoch: UInt64, witnesses: Set<AppWitness> = []) {
        self.root = root
        nodes[root] = Node(id: root, parent: nil, epoch: epoch, key: nil, step: nil, witnesses: witnesses)
    }

    /// Adds `id`, the state a commit (`key`, `step`) leads to from `parent`.
    package mutating func add(
        _ id: NodeID, parent: NodeID, epoch: UInt64, key: CommitOrderingKey?, step: BranchStep?, witnesses: Set<AppWitness> = []
    ) {
        guard nodes[parent] != nil, nodes[id] == nil else { return }
        nodes[id] = Node(id: id, parent: parent, epoch: epoch, key: key, step: step, witnesses: witnesses)
        nodes[parent]?.children.append(id)
    }

    /// Counts more application senders at `id`.
    package mutating func witness(_ witnesses: Set<AppWitness>, at id: NodeID) {
        nodes[id]?.witnesses.formUnion(witnesses)
    }

    /// The nodes from the root to `id`, in order.
    package func path(to id: NodeID) -> [NodeID] {
        Self.lineage(of: id) { nodes[$0].map { ($0.parent) } }
    }

    /// The ids from the root down to `id`, where `parent` gives a node's parent (nil at the root)
    /// and nil for a node that is not there.
    package static func lineage(of id: NodeID, parent: (NodeID) -> NodeID??) -> [NodeID] {
        var result: [NodeID] = []
        var current: NodeID? = id
        while let node = current, let up = parent(node) {
            result.append(node)
            current = up
        }
        return result.reversed()
    }

    /// A stable name for the branch ending at `id`: the hex of its tip commit's digest, the same
    /// on every replica ("anchor" at the root).
    package func branchID(_ id: NodeID) -> String {
        guard let node = nodes[id], node.parent != nil else { return "anchor" }
        guard let digest = node.key?.digest else { return "node-\(id)" }
        return digest.prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    // MARK: Revocations

    /// The tips left out of selection: their branch from some fork used an authority that a
    /// competing branch from that fork revokes and that it does not revoke itself (`BranchStep`):
    /// a member racing its own removal (however dated, padded or deep), or an admin making
    /// admin-only commits beside the branch that demotes it, is never a valid history, and could
    /// otherwise grow its branch deeper alone and win on depth (issue 24, N1 and N2).
    ///
    /// A branch here is the path from a fork to a tip; it is weighed against every commit in each
    /// sibling subtree of that fork, and a tip left out at any fork above it is no candidate.
    /// What is left out depends only on the commits and witnesses held, never on the order they
    /// came in. Two branches that revoke each other are settled by `mutual` (`MutualRevocation`):
    /// left out both, or weighed by what the members neither revokes did on each
    /// (`uninvolvedEvidence`), the one with less left out.
    package func excludedTips(mutual: MutualRevocation = .leaveBothOut) -> Set<NodeID> {
        var left: Set<NodeID> = []
        for parent in nodes.values where parent.children.count > 1 {
            let subtrees = parent.children.map { paths(from: $0) }
            let commits = subtrees.map { $0.flatMap(\.steps) }
            let pairs = RevocationPairs(count: subtrees.count, rule: mutual) { i, j in
                subtrees[i].contains { $0.steps.isRevoked(by: commits[j]) }
            }
            for (i, branches) in subtrees.enumerated() {
                for branch in branches where subtrees.indices.contains(where: { j in
                    j != i && pairs.counts(j, against: i) && branch.steps.isRevoked(by: commits[j])
                }) {
                    left.insert(branch.tip)
                }
            }
            guard mutual == .weighEvidence else { continue }
            for (i, j) in pairs.pairs {
                let (a, b) = (parent.children[i], parent.children[j])
                let ea = uninvolvedEvidence(under: a, against: commits[j]), eb = uninvolvedEvidence(under: b, against: commits[i])
                guard ea != eb else { continue }
                let loser = ea < eb ? i : j
                left.formUnion(subtrees[loser].map(\.tip))
            }
        }
        return left
    }

    /// Every tip under `id` with the commits from `id` down to it.
    private func paths(from id: NodeID) -> [(tip: NodeID, steps: [BranchStep])] {
        var result: [(tip: NodeID, steps: [BranchStep])] = []
        var stack: [(NodeID, [BranchStep])] = [(id, [])]
        while let (next, above) = stack.popLast() {
            let here = above + (nodes[next]?.step.map { [$0] } ?? [])
            let children = nodes[next]?.children ?? []
            if children.isEmpty { result.append((next, here)) }
            stack += children.map { ($0, here) }
        }
        return result
    }

    /// What the members uninvolved in a mutual revocation did on the subtree under `id`, whose
    /// competitor made `competing`: the most commits on one path by committers the competitor
    /// does not revoke, then how many such members sent application messages there.
    ///
    /// The two parties' own commits and messages, and those of accounts their branch added, are
    /// what either side can make alone, as many as it likes; only the others' say where the group
    /// went (D1: a removed admin revoking its remover back from the state before grows its branch
    /// alone, while the group's other members went on talking and committing on the remover's).
    func uninvolvedEvidence(under id: NodeID, against competing: [BranchStep]) -> UninvolvedEvidence {
        let theirs = competing.revoked
        let own = paths(from: id)
        let added = own.flatMap(\.steps).reduce(into: Set<Data>()) { $0.formUnion($1.added) }
        let parties = theirs.removed.union(theirs.demoted).union(added)
        let commits = own.map { path in path.steps.count { $0.key.map { !parties.contains($0.committer) } ?? false } }.max() ?? 0
        var senders: Set<Data> = []
        var stack = [id]
        while let next = stack.popLast(), let node = nodes[next] {
            senders.formUnion(node.witnesses.map(\.sender).filter { !parties.contains($0) })
            stack += node.children
        }
        return UninvolvedEvidence(commits: commits, senders: senders.count)
    }

    // MARK: Selection

    /// Runs branch selection at every fork from the root down and returns the tip selected (a
    /// fork itself when every branch from it is left out), with the decision at the fork nearest
    /// the root that had a choice (nil when there was nothing to choose).
    ///
    /// At a fork, each child stands for its own subtree by the tip that subtree selects, and the
    /// tips are ranked from the fork's epoch (`BranchSelector`). The result depends only on the
    /// commits and witnesses held, never on the order they arrived in; `current` (the tip the
    /// replica is on) only breaks what selection cannot: a fork past the rewind horizon, from
    /// `current`'s epoch, is never moved from.
    package func select(
        current: NodeID, excluded: Set<NodeID>, policy: ConvergencePolicy
    ) -> (tip: NodeID, decision: BranchDecision?) {
        let onCurrent = Set(path(to: current))
        let currentEpoch = nodes[current]?.epoch ?? 0
        var viability: [NodeID: Bool] = [:]
        func viable(_ id: NodeID) -> Bool {
            if let known = viability[id] { return known }
            let children = nodes[id]?.children ?? []
            let result = children.isEmpty ? !excluded.contains(id) : children.contains(where: viable)
            viability[id] = result
            return result
        }
        func selectable(_ id: NodeID) -> [NodeID] { (nodes[id]?.children ?? []).filter(viable) }
        func selectedTip(from id: NodeID, decision: inout BranchDecision?) -> NodeID {
            var node = id
            while case let children = selectable(node), children.count == 1 { node = children[0] }
            let children = selectable(node)
            guard !children.isEmpty else { return node }
            var below: BranchDecision?
            let tips = children.sorted().map { selectedTip(from: $0, decision: &below) }
            let forkEpoch = nodes[node]!.epoch
            let ranked = BranchSelector.select(
                tips.compactMap { candidate($0, forkEpoch: forkEpoch) }, currentTipEpoch: currentEpoch, policy: policy)
            if decision == nil { decision = ranked }
            let fallback = tips.first(where: onCurrent.contains) ?? tips[0]
            guard let winner = ranked.selected else { return fallback }
            return tips.first { branchID($0) == winner.id } ?? fallback
        }
        var decision: BranchDecision?
        let tip = selectedTip(from: root, decision: &decision)
        return (tip, decision)
    }

    /// The branch ending at `id`, seen from the fork at `forkEpoch`: its depth, its tip commit's
    /// key and the senders seen on it after the fork.
    private func candidate(_ id: NodeID, forkEpoch: UInt64) -> BranchCandidate? {
        guard let node = nodes[id] else { return nil }
        let witnesses = path(to: id).compactMap { nodes[$0] }.filter { $0.epoch > forkEpoch }.flatMap(\.witnesses)
        return BranchCandidate(
            id: branchID(id), forkEpoch: forkEpoch, tipEpoch: node.epoch, tipPriority: node.key?.priority ?? .ordinary,
            tipCommitter: node.key?.committer ?? Data(), tipDigest: node.key?.digest ?? Data(), appWitnesses: Array(witnesses))
    }
}
