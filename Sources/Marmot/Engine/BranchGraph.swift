import Foundation
import MLS

/// One group's recent history as a tree of MLS states: the canonical tip, every competing branch
/// within the rewind horizon, and the application traffic seen on each, so branch selection can run
/// over them.
///
/// Pure value: no relay, clock or store inside. A commit made from a state becomes a child of that
/// state; several children of one state are a fork. `select(rules:)` runs `BranchTree`'s selection
/// over the tips and moves the canonical tip to the winner (MDK 0.9.14 distributed convergence: candidates are
/// materialized from retained states, ranked by protocol evidence, the loser is parked off the
/// canonical branch). Nodes further back than the rewind horizon are pruned, and with them the
/// secrets of those epochs (RFC 9420 §16.8 forward secrecy).
package struct BranchGraph: Sendable {
    package typealias NodeID = Int

    /// The commit that led to a state, as evidence for ordering.
    package struct CommitEvidence: Sendable, Hashable {
        package let key: CommitOrderingKey
    }

    package struct Node: Sendable {
        package let id: NodeID
        /// Nil for the anchor (cleared when pruning makes a state the anchor).
        package var parent: NodeID?
        package var mls: MLSGroup
        /// Nil for the anchor (a state we joined, created or kept as the oldest retained one).
        package let commit: CommitEvidence?
        package var children: [NodeID] = []
        /// Application senders seen in this node's epoch on this branch.
        package var witnesses: Set<AppWitness> = []
        package var epoch: UInt64 { mls.epoch }
        /// The witnesses in the order records keep them (epoch, then sender).
        package var sortedWitnesses: [AppWitness] { witnesses.sorted(by: EngineRecord.ordered) }
    }

    /// Which states changed since `takeChanges()`, so a store rewrites only those (`EngineChanges`).
    package struct Changes: Sendable, Equatable {
        /// States added, or changed beyond their secret trees: written whole.
        package var whole: Set<NodeID> = []
        /// States whose secret trees alone moved (an application message opened, RFC 9420 §9.2).
        package var ratchets: Set<NodeID> = []
        /// States that gained a witness.
        package var witnessed: Set<NodeID> = []
        /// States pruned.
        package var removed: Set<NodeID> = []
        /// The canonical tip, the anchor or the next id moved.
        package var tips = false
    }

    package private(set) var nodes: [NodeID: Node] = [:]
    package private(set) var canonical: NodeID
    package private(set) var anchor: NodeID
    private var nextID: NodeID = 1
    package let policy: ConvergencePolicy
    package private(set) var changes = Changes()

    package init(anchor mls: MLSGroup, policy: ConvergencePolicy = .v1) {
        self.policy = policy
        nodes[0] = Node(id: 0, parent: nil, mls: mls, commit: nil)
        canonical = 0
        anchor = 0
        changes.whole = [0]
        changes.tips = true
    }

    /// The changes since the last call, and a fresh start.
    package mutating func takeChanges() -> Changes {
        defer { changes = Changes() }
        return changes
    }

    package var tip: Node { nodes[canonical]! }

    /// Grows with every state added: what could not be opened before can only open once it moved.
    package var version: Int { nextID }

    /// Replaces the MLS state of a node: `ratchetsOnly` when only its secret trees moved (an
    /// application message opened), otherwise (a stored proposal, a message or commit of ours) whole.
    package mutating func update(_ id: NodeID, _ mls: MLSGroup, ratchetsOnly: Bool = false) {
        guard nodes[id] != nil else { return }
        nodes[id]!.mls = mls
        if ratchetsOnly {
            if !changes.whole.contains(id) { changes.ratchets.insert(id) }
        } else {
            changes.whole.insert(id)
            changes.ratchets.remove(id)
        }
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
        changes.whole.insert(id)
        changes.tips = true
        return id
    }

    /// Forgets `id`, a state no other state descends from and off the canonical path (a competing
    /// commit pushed out by a better one, `EngineLimits.commitsPerState`).
    package mutating func discard(_ id: NodeID) {
        guard let node = nodes[id], node.children.isEmpty, id != canonical, id != anchor, let parent = node.parent else { return }
        nodes[id] = nil
        nodes[parent]?.children.removeAll { $0 == id }
        changes.whole.remove(id)
        changes.ratchets.remove(id)
        changes.witnessed.remove(id)
        changes.removed.insert(id)
        changes.tips = true
    }

    /// Makes `id` the canonical tip (our own confirmed commit, an inbound commit on the tip).
    package mutating func adopt(_ id: NodeID) {
        guard nodes[id] != nil, id != canonical else { return }
        canonical = id
        changes.tips = true
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
        BranchTree.lineage(of: id) { nodes[$0].map { ($0.parent) } }
    }

    /// Whether `id` is on the canonical path (the tip or one of its ancestors).
    package func isCanonical(_ id: NodeID) -> Bool { path(to: canonical).contains(id) }

    /// The ancestor of `id` (or `id` itself) at `epoch`.
    package func ancestor(of id: NodeID, atEpoch epoch: UInt64) -> NodeID? {
        path(to: id).first { nodes[$0]?.epoch == epoch }
    }

    /// Records an application sender seen at `id`'s epoch on `id`'s branch.
    package mutating func witness(_ witness: AppWitness, at id: NodeID) {
        if nodes[id]?.witnesses.insert(witness).inserted == true { changes.witnessed.insert(id) }
    }

    /// Runs branch selection over the graph (`BranchTree.select`, with the branches that race a
    /// revocation of an authority they used left out, `BranchTree.excludedTips`) and moves the
    /// canonical tip to the winner; returns the decision at the fork nearest the anchor that had
    /// a choice (nil when there was nothing to choose).
    ///
    /// The excluded branches stay in the graph (their commits still count, later commits still
    /// attach to them), so the result depends only on the states held, never on the order they
    /// came in or on which branch was canonical before (issue 24).
    package mutating func select(rules: any GroupRules) -> BranchDecision? {
        let tree = tree(rules: rules)
        // Every branch from a fork left out: the tip is that fork's state.
        let (tip, decision) = tree.select(current: canonical, excluded: tree.excludedTips(mutual: rules.mutualRevocation), policy: policy)
        if tip != canonical { changes.tips = true }
        canonical = tip
        return decision
    }

    /// The graph as branch selection sees it: each state's commit with its ordering key, what it
    /// used and revoked (read from the states only where the graph forks: elsewhere there is
    /// nothing to weigh it against), and its witnesses.
    package func tree(rules: any GroupRules) -> BranchTree {
        let forked = nodes.values.contains { $0.children.count > 1 }
        var tree = BranchTree(root: anchor, epoch: nodes[anchor]!.epoch, witnesses: nodes[anchor]!.witnesses)
        var stack = nodes[anchor]!.children
        while let id = stack.popLast() {
            guard let node = nodes[id], let parent = node.parent.flatMap({ nodes[$0] }) else { continue }
            let step = forked ? node.commit.map { BranchStep(key: $0.key, before: parent.mls, after: node.mls, rules: rules) } : nil
            tree.add(id, parent: parent.id, epoch: node.epoch, key: node.commit?.key, step: step, witnesses: node.witnesses)
            stack += node.children
        }
        return tree
    }

    /// Forgets states more than the rewind horizon behind the canonical tip, and every branch that
    /// does not descend from the new anchor; returns the states forgotten.
    @discardableResult
    package mutating func prune() -> Set<NodeID> {
        let canonicalPath = path(to: canonical)
        guard let newAnchor = canonicalPath.first(where: { nodes[$0]!.epoch + policy.maxRewindCommits >= tip.epoch }),
              newAnchor != anchor else { return [] }
        var keep: Set<NodeID> = []
        var stack = [newAnchor]
        while let id = stack.popLast() {
            keep.insert(id)
            stack += nodes[id]?.children ?? []
        }
        let removed = Set(nodes.keys).subtracting(keep)
        nodes = nodes.filter { keep.contains($0.key) }
        // The new anchor has no parent now: its row is rewritten whole.
        nodes[newAnchor]?.parent = nil
        anchor = newAnchor
        changes.whole.subtract(removed)
        changes.ratchets.subtract(removed)
        changes.witnessed.subtract(removed)
        // A state added and pruned before the store saw it was never written.
        changes.removed.formUnion(removed)
        changes.whole.insert(newAnchor)
        changes.tips = true
        return removed
    }

    /// The graph as a record keeps it: every state serialized, parents before children.
    package var recordNodes: [EngineRecord.Node] {
        nodes.keys.sorted().compactMap(recordNode)
    }

    /// One state as a record keeps it (its MLS state in two parts, `MLSGroup.serializedApart()`).
    package func recordNode(_ id: NodeID) -> EngineRecord.Node? {
        guard let node = nodes[id] else { return nil }
        let (state, ratchets) = node.mls.serializedApart()
        return EngineRecord.Node(
            id: node.id, parent: node.parent, state: state, ratchets: ratchets, key: node.commit?.key,
            witnesses: node.sortedWitnesses)
    }

    /// The graph a record kept: each state read back from its serialized form, as a restarted
    /// process does from its store.
    package init(record: EngineRecord) throws(EngineRecordError) {
        policy = record.policy
        canonical = record.canonical
        anchor = record.anchor
        nextID = record.nextID
        for node in record.nodes {
            let mls: MLSGroup
            do { mls = try MLSGroup(serialized: node.state, ratchets: node.ratchets) } catch { throw .unreadableState(node.id) }
            nodes[node.id] = Node(
                id: node.id, parent: node.parent, mls: mls, commit: node.key.map { CommitEvidence(key: $0) },
                witnesses: Set(node.witnesses))
            if let parent = node.parent { nodes[parent]?.children.append(node.id) }
        }
    }
}
