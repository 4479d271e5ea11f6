import Foundation

extension CipherSuiteProvider {
    /// The label of leaf signatures (RFC 9420 §7.2).
    public static let leafNodeSignatureLabel = "LeafNodeTBS"

    /// Checks a LeafNode's signature over its LeafNodeTBS (§7.2, §7.3). Update and commit leaves sign
    /// the group id and their leaf index as well; key-package leaves sign neither.
    public func verifyLeafNodeSignature(_ leaf: LeafNode, groupID: GroupID, leafIndex: LeafIndex) -> Bool {
        let tbs: LeafNodeTBS?
        if leaf.source.signsGroupContext {
            tbs = try? LeafNodeTBS(leafNode: leaf, groupID: groupID, leafIndex: leafIndex)
        } else {
            tbs = try? LeafNodeTBS(leafNode: leaf)
        }
        guard let tbs else { return false }
        return verifyWithLabel(
            leaf.signatureKey, label: Self.leafNodeSignatureLabel, content: tbs.tlsSerialized, signature: leaf.signature)
    }

    /// Signs a LeafNode in place for its position in a group (§7.2).
    public func signLeafNode(
        _ leaf: inout LeafNode, with key: SignaturePrivateKey, groupID: GroupID, leafIndex: LeafIndex
    ) throws(TreeError) {
        guard key.publicKey == leaf.signatureKey else { throw .signerMismatch }
        let tbs: LeafNodeTBS?
        if leaf.source.signsGroupContext {
            tbs = try? LeafNodeTBS(leafNode: leaf, groupID: groupID, leafIndex: leafIndex)
        } else {
            tbs = try? LeafNodeTBS(leafNode: leaf)
        }
        guard let tbs else { throw .invalidLeafSource(leafIndex) }
        do {
            leaf.signature = try signWithLabel(key, label: Self.leafNodeSignatureLabel, content: tbs.tlsSerialized)
        } catch {
            throw .crypto(error)
        }
    }
}

extension RatchetTree {
    /// Verifies the signature of every non-blank leaf with `groupID` as context (§7.3, §12.4.3.1).
    public func verifyLeafSignatures(groupID: GroupID) throws(TreeError) {
        for (index, leaf) in leaves where !provider.verifyLeafNodeSignature(leaf, groupID: groupID, leafIndex: index) {
            throw .invalidLeafSignature(index)
        }
    }

    /// Checks the unmerged_leaves of every parent (§7.1, §12.4.3.1): strictly increasing, each a
    /// non-blank leaf below the parent, and listed by every non-blank node between that leaf and it.
    public func verifyUnmergedLeaves() throws(TreeError) {
        try verifyUnmergedLeaves(of: stride(from: 1, to: nodes.count, by: 2).map { NodeIndex(UInt32($0)) })
    }

    /// Checks the unmerged_leaves of `parents` only (blank nodes and leaves pass): a list depends on
    /// the parent's subtree alone, so after a commit the nodes of `changedSubtrees(since:)` are the
    /// ones to check.
    public func verifyUnmergedLeaves(of parents: [NodeIndex]) throws(TreeError) {
        for index in parents {
            guard let parent = parentNode(at: index) else { continue }
            let range = subtreeRange(index)
            var previous: LeafIndex?
            for leaf in parent.unmergedLeaves {
                if let previous, leaf <= previous { throw .invalidUnmergedLeaves(index) }
                previous = leaf
                guard size.contains(leaf), range.contains(leaf.nodeIndex.rawValue), leafNode(at: leaf) != nil else {
                    throw .invalidUnmergedLeaves(index)
                }
                for between in size.directPath(of: leaf.nodeIndex) {
                    if between == index { break }
                    if let node = parentNode(at: between), !node.unmergedLeaves.contains(leaf) {
                        throw .invalidUnmergedLeaves(index)
                    }
                }
            }
        }
    }

    /// Checks that no HPKE key appears in two nodes and no signature key in two leaves (§7.3,
    /// §12.4.3.1).
    public func verifyKeyUniqueness() throws(TreeError) {
        var encryptionKeys = Set<HPKEPublicKey>()
        for i in nodes.indices {
            guard let key = encryptionKey(at: NodeIndex(UInt32(i))) else { continue }
            guard encryptionKeys.insert(key).inserted else { throw .duplicateEncryptionKey(NodeIndex(UInt32(i))) }
        }
        var signatureKeys = Set<SignaturePublicKey>()
        for (index, leaf) in leaves where !signatureKeys.insert(leaf.signatureKey).inserted {
            throw .duplicateSignatureKey(index)
        }
    }

    /// Key uniqueness after a change (§7.3): only the keys of `changed` (the nodes of
    /// `changedSubtrees(since:)`) are compared with every other node's, since the rest of the tree is
    /// the tree before, whose keys were unique. A pair of equal keys needs a changed node, so this
    /// finds what the tree-wide check finds, without hashing every key of a large group (issue 27).
    /// Beyond a few dozen changed nodes (a group founded with its members) the tree-wide check is
    /// cheaper and runs instead.
    public func verifyKeyUniqueness(changed: [NodeIndex]) throws(TreeError) {
        guard changed.count <= 32 else { return try verifyKeyUniqueness() }
        for node in changed {
            guard let key = encryptionKey(at: node) else { continue }
            if self.node(withEncryptionKey: key, skipping: node) != nil { throw .duplicateEncryptionKey(node) }
            guard let index = node.leafIndex, let leaf = leafNode(at: index) else { continue }
            if self.leaf(withSignatureKey: leaf.signatureKey, skipping: index) != nil { throw .duplicateSignatureKey(index) }
        }
    }

    /// The tree checks a joiner runs on a received tree (§12.4.3.1) that need no group policy: parent
    /// hashes, leaf signatures, unmerged leaves and key uniqueness. Credential, capability and
    /// lifetime checks (§7.3) are the group layer's.
    public func validate(groupID: GroupID) throws(TreeError) {
        try verifyUnmergedLeaves()
        try verifyKeyUniqueness()
        try verifyParentHashes()
        try verifyLeafSignatures(groupID: groupID)
    }

    /// Checks that every private key in `keys` belongs to the non-blank node it is stored for.
    public func verifyPrivateKeys(_ keys: TreePrivateKeys) throws(TreeError) {
        let leafNode = keys.leafIndex.nodeIndex
        guard encryptionKey(at: leafNode) == keys.leafKey.publicKey else { throw .privateKeyMismatch(leafNode) }
        for (node, key) in keys.pathKeys where encryptionKey(at: node) != key.publicKey {
            throw .privateKeyMismatch(node)
        }
    }
}
