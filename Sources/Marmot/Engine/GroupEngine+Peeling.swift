import Foundation
import MarmotWire
import MLS
import Nostr

/// The transport keys of the engine's branch graph: what the peeler tries a kind-445 event with.
extension GroupEngine {
    /// The kind-445 keys of this group, one per retained state: the canonical path from its tip back
    /// to the anchor first, then every other branch's states, newest first (MIP-03: each epoch's key
    /// comes from that state's MLS exporter; MDK 0.9.14's transport peeler tries the key of every
    /// retained state, so a message of a competing branch opens and reaches the engine, which holds
    /// it). A state's epoch never changes, so each key is derived once and kept in memory only.
    package mutating func peelKeys() -> [PeelKey] {
        let canonicalPath = graph.path(to: graph.canonical).reversed()
        let onPath = Set(canonicalPath)
        let others = graph.nodes.values.filter { !onPath.contains($0.id) }
            .sorted { ($0.epoch, $0.id) > ($1.epoch, $1.id) }.map(\.id)
        if eventKeys.keys.contains(where: { graph.nodes[$0] == nil }) { eventKeys = eventKeys.filter { graph.nodes[$0.key] != nil } }
        return (Array(canonicalPath) + others).compactMap { id in
            guard let key = eventKey(at: id), let epoch = graph.nodes[id]?.epoch else { return nil }
            return PeelKey(key, from: .state(id, epoch: epoch))
        }
    }

    /// The kind-445 key of the retained state `id` (the canonical tip's seals what we publish),
    /// derived on first use.
    package mutating func eventKey(at id: BranchGraph.NodeID) -> GroupEventKey? {
        if let key = eventKeys[id] { return key }
        guard let mls = graph.nodes[id]?.mls else { return nil }
        let key = try? GroupEventKey(exporter: { try mls.exporter(label: $0, context: $1, length: $2) })
        eventKeys[id] = key
        return key
    }

    /// The peeler of this group's kind-445 events with `peelKeys()` (nil before the group has its
    /// Marmot data, which names its `h`).
    package mutating func peeler(window: GroupEvent.TimeWindow) -> GroupEventPeeler? {
        guard let h = metadata?.nostrGroupID else { return nil }
        return GroupEventPeeler(rules: rules, nostrGroupID: h, groupID: state.groupID, keys: peelKeys(), window: window)
    }
}
