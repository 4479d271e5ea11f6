import Foundation

extension RatchetTree {
    /// The tree hash of the root (RFC 9420 §7.8): the value the GroupContext's tree_hash carries.
    public func treeHash() -> Data { treeHash(of: root) }

    /// The tree hash of the subtree headed by `index` (§7.8).
    ///
    /// Leaves in `excluded` are hashed as blank and dropped from unmerged_leaves lists, which gives
    /// the "original sibling tree hash" a parent hash needs (§7.9).
    public func treeHash(of index: NodeIndex, excluding excluded: Set<LeafIndex> = []) -> Data {
        guard size.contains(index) else { return Data() }
        if index.isLeaf { return leafHash(at: index, excluding: excluded) }
        guard let left = index.left, let right = index.right else { return Data() }
        return parentHashInputHash(
            at: index, excluding: excluded,
            left: treeHash(of: left, excluding: excluded), right: treeHash(of: right, excluding: excluded))
    }

    /// The tree hash of every node, indexed by node index, computed bottom-up in one pass.
    public func treeHashes() -> [Data] {
        var hashes = [Data](repeating: Data(), count: nodes.count)
        for i in stride(from: 0, to: nodes.count, by: 2) {
            hashes[i] = leafHash(at: NodeIndex(UInt32(i)), excluding: [])
        }
        var level = 1
        while (1 << level) - 1 < nodes.count {
            let half = 1 << (level - 1)
            for i in stride(from: (1 << level) - 1, to: nodes.count, by: 1 << (level + 1)) {
                hashes[i] = parentHashInputHash(
                    at: NodeIndex(UInt32(i)), excluding: [], left: hashes[i - half], right: hashes[i + half])
            }
            level += 1
        }
        return hashes
    }

    /// Hash(TreeHashInput{leaf, LeafNodeHashInput{leaf_index, optional<LeafNode>}}).
    private func leafHash(at index: NodeIndex, excluding excluded: Set<LeafIndex>) -> Data {
        let leafIndex = LeafIndex(index.rawValue >> 1)
        var writer = TLSWriter(capacity: 512)
        writer.write(NodeType.leaf)
        writer.write(leafIndex)
        writer.writeOptional(excluded.contains(leafIndex) ? nil : nodes[Int(index.rawValue)]?.leafNode)
        return provider.hash(writer.bytes)
    }

    /// Hash(TreeHashInput{parent, ParentNodeHashInput{optional<ParentNode>, left_hash, right_hash}}).
    private func parentHashInputHash(
        at index: NodeIndex, excluding excluded: Set<LeafIndex>, left: Data, right: Data
    ) -> Data {
        var parent = nodes[Int(index.rawValue)]?.parentNode
        if !excluded.isEmpty { parent?.unmergedLeaves.removeAll { excluded.contains($0) } }
        var writer = TLSWriter(capacity: 160)
        writer.write(NodeType.parent)
        writer.writeOptional(parent)
        writer.writeOpaque(left)
        writer.writeOpaque(right)
        return provider.hash(writer.bytes)
    }
}
