import Foundation

extension RatchetTree {
    /// The tree hash of the root (RFC 9420 §7.8): the value the GroupContext's tree_hash carries.
    public func treeHash() -> Data { treeHash(of: root) }

    /// The tree hash of the subtree headed by `index` (§7.8).
    ///
    /// Leaves in `excluded` are hashed as blank and dropped from unmerged_leaves lists, which gives
    /// the "original sibling tree hash" a parent hash needs (§7.9).
    /// Subtrees that hold no excluded leaf are answered from the cache when it has them (an
    /// unmerged leaf lies below the parent listing it, §7.1, so such a subtree hashes as cached).
    public func treeHash(of index: NodeIndex, excluding excluded: Set<LeafIndex> = []) -> Data {
        guard size.contains(index) else { return Data() }
        if let cached = subtreeHashes[Int(index.rawValue)] {
            let range = subtreeRange(index)
            if !excluded.contains(where: { range.contains($0.nodeIndex.rawValue) }) { return cached }
        }
        if index.isLeaf { return leafHash(at: index, excluding: excluded) }
        guard let left = index.left, let right = index.right else { return Data() }
        return parentHashInputHash(
            at: index, excluding: excluded,
            left: treeHash(of: left, excluding: excluded), right: treeHash(of: right, excluding: excluded))
    }

    /// The tree hash of every node, indexed by node index, computed bottom-up in one pass; cached
    /// subtrees are taken from the cache.
    public func treeHashes() -> [Data] {
        var hashes = [Data](repeating: Data(), count: nodes.count)
        for i in stride(from: 0, to: nodes.count, by: 2) {
            hashes[i] = subtreeHashes[i] ?? leafHash(at: NodeIndex(UInt32(i)), excluding: [])
        }
        var level = 1
        while (1 << level) - 1 < nodes.count {
            let half = 1 << (level - 1)
            for i in stride(from: (1 << level) - 1, to: nodes.count, by: 1 << (level + 1)) {
                hashes[i] = subtreeHashes[i] ?? parentHashInputHash(
                    at: NodeIndex(UInt32(i)), excluding: [], left: hashes[i - half], right: hashes[i + half])
            }
            level += 1
        }
        return hashes
    }

    /// The nodes whose subtree differs from the subtree at the same position in `old`, parents
    /// before their children: their tree hashes (§7.8) differ, or `old` has no node there. Node
    /// indices survive the tree growing and shrinking (Appendix C), so this is every node a change
    /// touched together with all its ancestors — exactly the parents whose parent-hash validity
    /// (§7.9.2) and unmerged lists (§7.1) a change can affect; everywhere else `old`'s checks hold.
    public func changedSubtrees(since old: RatchetTree) -> [NodeIndex] {
        let hashes = treeHashes()
        let previous = old.treeHashes()
        var changed: [NodeIndex] = []
        var pending = [root]
        while let index = pending.popLast() {
            let i = Int(index.rawValue)
            if i < previous.count, previous[i] == hashes[i] { continue }
            changed.append(index)
            if let left = index.left, let right = index.right {
                pending.append(right)
                pending.append(left)
            }
        }
        return changed
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
