import Foundation

/// A node of a leaf's filtered direct path with the child of it that lies on the leaf's copath.
public struct FilteredPathStep: Hashable, Sendable {
    /// The direct-path node that an UpdatePath refreshes.
    public let node: NodeIndex
    /// Its child off the path: the path secret for `node` is encrypted to this child's resolution.
    public let copathChild: NodeIndex
}

extension RatchetTree {
    /// The resolution of a node (RFC 9420 §4.1.1): the non-blank nodes that together cover every
    /// non-blank node below it, left to right; a non-blank node contributes itself and then its
    /// unmerged leaves. Leaves in `excluded` (members added by the commit being built, §7.6) are left
    /// out, both as leaves and as unmerged-leaf entries.
    public func resolution(of index: NodeIndex, excluding excluded: Set<LeafIndex> = []) -> [NodeIndex] {
        guard size.contains(index) else { return [] }
        var result: [NodeIndex] = []
        appendResolution(of: index, excluding: excluded, to: &result)
        return result
    }

    private func appendResolution(of index: NodeIndex, excluding excluded: Set<LeafIndex>, to result: inout [NodeIndex]) {
        switch nodes[Int(index.rawValue)] {
        case .leaf:
            if let leaf = index.leafIndex, !excluded.contains(leaf) { result.append(index) }
        case .parent(let parent):
            result.append(index)
            for leaf in parent.unmergedLeaves where !excluded.contains(leaf) { result.append(leaf.nodeIndex) }
        case nil:
            guard let left = index.left, let right = index.right else { return }
            appendResolution(of: left, excluding: excluded, to: &result)
            appendResolution(of: right, excluding: excluded, to: &result)
        }
    }

    /// The range of node indices in the subtree headed by `index`.
    func subtreeRange(_ index: NodeIndex) -> ClosedRange<UInt32> {
        let half = (UInt32(1) << UInt32(index.level)) &- 1
        return (index.rawValue - half)...(index.rawValue + half)
    }

    /// True when `node` is `ancestor` or lies below it.
    func isInSubtree(_ node: NodeIndex, of ancestor: NodeIndex) -> Bool {
        subtreeRange(ancestor).contains(node.rawValue)
    }

    /// The leaf's direct path, each node with its copath child (§4.1.2); empty for a one-leaf tree.
    public func directPathSteps(of leaf: LeafIndex) -> [FilteredPathStep] {
        var steps: [FilteredPathStep] = []
        var child = leaf.nodeIndex
        while let parent = size.parent(of: child), let sibling = size.sibling(of: child) {
            steps.append(FilteredPathStep(node: parent, copathChild: sibling))
            child = parent
        }
        return steps
    }

    /// The filtered direct path of a leaf (§4.1.2): its direct path without the nodes whose copath
    /// child has an empty resolution (unmerged leaves count). Leaf to root.
    public func filteredDirectPath(of leaf: LeafIndex) -> [FilteredPathStep] {
        directPathSteps(of: leaf).filter { !resolution(of: $0.copathChild).isEmpty }
    }
}
