import Foundation

/// What a receiving member gets from processing another member's UpdatePath (RFC 9420 §7.5, §12.4.2).
///
/// Holds secrets: not `Codable`, redacted when printed.
public struct AppliedUpdatePath: Sendable, CustomStringConvertible {
    /// The tree with the path merged.
    public let tree: RatchetTree
    /// The provisional GroupContext the path secret was decrypted under (tree_hash of `tree`).
    public let groupContext: GroupContext
    /// commit_secret: DeriveSecret of the last path secret with "path" (§12.4.2).
    public let commitSecret: Data
    /// The receiver's private keys in the new tree.
    public let privateKeys: TreePrivateKeys
    /// The filtered-direct-path node whose path secret the receiver decrypted: the lowest common
    /// ancestor of its leaf and the sender's.
    public let decryptedNode: NodeIndex
    /// The path secret decrypted at `decryptedNode`.
    public let pathSecret: Data

    public var description: String { "AppliedUpdatePath(at \(decryptedNode), secrets redacted)" }
}

extension RatchetTree {
    /// Merges another member's UpdatePath into a copy of this tree, public part only (§7.5, §12.4.2):
    /// checks the new leaf (commit source, signature over `groupID` and `sender`, fresh encryption key),
    /// that no path key is already in the tree, and that the path length fits; blanks the sender's
    /// direct path, sets the new keys with empty unmerged lists, recomputes the parent hashes and
    /// checks the leaf's parent_hash against them. `self` is not changed.
    ///
    /// `leafVerified`: the caller has just verified this leaf's signature for `sender` and `groupID`
    /// (the group layer's §7.3 check of the commit's leaf), so it is not verified a second time.
    public func mergingUpdatePath(
        _ path: UpdatePath, from sender: LeafIndex, groupID: GroupID, leafVerified: Bool = false
    ) throws(TreeError) -> RatchetTree {
        try merge(path, from: sender, groupID: groupID, leafVerified: leafVerified).tree
    }

    func merge(
        _ path: UpdatePath, from sender: LeafIndex, groupID: GroupID, leafVerified: Bool
    ) throws(TreeError) -> (tree: RatchetTree, path: [FilteredPathStep]) {
        try checkInRange(sender)
        let leaf = path.leafNode
        guard case .commit(let claimedParentHash) = leaf.source else { throw .invalidLeafSource(sender) }
        guard leafVerified || provider.verifyLeafNodeSignature(leaf, groupID: groupID, leafIndex: sender) else {
            throw .invalidLeafSignature(sender)
        }
        if let current = leafNode(at: sender), current.encryptionKey == leaf.encryptionKey {
            throw .encryptionKeyNotRefreshed(sender)
        }
        var newKeys = Set([leaf.encryptionKey])
        for node in path.nodes where !newKeys.insert(node.encryptionKey).inserted { throw .updatePathKeyReused }
        for i in nodes.indices {
            if let key = encryptionKey(at: NodeIndex(UInt32(i))), newKeys.contains(key) { throw .updatePathKeyReused }
        }

        let steps = filteredDirectPath(of: sender)
        guard steps.count == path.nodes.count else {
            throw .pathLengthMismatch(expected: steps.count, actual: path.nodes.count)
        }
        var tree = self
        tree.blankDirectPath(of: sender)
        for (step, node) in zip(steps, path.nodes) {
            tree.setNode(
                .parent(ParentNode(encryptionKey: node.encryptionKey, parentHash: Data(), unmergedLeaves: [])),
                at: step.node)
        }
        guard tree.setParentHashes(along: steps) == claimedParentHash else { throw .leafParentHashMismatch(sender) }
        tree.setNode(.leaf(leaf), at: sender.nodeIndex)
        tree.cacheTreeHashes()
        return (tree, steps)
    }

    /// Processes another member's UpdatePath as the member holding `privateKeys` (§7.5, §12.4.2).
    ///
    /// Merges the path (see `mergingUpdatePath`), builds the provisional context from `groupContext`
    /// with tree_hash replaced by the merged tree's, decrypts the path secret of the lowest common
    /// ancestor from the one resolution node the receiver holds a key for (resolutions exclude
    /// `newMembers`, the commit's Adds), derives the secrets above it, checks every derived public key
    /// against the path, and returns the new tree, keys and commit_secret. `self` is not changed.
    /// `leafVerified` as for `mergingUpdatePath`.
    public func applyUpdatePath(
        _ path: UpdatePath, from sender: LeafIndex, groupContext: GroupContext, privateKeys: TreePrivateKeys,
        excluding newMembers: Set<LeafIndex> = [], leafVerified: Bool = false
    ) throws(TreeError) -> AppliedUpdatePath {
        let receiver = privateKeys.leafIndex
        guard receiver != sender else { throw .senderIsReceiver }
        let (tree, steps) = try merge(path, from: sender, groupID: groupContext.groupID, leafVerified: leafVerified)
        var context = groupContext
        context.treeHash = tree.treeHash()

        guard !newMembers.contains(receiver),
              let position = steps.firstIndex(where: { isInSubtree(receiver.nodeIndex, of: $0.copathChild) })
        else { throw .noDecryptableNode }
        let step = steps[position]
        let recipients = tree.resolution(of: step.copathChild, excluding: newMembers)
        let ciphertexts = path.nodes[position].encryptedPathSecret
        guard ciphertexts.count == recipients.count else {
            throw .ciphertextCountMismatch(node: step.node, expected: recipients.count, actual: ciphertexts.count)
        }
        guard let (slot, key) = recipients.enumerated().lazy.compactMap({ slot, node -> (Int, HPKEPrivateKey)? in
            guard let key = privateKeys.privateKey(for: node), key.publicKey == tree.encryptionKey(at: node) else { return nil }
            return (slot, key)
        }).first else { throw .noDecryptableNode }

        let pathSecret: Data
        do {
            pathSecret = try provider.decryptWithLabel(
                key, label: Self.updatePathNodeLabel, context: context.tlsSerialized,
                kemOutput: ciphertexts[slot].kemOutput, ciphertext: ciphertexts[slot].ciphertext)
        } catch {
            throw .pathSecretDecryptionFailed(step.node)
        }

        var keys = privateKeys
        keys.prune(against: tree)
        var secret = pathSecret
        for j in position..<steps.count {
            let derived = try provider.nodeKey(fromPathSecret: secret)
            guard derived.publicKey == path.nodes[j].encryptionKey else { throw .publicKeyMismatch(steps[j].node) }
            keys.pathKeys[steps[j].node] = derived
            secret = provider.nextPathSecret(secret)
        }
        return AppliedUpdatePath(
            tree: tree, groupContext: context, commitSecret: secret, privateKeys: keys, decryptedNode: step.node,
            pathSecret: pathSecret)
    }
}
