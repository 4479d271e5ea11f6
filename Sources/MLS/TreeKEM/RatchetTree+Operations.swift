import Foundation

extension RatchetTree {
    /// The leftmost blank leaf, where the next Add lands (RFC 9420 §12.1.1); nil when the tree is full.
    public var leftmostBlankLeaf: LeafIndex? {
        nodes.withUnsafeBufferPointer { buffer in
            stride(from: 0, to: buffer.count, by: 2).first { if case .none = buffer[$0] { true } else { false } }
        }.map { LeafIndex(UInt32($0 / 2)) }
    }

    /// Adds a member (§12.1.1): places the leaf in the leftmost blank leaf, extending the tree when
    /// there is none (§7.7), and lists it as unmerged at every non-blank parent above it.
    @discardableResult
    public mutating func add(_ leaf: LeafNode) throws(TreeError) -> LeafIndex {
        let index = try claimLeftmostBlankLeaf()
        for parent in size.directPath(of: index.nodeIndex) {
            guard case .parent(var node) = nodes[Int(parent.rawValue)] else { continue }
            let position = node.unmergedLeaves.firstIndex { $0 > index } ?? node.unmergedLeaves.endIndex
            if position == node.unmergedLeaves.startIndex || node.unmergedLeaves[position - 1] != index {
                node.unmergedLeaves.insert(index, at: position)
            }
            setNode(.parent(node), at: parent)
        }
        setNode(.leaf(leaf), at: index.nodeIndex)
        return index
    }

    /// The leftmost blank leaf, extending the tree to the right first when every leaf is taken (§7.7).
    /// An external joiner's commit uses it to place the joiner (§12.4.2); the leaf stays blank.
    public mutating func claimLeftmostBlankLeaf() throws(TreeError) -> LeafIndex {
        if let blank = leftmostBlankLeaf { return blank }
        let first = LeafIndex(leafCount)
        try extend()
        return first
    }

    /// Replaces a member's leaf from an Update proposal and blanks its direct path (§12.1.2).
    /// Checking the new leaf (source, signature, fresh key, §7.3) is the caller's part.
    public mutating func update(_ leaf: LeafNode, at index: LeafIndex) throws(TreeError) {
        _ = try requireLeaf(index)
        blankDirectPath(of: index)
        setNode(.leaf(leaf), at: index.nodeIndex)
    }

    /// Removes a member (§12.1.3): blanks its leaf and direct path, then truncates the tree.
    public mutating func remove(_ index: LeafIndex) throws(TreeError) {
        _ = try requireLeaf(index)
        setNode(nil, at: index.nodeIndex)
        blankDirectPath(of: index)
        truncate()
    }

    /// Blanks every parent node on a leaf's direct path (§7.5, §12.1.2, §12.1.3).
    mutating func blankDirectPath(of leaf: LeafIndex) {
        for parent in size.directPath(of: leaf.nodeIndex) where nodes[Int(parent.rawValue)] != nil {
            setNode(nil, at: parent)
        }
    }

    /// Doubles the leaf count with a blank right subtree and a blank new root (§7.7, Appendix C).
    mutating func extend() throws(TreeError) {
        guard leafCount < TreeSize.maxLeafCount else { throw .tooManyLeaves }
        appendBlankHalf()
    }

    /// Drops the right half of the tree while it holds no member (§7.7, §12.1.3).
    mutating func truncate() {
        var width = nodes.count
        while width > 1 {
            let half = (width - 1) / 2
            let rightHasMember = stride(from: half + 1, to: width, by: 2).contains { nodes[$0] != nil }
            if rightHasMember { break }
            width = half
        }
        if width != nodes.count { truncate(toWidth: width) }
    }
}
