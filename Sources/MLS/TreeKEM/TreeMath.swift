/// Array-based tree math for the ratchet tree and the secret tree (RFC 9420 §4.1, Appendix C).
///
/// Leaves sit at even node indices (leaf n at node 2n), parents at odd ones; a parent's level is the
/// number of trailing one bits of its index. MLS trees are always full (§7.7: extending doubles the
/// leaf count), so a `TreeSize` is normally a power of two; other counts are answered in the view of
/// the smallest full tree that contains them, as the Appendix C algorithms do.

/// The position of a member among the leaves (RFC 9420 §4.1.1), carried on the wire as `uint32`.
public struct LeafIndex: RawRepresentable, Hashable, Comparable, Sendable, TLSCodable, CustomStringConvertible {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public init(_ rawValue: UInt32) { self.rawValue = rawValue }

    /// The node holding this leaf (2n). Only meaningful for leaves a `TreeSize` contains (n < 2^31):
    /// larger values would alias leaf n - 2^31, so every caller checks `TreeSize.contains` first (the
    /// tree, secret tree and validators do); this wraps instead of trapping on such input.
    public var nodeIndex: NodeIndex { NodeIndex(rawValue &* 2) }

    public static func < (lhs: LeafIndex, rhs: LeafIndex) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "leaf \(rawValue)" }

    public func encode(to writer: inout TLSWriter) { writer.write(rawValue) }
    public init(from reader: inout TLSReader) throws { rawValue = try reader.readUInt32() }
}

/// A node's position in the flat array representation of a tree (RFC 9420 Appendix C).
public struct NodeIndex: RawRepresentable, Hashable, Comparable, Sendable, TLSCodable, CustomStringConvertible {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public init(_ rawValue: UInt32) { self.rawValue = rawValue }

    /// Leaves are the even indices.
    public var isLeaf: Bool { rawValue & 1 == 0 }

    /// The leaf stored here, or nil for a parent node.
    public var leafIndex: LeafIndex? { isLeaf ? LeafIndex(rawValue >> 1) : nil }

    /// Height above the leaves: 0 for a leaf, else the count of trailing one bits.
    public var level: Int { (~rawValue).trailingZeroBitCount }

    /// The left child of a parent node; nil for a leaf.
    public var left: NodeIndex? {
        let k = level
        guard k > 0 else { return nil }
        return NodeIndex(rawValue ^ (1 << UInt32(k - 1)))
    }

    /// The right child of a parent node in the full-tree view; nil for a leaf.
    public var right: NodeIndex? {
        let k = level
        guard k > 0 else { return nil }
        return NodeIndex(rawValue ^ (3 << UInt32(k - 1)))
    }

    public static func < (lhs: NodeIndex, rhs: NodeIndex) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "node \(rawValue)" }

    public func encode(to writer: inout TLSWriter) { writer.write(rawValue) }
    public init(from reader: inout TLSReader) throws { rawValue = try reader.readUInt32() }
}

/// Errors from tree-shape arguments that cannot describe an MLS tree.
public enum TreeMathError: Error, Equatable, Sendable {
    /// A tree needs between 1 and 2^31 leaves so that every node index fits in a `uint32`.
    case invalidLeafCount(UInt32)
}

/// The shape of a tree with a given number of leaves; answers the relations of RFC 9420 Appendix C.
public struct TreeSize: Hashable, Sendable, CustomStringConvertible {
    /// The largest leaf count whose node indices fit in a `uint32`.
    public static let maxLeafCount: UInt32 = 1 << 31

    public let leafCount: UInt32

    public init(leafCount: UInt32) throws(TreeMathError) {
        guard leafCount >= 1, leafCount <= Self.maxLeafCount else { throw .invalidLeafCount(leafCount) }
        self.leafCount = leafCount
    }

    /// For counts the caller has already bounded to 1 ... 2^31 (the ratchet tree's full widths).
    init(checkedLeafCount leafCount: UInt32) { self.leafCount = leafCount }

    /// The number of array slots the leaves need: 2(n - 1) + 1.
    public var nodeWidth: UInt32 { 2 * (leafCount - 1) + 1 }

    /// The root: the largest index of the form 2^k - 1 within the node width.
    public var root: NodeIndex {
        let width = nodeWidth
        let log2 = UInt32.bitWidth - 1 - width.leadingZeroBitCount
        return NodeIndex(UInt32((UInt64(1) << UInt64(log2)) - 1))
    }

    /// True when the node lies within the node width.
    public func contains(_ node: NodeIndex) -> Bool { node.rawValue < nodeWidth }

    /// True when the leaf lies within the leaf count.
    public func contains(_ leaf: LeafIndex) -> Bool { leaf.rawValue < leafCount }

    /// True when the node belongs to the full tree rooted at `root` (indices 0 ... 2·root).
    private func inFullTree(_ node: NodeIndex) -> Bool { UInt64(node.rawValue) <= 2 * UInt64(root.rawValue) }

    /// The parent of a node; nil for the root and for nodes outside the tree.
    public func parent(of node: NodeIndex) -> NodeIndex? {
        guard inFullTree(node), node != root else { return nil }
        let k = UInt64(node.level)
        let x = UInt64(node.rawValue)
        let b = (x >> (k + 1)) & 1
        return NodeIndex(UInt32(truncatingIfNeeded: (x | (1 << k)) ^ (b << (k + 1))))
    }

    /// The other child of a node's parent; nil for the root and for nodes outside the tree.
    public func sibling(of node: NodeIndex) -> NodeIndex? {
        guard let parent = parent(of: node) else { return nil }
        return node < parent ? parent.right : parent.left
    }

    /// The node's ancestors from its parent up to the root (RFC 9420 §4.1.2); empty for the root.
    public func directPath(of node: NodeIndex) -> [NodeIndex] {
        var path: [NodeIndex] = []
        var current = node
        while let next = parent(of: current) {
            path.append(next)
            current = next
        }
        return path
    }

    /// The siblings of the node and of each direct-path node below the root (RFC 9420 §4.1.2).
    public func copath(of node: NodeIndex) -> [NodeIndex] {
        var nodes = [node] + directPath(of: node)
        nodes.removeLast()
        return nodes.compactMap { sibling(of: $0) }
    }

    /// The lowest node whose subtree holds both nodes (either may be an ancestor of the other).
    public func commonAncestor(_ a: NodeIndex, _ b: NodeIndex) -> NodeIndex {
        let la = UInt32(a.level + 1), lb = UInt32(b.level + 1)
        if la <= lb, UInt64(a.rawValue) >> UInt64(lb) == UInt64(b.rawValue) >> UInt64(lb) { return b }
        if lb <= la, UInt64(a.rawValue) >> UInt64(la) == UInt64(b.rawValue) >> UInt64(la) { return a }
        var x = UInt64(a.rawValue), y = UInt64(b.rawValue)
        var k: UInt64 = 0
        while x != y {
            x >>= 1
            y >>= 1
            k += 1
        }
        return NodeIndex(UInt32(truncatingIfNeeded: (x << k) + (1 << (k - 1)) - 1))
    }

    public var description: String { "TreeSize(\(leafCount) leaves)" }
}
