import Foundation

/// What changed in a `GroupEngine` since its changes were last taken, with the bytes to write.
///
/// A store that keeps an engine in rows (one per retained state, per seen digest, per shown
/// message, and one for the rest) applies these after each input instead of rewriting the whole
/// `EngineRecord`: after 500 events over three branches that record is 174 KB and takes 1.6 ms
/// to write, against 95 µs for the engine to take one message (`marmot-bench convergence`). Per
/// application message only the secret trees of the state it opened on move (RFC 9420 §9.2),
/// plus one seen digest and one shown message (issue 24).
package struct EngineChanges: Sendable, Equatable {
    /// What the engine notes beside the graph's own `BranchGraph.Changes`.
    struct Tracked: Sendable {
        var seen: [Data: UInt64] = [:]
        var seenForgotten: Set<Data> = []
        var shown: [Data: ShownMessage] = [:]
        var shownForgotten: Set<Data> = []
        /// Held messages added and nodes whose held messages went, in order.
        var held: [HeldChange] = []
        /// The policy, tips, parked or deferred messages, or our sends changed.
        var rest = false
    }

    /// A change to the held messages (`GroupEngine.held`), kept in rows of their own: one per
    /// message, by its node and its place among that node's, so a competing branch's traffic adds
    /// rows instead of rewriting the rest (issue 43, D2).
    package enum HeldChange: Sendable, Equatable {
        /// `message` is held at `node`, the `position`-th there.
        case add(node: BranchGraph.NodeID, position: Int, message: HeldMessage)
        /// Every message held at `node` went (shown once its branch won, or the node is gone).
        case forget(node: BranchGraph.NodeID)
    }

    /// States added or changed beyond their secret trees, written whole (with their witnesses).
    package var states: [EngineRecord.Node] = []
    /// States whose secret trees alone moved, by state: the second part of
    /// `MLSGroup.serializedApart()`.
    package var ratchets: [BranchGraph.NodeID: Data] = [:]
    /// States (not written whole) that gained a witness, with all their witnesses.
    package var witnesses: [BranchGraph.NodeID: [AppWitness]] = [:]
    /// States pruned.
    package var removed: Set<BranchGraph.NodeID> = []
    /// Digests seen, with their epochs.
    package var seen: [Data: UInt64] = [:]
    /// Digests forgotten (their epoch was pruned).
    package var seenForgotten: Set<Data> = []
    /// Shown messages, by digest, with the state they opened at and their inner event's id.
    package var shown: [Data: ShownMessage] = [:]
    /// Shown messages forgotten (invalidated, or their state pruned).
    package var shownForgotten: Set<Data> = []
    /// Held messages added and forgotten, in the order they happened.
    package var held: [HeldChange] = []
    /// `EngineRecord.encodedRest()` when any of it changed.
    package var rest: Data?

    package var isEmpty: Bool {
        states.isEmpty && ratchets.isEmpty && witnesses.isEmpty && removed.isEmpty && seen.isEmpty
            && seenForgotten.isEmpty && shown.isEmpty && shownForgotten.isEmpty && held.isEmpty && rest == nil
    }

    /// The bytes these changes write (states, secret trees, witnesses, digests, the rest), for
    /// the bench and the log.
    package var byteCount: Int {
        states.reduce(0) { $0 + $1.state.count + $1.ratchets.count } + ratchets.values.reduce(0) { $0 + $1.count }
            + witnesses.values.reduce(0) { $0 + $1.count * 40 } + seen.count * 40 + shown.count * 72 + (rest?.count ?? 0)
            + held.reduce(0) { total, change in
                if case .add(_, _, let message) = change { total + 100 + message.rumor.plaintext.count } else { total }
            }
    }
}

extension GroupEngine {
    /// What changed since the last call (everything, for a new engine; nothing, for one just
    /// re-opened from its record), and a fresh start: the runtime writes it with the outputs of
    /// the same input, in one transaction.
    package mutating func takeChanges() -> EngineChanges {
        let (graphChanges, tracked) = takeTracked()
        var changes = EngineChanges()
        changes.states = graphChanges.whole.sorted().compactMap(graph.recordNode)
        for id in graphChanges.ratchets.sorted() {
            changes.ratchets[id] = graph.nodes[id]?.mls.serializedRatchets()
        }
        for id in graphChanges.witnessed.subtracting(graphChanges.whole) {
            changes.witnesses[id] = graph.nodes[id]?.sortedWitnesses
        }
        changes.removed = graphChanges.removed
        changes.seen = tracked.seen
        changes.seenForgotten = tracked.seenForgotten
        changes.shown = tracked.shown
        changes.shownForgotten = tracked.shownForgotten
        changes.held = tracked.held
        if tracked.rest || graphChanges.tips { changes.rest = record(withNodes: false).encodedRest() }
        return changes
    }
}

/// An engine kept as a row store keeps it: what `EngineChanges` write, applied in order, and
/// read back as the `EngineRecord` that re-opens the engine. The model of the store's tables,
/// and the check that the changes lose nothing (the record it gives is the engine's own).
package struct EngineRows: Sendable, Equatable {
    package var states: [BranchGraph.NodeID: EngineRecord.Node] = [:]
    package var seen: [Data: UInt64] = [:]
    package var shown: [Data: ShownMessage] = [:]
    /// Held messages by node, then by their place there.
    package var held: [BranchGraph.NodeID: [Int: HeldMessage]] = [:]
    package var rest: Data?

    package init() {}

    /// Writes `changes` over these rows.
    package mutating func apply(_ changes: EngineChanges) {
        for id in changes.removed { states[id] = nil }
        for node in changes.states { states[node.id] = node }
        for (id, ratchets) in changes.ratchets { states[id]?.ratchets = ratchets }
        for (id, witnesses) in changes.witnesses { states[id]?.witnesses = witnesses }
        for digest in changes.seenForgotten { seen[digest] = nil }
        seen.merge(changes.seen) { $1 }
        for digest in changes.shownForgotten { shown[digest] = nil }
        shown.merge(changes.shown) { $1 }
        for change in changes.held {
            switch change {
            case .add(let node, let position, let message): held[node, default: [:]][position] = message
            case .forget(let node): held[node] = nil
            }
        }
        if let rest = changes.rest { self.rest = rest }
    }

    /// The record these rows hold; `.damaged` when they hold no rest or do not hang together.
    package func record() throws(EngineRecordError) -> EngineRecord {
        guard let rest else { throw .damaged("no engine row") }
        return try EngineRecord(
            nodes: Array(states.values), seen: seen, shownAt: shown,
            held: held.mapValues { $0.sorted { $0.key < $1.key }.map(\.value) }, rest: rest)
    }
}
