import Foundation

/// The public ratchet tree of a group: one optional node per array position (RFC 9420 §4, §7).
///
/// Stored as a full tree (2^d leaves, 2^(d+1) - 1 nodes) in the array layout of Appendix C: leaf L at
/// index 2L, parents at odd indices, `nil` for blank nodes. A value type: operations return or mutate
/// a copy and only commit their result once every check has passed, so a rejected input never
/// changes the caller's tree.
public struct RatchetTree: Hashable, Sendable {
    /// The suite whose hash and HPKE this tree uses.
    public let provider: CipherSuiteProvider
    /// Every node of the full tree, blank ones as `nil`; leaves at even, parents at odd positions.
    /// Replacing the array (or one of its elements through it) forgets every cached tree hash;
    /// `setNode(_:at:)` forgets only those the change affects.
    var nodes: [Node?] {
        get { storage }
        set {
            storage = newValue
            subtreeHashes = Array(repeating: nil, count: newValue.count)
        }
    }
    /// The shape of the full tree.
    public private(set) var size: TreeSize
    /// The nodes, private so every change goes through `nodes`, `setNode` or `setNodes`, which keep
    /// `subtreeHashes` in step.
    private var storage: [Node?]
    /// The tree hash (§7.8) of the subtree under each node, by node index, nil when not yet known.
    /// A pure function of that subtree, so it stays valid while nothing below the node changes (the
    /// tree growing or shrinking keeps node indices, Appendix C); copies carry it with the nodes.
    private(set) var subtreeHashes: [Data?]

    /// A one-member tree, as the creator of a group builds it (§11).
    public init(provider: CipherSuiteProvider, firstLeaf: LeafNode) {
        self.provider = provider
        storage = [.leaf(firstLeaf)]
        subtreeHashes = [nil]
        size = Self.size(forFullWidth: 1)
    }

    /// Builds the tree a ratchet_tree extension describes (§12.4.3.3): checks that the list is
    /// non-empty, ends in a non-blank node and places every node at a position of its kind, then
    /// extends it with blanks to a full tree. Semantic checks (parent hashes, signatures, unmerged
    /// leaves, key uniqueness) are separate so the caller decides when to run them.
    public init(_ transmitted: RatchetTreeNodes, provider: CipherSuiteProvider) throws(TreeError) {
        guard let last = transmitted.nodes.last, last != nil else { throw .emptyOrTrailingBlank }
        for (index, node) in transmitted.nodes.enumerated() {
            guard let node else { continue }
            if (node.type == .leaf) != index.isMultiple(of: 2) { throw .nodeMisplaced(NodeIndex(UInt32(index))) }
        }
        var leafCount = 1
        while 2 * leafCount - 1 < transmitted.nodes.count {
            guard leafCount < Int(TreeSize.maxLeafCount) else { throw .tooManyLeaves }
            leafCount *= 2
        }
        let width = 2 * leafCount - 1
        self.provider = provider
        storage = transmitted.nodes + Array(repeating: nil, count: width - transmitted.nodes.count)
        subtreeHashes = Array(repeating: nil, count: width)
        size = Self.size(forFullWidth: width)
    }

    /// Decodes a serialized `optional<Node> ratchet_tree<V>` and builds the tree from it.
    public init<D: DataProtocol>(tlsSerialized bytes: D, provider: CipherSuiteProvider) throws {
        try self.init(RatchetTreeNodes(tlsSerialized: bytes), provider: provider)
    }

    /// The shape for a node array of full width 2^(d+1) - 1 (odd, at most 2^32 - 1), which the
    /// initializers and the extend/truncate operations guarantee.
    static func size(forFullWidth width: Int) -> TreeSize {
        TreeSize(checkedLeafCount: UInt32(truncatingIfNeeded: (width + 1) / 2))
    }

    /// Replaces the node array, forgetting every cached hash; the count must be a full width.
    mutating func setNodes(_ newNodes: [Node?]) {
        nodes = newNodes
        size = Self.size(forFullWidth: newNodes.count)
    }

    /// Sets one node and forgets the cached hashes it changes: its own and its ancestors' (§7.8).
    mutating func setNode(_ node: Node?, at index: NodeIndex) {
        let i = Int(index.rawValue)
        storage[i] = node
        var changed: NodeIndex? = index
        while let current = changed {
            subtreeHashes[Int(current.rawValue)] = nil
            changed = size.parent(of: current)
        }
    }

    /// Doubles the width with blank nodes on the right (§7.7). Existing subtrees keep their
    /// indices and contents, so their cached hashes stay; only the new nodes are unknown.
    mutating func appendBlankHalf() {
        let added = storage.count + 1
        storage += Array(repeating: nil, count: added)
        subtreeHashes += Array(repeating: nil, count: added)
        size = Self.size(forFullWidth: storage.count)
    }

    /// Keeps the first `width` nodes, a full width (§7.7); the kept subtrees' hashes stay valid.
    mutating func truncate(toWidth width: Int) {
        storage.removeLast(storage.count - width)
        subtreeHashes.removeLast(subtreeHashes.count - width)
        size = Self.size(forFullWidth: width)
    }

    /// Computes and keeps the tree hash of every subtree not cached yet (§7.8): after a change that
    /// is the changed leaves' direct paths, so later tree hashes, parent hashes and comparisons with
    /// the next epoch's tree cost no hashing for the untouched part.
    public mutating func cacheTreeHashes() {
        guard subtreeHashes.contains(nil) else { return }
        subtreeHashes = treeHashes().map { $0 }
    }

    /// Equality and hashing see the nodes only, never the cache.
    public static func == (lhs: RatchetTree, rhs: RatchetTree) -> Bool {
        lhs.provider == rhs.provider && lhs.size == rhs.size && lhs.storage == rhs.storage
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(provider)
        hasher.combine(size)
        hasher.combine(storage)
    }

    // MARK: Serialization

    /// The tree as sent in a ratchet_tree extension: trailing blank nodes dropped (§12.4.3.3).
    public var ratchetTreeNodes: RatchetTreeNodes {
        var trimmed = nodes[...]
        while let last = trimmed.last, last == nil { trimmed = trimmed.dropLast() }
        return RatchetTreeNodes(nodes: Array(trimmed))
    }

    // MARK: Access

    /// Number of leaf positions, blank or not (a power of two).
    public var leafCount: UInt32 { size.leafCount }

    /// Number of positions in the array, 2·leafCount - 1.
    public var nodeCount: Int { nodes.count }

    /// The root node's index.
    public var root: NodeIndex { size.root }

    /// The node at `index`, or nil when blank or outside the tree.
    public subscript(index: NodeIndex) -> Node? {
        let i = Int(index.rawValue)
        return i < nodes.count ? nodes[i] : nil
    }

    /// The member's leaf at `index`, or nil when blank or outside the tree.
    /// Indices at or beyond the leaf count are outside, never aliased to a smaller leaf (2^31 + i
    /// would otherwise map to node 2i).
    public func leafNode(at index: LeafIndex) -> LeafNode? {
        guard size.contains(index) else { return nil }
        return self[index.nodeIndex]?.leafNode
    }

    /// The parent node at `index`, or nil when blank, a leaf position or outside the tree.
    public func parentNode(at index: NodeIndex) -> ParentNode? { self[index]?.parentNode }

    /// True for a blank node or a position outside the tree.
    public func isBlank(_ index: NodeIndex) -> Bool { self[index] == nil }

    /// The HPKE public key held at a node, or nil when blank.
    public func encryptionKey(at index: NodeIndex) -> HPKEPublicKey? {
        switch self[index] {
        case .leaf(let leaf): leaf.encryptionKey
        case .parent(let parent): parent.encryptionKey
        case nil: nil
        }
    }

    /// The non-blank leaves, in index order.
    public var leaves: [(index: LeafIndex, leaf: LeafNode)] {
        stride(from: 0, to: nodes.count, by: 2).compactMap { i in
            nodes[i]?.leafNode.map { (LeafIndex(UInt32(i / 2)), $0) }
        }
    }

    /// The number of members (non-blank leaves).
    public var memberCount: Int {
        storage.withUnsafeBufferPointer { buffer in
            stride(from: 0, to: buffer.count, by: 2).reduce(0) { count, i in
                if case .none = buffer[i] { count } else { count + 1 }
            }
        }
    }

    /// The leaf of the member with this signature key.
    public func leafIndex(signatureKey: SignaturePublicKey) -> LeafIndex? {
        leaf(withSignatureKey: signatureKey)
    }

    /// The leaf whose encryption key this is.
    public func leafIndex(encryptionKey: HPKEPublicKey) -> LeafIndex? {
        node(withEncryptionKey: encryptionKey, leavesOnly: true)?.leafIndex
    }

    // The scans below read the nodes in place: a copy of a node retains every field of its leaf,
    // which made a key lookup in a 200-member tree cost as much as hashing it (issue 27).

    /// The first node holding HPKE key `key` other than `skipped` (§7.3 uniqueness), leaves only
    /// when `leavesOnly`.
    func node(withEncryptionKey key: HPKEPublicKey, skipping skipped: NodeIndex? = nil, leavesOnly: Bool = false) -> NodeIndex? {
        let skip = skipped.map { Int($0.rawValue) } ?? -1
        return storage.withUnsafeBufferPointer { buffer in
            for i in stride(from: 0, to: buffer.count, by: leavesOnly ? 2 : 1) where i != skip {
                switch buffer[i] {
                case .leaf(let leaf)? where leaf.encryptionKey == key: return NodeIndex(UInt32(i))
                case .parent(let parent)? where parent.encryptionKey == key: return NodeIndex(UInt32(i))
                default: continue
                }
            }
            return nil
        }
    }

    /// Calls `body` with each non-blank leaf, in index order.
    func forEachLeaf(_ body: (LeafIndex, LeafNode) -> Void) {
        storage.withUnsafeBufferPointer { buffer in
            for i in stride(from: 0, to: buffer.count, by: 2) {
                if case .leaf(let leaf)? = buffer[i] { body(LeafIndex(UInt32(i / 2)), leaf) }
            }
        }
    }

    /// The first leaf whose signature key is `key`, other than `skipped`.
    func leaf(withSignatureKey key: SignaturePublicKey, skipping skipped: LeafIndex? = nil) -> LeafIndex? {
        let skip = skipped.map { Int($0.nodeIndex.rawValue) } ?? -1
        return storage.withUnsafeBufferPointer { buffer in
            for i in stride(from: 0, to: buffer.count, by: 2) where i != skip {
                if case .leaf(let leaf)? = buffer[i], leaf.signatureKey == key { return LeafIndex(UInt32(i / 2)) }
            }
            return nil
        }
    }

    /// The leaf holding exactly this LeafNode, as a joiner finds its own (§12.4.3.1).
    public func leafIndex(of leafNode: LeafNode) -> LeafIndex? {
        leaves.first { $0.leaf == leafNode }?.index
    }

    /// Fails unless `leaf` lies inside the tree.
    func checkInRange(_ leaf: LeafIndex) throws(TreeError) {
        guard size.contains(leaf) else { throw .leafOutOfRange(leaf) }
    }

    /// The leaf at `index`, or `.leafOutOfRange` / `.blankLeaf`.
    public func requireLeaf(_ index: LeafIndex) throws(TreeError) -> LeafNode {
        try checkInRange(index)
        guard let leaf = leafNode(at: index) else { throw .blankLeaf(index) }
        return leaf
    }
}
