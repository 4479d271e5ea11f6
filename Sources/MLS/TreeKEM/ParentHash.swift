import Foundation

/// What a parent hash covers (RFC 9420 §7.9): a node's key, its own parent_hash (chaining to the
/// root) and the tree hash of its copath child as it was when the node was last set.
struct ParentHashInput: TLSEncodable {
    let encryptionKey: HPKEPublicKey
    let parentHash: Data
    let originalSiblingTreeHash: Data

    func encode(to writer: inout TLSWriter) {
        writer.write(encryptionKey)
        writer.writeOpaque(parentHash)
        writer.writeOpaque(originalSiblingTreeHash)
    }
}

extension RatchetTree {
    /// The parent hash of parent node `index` with copath child `sibling` (§7.9), or nil when the node
    /// is blank. The sibling's tree hash is taken with the node's unmerged leaves blanked, which
    /// restores it to what it was when the node was set.
    public func parentHash(of index: NodeIndex, copathChild sibling: NodeIndex) -> Data? {
        guard let parent = parentNode(at: index) else { return nil }
        let siblingHash = treeHash(of: sibling, excluding: Set(parent.unmergedLeaves))
        return parentHash(of: parent, originalSiblingTreeHash: siblingHash)
    }

    func parentHash(of parent: ParentNode, originalSiblingTreeHash: Data) -> Data {
        let input = ParentHashInput(
            encryptionKey: parent.encryptionKey, parentHash: parent.parentHash,
            originalSiblingTreeHash: originalSiblingTreeHash)
        return provider.hash(input.tlsSerialized)
    }

    /// Fills the parent_hash fields along a freshly set filtered direct path, root first (§7.5 step 3),
    /// and returns the parent hash the committer's leaf must carry. The path's nodes have no unmerged
    /// leaves, so each copath child's current tree hash is its original one.
    mutating func setParentHashes(along path: [FilteredPathStep]) -> Data {
        var above = Data()
        for step in path.reversed() {
            guard case .parent(var parent) = nodes[Int(step.node.rawValue)] else { continue }
            parent.parentHash = above
            setNode(.parent(parent), at: step.node)
            above = parentHash(of: parent, originalSiblingTreeHash: treeHash(of: step.copathChild))
        }
        return above
    }

    /// The parent_hash a node carries: a parent's field, or a commit-sourced leaf's (§7.9.1).
    func parentHashField(at index: NodeIndex) -> Data? {
        switch self[index] {
        case .parent(let parent): parent.parentHash
        case .leaf(let leaf):
            if case .commit(let parentHash) = leaf.source { parentHash } else { nil }
        case nil: nil
        }
    }

    /// Checks that every non-blank parent node is parent-hash valid (§7.9.2), in index order: exactly
    /// one descendant D must carry the node's parent hash, lie in the resolution of the child C above
    /// it, and account for the node's unmerged leaves under C (they equal C's resolution without D).
    public func verifyParentHashes() throws(TreeError) {
        var tree = self
        tree.cacheTreeHashes()
        try tree.verifyParentHashes(of: stride(from: 1, to: nodes.count, by: 2).map { NodeIndex(UInt32($0)) })
    }

    /// Checks `parents` for parent-hash validity (§7.9.2), in the order given; blank nodes and
    /// leaves pass. A node's validity depends only on its own subtree, so after a commit the nodes
    /// of `changedSubtrees(since:)` are the ones to check (§12.4.2).
    public func verifyParentHashes(of parents: [NodeIndex]) throws(TreeError) {
        for index in parents where !isParentHashValid(index) { throw .invalidParentHash(index) }
    }

    /// Whether `index` is blank, a leaf, or a parent with exactly one child through which it is
    /// parent-hash valid (§7.9.2).
    func isParentHashValid(_ index: NodeIndex) -> Bool {
        guard let parent = parentNode(at: index), let left = index.left, let right = index.right else { return true }
        let unmerged = Set(parent.unmergedLeaves)
        var valid = 0
        for (child, sibling) in [(left, right), (right, left)] {
            let expected = parentHash(of: parent, originalSiblingTreeHash: treeHash(of: sibling, excluding: unmerged))
            let childRange = subtreeRange(child)
            let unmergedUnderChild = Set(
                parent.unmergedLeaves.map(\.nodeIndex).filter { childRange.contains($0.rawValue) })
            let childResolution = resolution(of: child)
            for candidate in childResolution where parentHashField(at: candidate) == expected {
                var rest = Set(childResolution)
                rest.remove(candidate)
                if rest == unmergedUnderChild { valid += 1 }
            }
        }
        return valid == 1
    }
}
