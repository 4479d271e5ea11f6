import Foundation

/// The credential rule of §7.3 over a whole tree, answered per leaf in time that does not grow with
/// the group: every member must support a leaf's credential type, and the leaf every member's.
///
/// Why: checking each leaf of a joined tree against every other is quadratic (a million pairs at
/// 1,000 members). Indexed by credential type (few in any group), each leaf's answer is the same
/// error, naming the same member, as walking the members in leaf order would give: the first member
/// that fails either direction, the "member does not support this leaf's type" direction first
/// when one member fails both.
struct CredentialCompatibility: Sendable {
    /// Leaves holding each credential type, in leaf order.
    private var holders: [CredentialType: [LeafIndex]] = [:]
    /// Leaves that do not list each present credential type in their capabilities, in leaf order.
    private var nonSupporters: [CredentialType: [LeafIndex]] = [:]

    init(_ tree: RatchetTree) {
        var holders: [CredentialType: [LeafIndex]] = [:]
        tree.forEachLeaf { index, leaf in holders[leaf.credential.type, default: []].append(index) }
        for type in holders.keys {
            var list: [LeafIndex] = []
            tree.forEachLeaf { index, leaf in
                if !leaf.capabilities.supports(.credentialType(type)) { list.append(index) }
            }
            nonSupporters[type] = list
        }
        self.holders = holders
    }

    /// Records a leaf added to the tree at `index` (after `check` accepted it).
    mutating func insert(_ leaf: LeafNode, at index: LeafIndex, tree: RatchetTree) {
        let type = leaf.credential.type
        if holders[type] == nil {
            // A type new to the group: who does not support it is read once from the whole tree.
            nonSupporters[type] = tree.leaves.filter { $0.index != index && !$0.leaf.capabilities.supports(.credentialType(type)) }
                .map(\.index)
        }
        Self.insertSorted(index, into: &holders[type, default: []])
        for other in holders.keys where !leaf.capabilities.supports(.credentialType(other)) {
            Self.insertSorted(index, into: &nonSupporters[other, default: []])
        }
    }

    private static func insertSorted(_ index: LeafIndex, into list: inout [LeafIndex]) {
        var low = 0, high = list.count
        while low < high {
            let middle = (low + high) / 2
            if list[middle] < index { low = middle + 1 } else { high = middle }
        }
        if low < list.count, list[low] == index { return }
        list.insert(index, at: low)
    }

    /// The error the leaf-by-leaf rule gives for `leaf` at `index` (nil: a leaf not in the tree,
    /// checked against every member), if any (no departing leaves).
    func check(_ leaf: LeafNode, at index: LeafIndex?) throws(LeafNodeValidationError) {
        let type = leaf.credential.type
        let unsupportedBy = nonSupporters[type]?.first { $0 != index }
        var unsupported: (member: LeafIndex, type: CredentialType)?
        for (other, leaves) in holders where !leaf.capabilities.supports(.credentialType(other)) {
            guard let first = leaves.first(where: { $0 != index }) else { continue }
            if unsupported.map({ first < $0.member }) ?? true { unsupported = (first, other) }
        }
        switch (unsupportedBy, unsupported) {
        case (let member?, let other?) where other.member < member:
            throw .memberCredentialUnsupported(other.type, member: other.member)
        case (let member?, _):
            throw .credentialUnsupportedByMember(type, member: member)
        case (nil, let other?):
            throw .memberCredentialUnsupported(other.type, member: other.member)
        case (nil, nil):
            return
        }
    }
}
