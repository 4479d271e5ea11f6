/// The tree's signature and HPKE keys as the Add checks look them up (RFC 9420 §12.2: an Add's keys
/// must be new to the group).
///
/// For many Adds (a group founded with its members) the keys are indexed once and kept up to date,
/// so each Add costs the same whatever the group's size; for a few Adds a scan of the tree per Add
/// is cheaper than hashing every key of a large group (issue 27). Both answer the same.
struct TreeKeys {
    /// Above this many Adds in one commit the keys are indexed.
    static let scanLimit = 8

    private var memberSignatureKeys: [SignaturePublicKey: LeafIndex]?
    private var encryptionKeys: Set<HPKEPublicKey>?

    init(_ tree: RatchetTree, indexed: Bool) {
        guard indexed else { return }
        var members: [SignaturePublicKey: LeafIndex] = [:]
        for (index, leaf) in tree.leaves where members[leaf.signatureKey] == nil {
            members[leaf.signatureKey] = index
        }
        memberSignatureKeys = members
        encryptionKeys = Set((0..<tree.nodeCount).compactMap { tree.encryptionKey(at: NodeIndex(UInt32($0))) })
    }

    /// The first leaf of `tree` whose signature key is `key`.
    func member(signedBy key: SignaturePublicKey, in tree: RatchetTree) -> LeafIndex? {
        if let memberSignatureKeys { return memberSignatureKeys[key] }
        return tree.leaf(withSignatureKey: key)
    }

    /// Whether a node of `tree` holds the HPKE key `key`.
    func contains(_ key: HPKEPublicKey, in tree: RatchetTree) -> Bool {
        if let encryptionKeys { return encryptionKeys.contains(key) }
        return tree.node(withEncryptionKey: key) != nil
    }

    /// Records a leaf the Adds put at `index` (the scan sees it in the tree already).
    mutating func added(_ leaf: LeafNode, at index: LeafIndex) {
        guard memberSignatureKeys != nil else { return }
        memberSignatureKeys?[leaf.signatureKey] = index
        encryptionKeys?.insert(leaf.encryptionKey)
    }
}
