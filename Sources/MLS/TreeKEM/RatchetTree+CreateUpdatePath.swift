import Foundation

/// The parts of a committer's new LeafNode the tree cannot derive: everything except the encryption
/// key, the source (always commit) and the signature (RFC 9420 §7.5 step 4).
public struct LeafNodeTemplate: Hashable, Sendable {
    public var signatureKey: SignaturePublicKey
    public var credential: Credential
    public var capabilities: Capabilities
    public var extensions: [Extension]

    public init(signatureKey: SignaturePublicKey, credential: Credential, capabilities: Capabilities, extensions: [Extension]) {
        self.signatureKey = signatureKey
        self.credential = credential
        self.capabilities = capabilities
        self.extensions = extensions
    }

    /// Keeps a leaf's identity, capabilities and extensions.
    public init(_ leaf: LeafNode) {
        self.init(
            signatureKey: leaf.signatureKey, credential: leaf.credential, capabilities: leaf.capabilities,
            extensions: leaf.extensions)
    }
}

/// What a committer gets from creating an UpdatePath (RFC 9420 §7.4–7.6, §12.4.1).
///
/// Holds secrets: not `Codable`, redacted when printed.
public struct CreatedUpdatePath: Sendable, CustomStringConvertible {
    /// The tree with the path merged: the committer's view of the new epoch's tree.
    public let tree: RatchetTree
    /// The UpdatePath to put in the Commit.
    public let updatePath: UpdatePath
    /// The provisional GroupContext the path secrets were encrypted under (tree_hash of `tree`).
    public let groupContext: GroupContext
    /// commit_secret: DeriveSecret of the last path secret with "path" (§12.4.1).
    public let commitSecret: Data
    /// The committer's private keys in the new tree.
    public let privateKeys: TreePrivateKeys
    /// The path secret of each node on the filtered direct path, for new members' GroupSecrets.
    public let pathSecrets: [NodeIndex: Data]
    /// The committer's leaf.
    public let sender: LeafIndex

    /// The path secret of the lowest common ancestor of `leaf` and the committer: what a new member's
    /// GroupSecrets carries (§12.4.1). Nil for the committer itself or a leaf outside the tree.
    public func pathSecret(commonWith leaf: LeafIndex) -> Data? {
        guard tree.size.contains(leaf), leaf != sender else { return nil }
        return pathSecrets[tree.size.commonAncestor(leaf.nodeIndex, sender.nodeIndex)]
    }

    public var description: String { "CreatedUpdatePath(\(sender), \(updatePath.nodes.count) nodes, secrets redacted)" }
}

extension RatchetTree {
    /// The label of path-secret encryption (§7.6).
    public static let updatePathNodeLabel = "UpdatePathNode"

    /// Creates an UpdatePath for the member at `sender` (§7.4–7.6, §12.4.1) on this tree, which must
    /// already reflect the commit's proposals.
    ///
    /// Blanks the sender's direct path, derives fresh keys for the leaf and its filtered direct path,
    /// sets the parent hashes, signs the new commit-sourced leaf with `signer`, and encrypts each path
    /// secret to its copath child's resolution without `newMembers` (the commit's Adds) under
    /// `groupContext` with tree_hash replaced by the new tree's (the provisional context). `self` is
    /// not changed; the new tree is in the result.
    public func createUpdatePath(
        from sender: LeafIndex, leaf template: LeafNodeTemplate, signer: SignaturePrivateKey,
        groupContext: GroupContext, excluding newMembers: Set<LeafIndex> = []
    ) throws(TreeError) -> CreatedUpdatePath {
        try createUpdatePath(
            from: sender, leaf: template, signer: signer, groupContext: groupContext, excluding: newMembers,
            leafSecret: provider.randomBytes(provider.hashLength), firstPathSecret: provider.randomBytes(provider.hashLength))
    }

    /// `createUpdatePath` with chosen leaf and first path secrets, for reproducible tests.
    func createUpdatePath(
        from sender: LeafIndex, leaf template: LeafNodeTemplate, signer: SignaturePrivateKey,
        groupContext: GroupContext, excluding newMembers: Set<LeafIndex>, leafSecret: Data, firstPathSecret: Data
    ) throws(TreeError) -> CreatedUpdatePath {
        try checkInRange(sender)
        guard signer.publicKey == template.signatureKey else { throw .signerMismatch }

        var tree = self
        tree.blankDirectPath(of: sender)
        let path = tree.filteredDirectPath(of: sender)

        // secrets[0..<n] belong to the path nodes and secrets[n] is the commit_secret; a lone member
        // (empty path) uses the fresh secret itself, which nobody else needs.
        var secrets = [firstPathSecret]
        for _ in path.indices { secrets.append(provider.nextPathSecret(secrets[secrets.count - 1])) }
        var nodeKeys: [HPKEPrivateKey] = []
        for (step, secret) in zip(path, secrets) {
            let key = try provider.nodeKey(fromPathSecret: secret)
            nodeKeys.append(key)
            tree.setNode(
                .parent(ParentNode(encryptionKey: key.publicKey, parentHash: Data(), unmergedLeaves: [])), at: step.node)
        }
        let leafParentHash = tree.setParentHashes(along: path)

        let leafKey = try provider.nodeKey(fromPathSecret: leafSecret)
        var leaf = LeafNode(
            encryptionKey: leafKey.publicKey, signatureKey: template.signatureKey, credential: template.credential,
            capabilities: template.capabilities, source: .commit(parentHash: leafParentHash),
            extensions: template.extensions, signature: Data())
        try provider.signLeafNode(&leaf, with: signer, groupID: groupContext.groupID, leafIndex: sender)
        tree.setNode(.leaf(leaf), at: sender.nodeIndex)
        tree.cacheTreeHashes()

        var context = groupContext
        context.treeHash = tree.treeHash()
        let contextBytes = context.tlsSerialized

        var pathNodes: [UpdatePathNode] = []
        var pathSecrets: [NodeIndex: Data] = [:]
        var pathKeys: [NodeIndex: HPKEPrivateKey] = [:]
        for (i, step) in path.enumerated() {
            var ciphertexts: [HPKECiphertext] = []
            for recipient in tree.resolution(of: step.copathChild, excluding: newMembers) {
                guard let publicKey = tree.encryptionKey(at: recipient) else { continue }
                do {
                    let sealed = try provider.encryptWithLabel(
                        publicKey, label: Self.updatePathNodeLabel, context: contextBytes, plaintext: secrets[i])
                    ciphertexts.append(HPKECiphertext(kemOutput: sealed.kemOutput, ciphertext: sealed.ciphertext))
                } catch {
                    throw .crypto(error)
                }
            }
            pathNodes.append(UpdatePathNode(encryptionKey: nodeKeys[i].publicKey, encryptedPathSecret: ciphertexts))
            pathSecrets[step.node] = secrets[i]
            pathKeys[step.node] = nodeKeys[i]
        }

        return CreatedUpdatePath(
            tree: tree, updatePath: UpdatePath(leafNode: leaf, nodes: pathNodes), groupContext: context,
            commitSecret: secrets[path.count],
            privateKeys: TreePrivateKeys(leafIndex: sender, leafKey: leafKey, pathKeys: pathKeys),
            pathSecrets: pathSecrets, sender: sender)
    }
}
