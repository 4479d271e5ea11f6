import Foundation

/// Where the group state machine asks whether KeyPackages, LeafNodes and proposal lists are valid
/// (RFC 9420 §7.3, §10.1, §11.1, §12.2). Every validation call of the group goes through here, so
/// the rules can be replaced in one place.
enum GroupValidation {
    /// Extension types every client supports and need not list in its capabilities (§7.2).
    static let defaultExtensionTypes: Set<ExtensionType> = [
        .applicationID, .ratchetTree, .requiredCapabilities, .externalPub, .externalSenders,
    ]

    /// When a LeafNode is checked, which source it must have and where it will sit.
    enum LeafContext {
        /// In a KeyPackage (Add); `checkLifetime` when this member sends it (§7.3).
        case keyPackage(checkLifetime: Bool)
        /// In an Update proposal from `leaf`.
        case update(leaf: LeafIndex)
        /// In a commit's UpdatePath from `leaf`.
        case commit(leaf: LeafIndex)
        /// Already in a received tree (join): any source.
        case tree(leaf: LeafIndex)
    }

    // MARK: KeyPackage (§10.1)

    /// A KeyPackage in an Add: suite and version of the group, valid key-package leaf, signature over
    /// KeyPackageTBS, init key distinct from the leaf's encryption key.
    static func validateKeyPackage(
        _ keyPackage: KeyPackage, groupContext: GroupContext, tree: RatchetTree, provider: CipherSuiteProvider,
        checkLifetime: Bool, now: UInt64 = currentTime()
    ) throws(GroupError) {
        guard keyPackage.cipherSuite == groupContext.cipherSuite, keyPackage.version == groupContext.version else {
            throw .invalidKeyPackage("cipher suite or version differs from the group's")
        }
        guard provider.verifyWithLabel(
            keyPackage.leafNode.signatureKey, label: "KeyPackageTBS", content: keyPackage.tbs.tlsSerialized,
            signature: keyPackage.signature)
        else { throw .invalidKeyPackage("signature does not verify") }
        guard keyPackage.initKey != keyPackage.leafNode.encryptionKey else {
            throw .invalidKeyPackage("init_key equals the leaf encryption_key")
        }
        do {
            try validateLeafNode(
                keyPackage.leafNode, context: .keyPackage(checkLifetime: checkLifetime), groupContext: groupContext,
                tree: tree, provider: provider, now: now)
        } catch {
            if case .invalidLeafNode(let why) = error { throw .invalidKeyPackage(why) }
            throw error
        }
    }

    // MARK: LeafNode (§7.3)

    /// Signature, source, required capabilities, credential-type compatibility, extension support,
    /// optional lifetime, and uniqueness of both keys among the other members of `tree`.
    static func validateLeafNode(
        _ leaf: LeafNode, context: LeafContext, groupContext: GroupContext, tree: RatchetTree,
        provider: CipherSuiteProvider, now: UInt64 = currentTime()
    ) throws(GroupError) {
        let position: LeafIndex?
        switch context {
        case .keyPackage(let checkLifetime):
            guard case .keyPackage(let lifetime) = leaf.source else { throw .invalidLeafNode("source must be key_package") }
            if checkLifetime, !lifetime.contains(now) { throw .invalidLeafNode("lifetime does not cover the current time") }
            position = nil
        case .update(let index):
            guard leaf.source == .update else { throw .invalidLeafNode("source must be update") }
            if tree.leafNode(at: index)?.encryptionKey == leaf.encryptionKey {
                throw .invalidLeafNode("Update does not change the encryption key")
            }
            position = index
        case .commit(let index):
            guard case .commit = leaf.source else { throw .invalidLeafNode("source must be commit") }
            position = index
        case .tree(let index):
            position = index
        }
        let signatureGroup = leaf.source.signsGroupContext ? groupContext.groupID : GroupID(Data())
        guard provider.verifyLeafNodeSignature(leaf, groupID: signatureGroup, leafIndex: position ?? LeafIndex(0)) else {
            throw .invalidLeafNode("signature does not verify")
        }
        try checkRequiredCapabilities(leaf.capabilities, extensions: groupContext.extensions)
        for ext in leaf.extensions where !defaultExtensionTypes.contains(ext.type) {
            guard leaf.capabilities.extensions.contains(ext.type) else {
                throw .invalidLeafNode("extension \(ext.type) not listed in its capabilities")
            }
        }
        for (index, other) in tree.leaves where index != position {
            guard other.capabilities.credentials.contains(leaf.credential.type) else {
                throw .invalidLeafNode("credential type \(leaf.credential.type) not supported by \(index)")
            }
            guard leaf.capabilities.credentials.contains(other.credential.type) else {
                throw .invalidLeafNode("does not support credential type \(other.credential.type) of \(index)")
            }
            if other.signatureKey == leaf.signatureKey {
                throw .invalidLeafNode("signature key already used by \(index)")
            }
        }
        if case .tree = context { return }
        if tree.leafIndex(encryptionKey: leaf.encryptionKey) != nil || isParentKey(leaf.encryptionKey, in: tree) {
            throw .invalidLeafNode("encryption key already in the tree")
        }
    }

    private static func isParentKey(_ key: HPKEPublicKey, in tree: RatchetTree) -> Bool {
        stride(from: 1, to: tree.nodeCount, by: 2).contains { tree.parentNode(at: NodeIndex(UInt32($0)))?.encryptionKey == key }
    }

    /// A leaf's capabilities must cover the group's required_capabilities (§11.1).
    static func checkRequiredCapabilities(_ capabilities: Capabilities, extensions: [Extension]) throws(GroupError) {
        let required: RequiredCapabilities?
        do {
            required = try extensions.payload(RequiredCapabilities.self)
        } catch {
            throw .invalidProposal("malformed required_capabilities extension")
        }
        guard let required else { return }
        for type in required.extensionTypes where !defaultExtensionTypes.contains(type) {
            guard capabilities.extensions.contains(type) else { throw .invalidLeafNode("lacks required extension \(type)") }
        }
        for type in required.proposalTypes where !type.isDefault {
            guard capabilities.proposals.contains(type) else { throw .invalidLeafNode("lacks required proposal \(type)") }
        }
        for type in required.credentialTypes {
            guard capabilities.credentials.contains(type) else { throw .invalidLeafNode("lacks required credential \(type)") }
        }
    }

    // MARK: GroupContext extensions (§11.1, §12.1.7, §13.4)

    /// Every member of `tree` supports the extension types and required capabilities of `extensions`.
    static func validateGroupContextExtensions(_ extensions: [Extension], tree: RatchetTree) throws(GroupError) {
        var seen = Set<ExtensionType>()
        for ext in extensions where !seen.insert(ext.type).inserted {
            throw .invalidProposal("extension \(ext.type) appears twice")
        }
        for (index, leaf) in tree.leaves {
            for ext in extensions where !defaultExtensionTypes.contains(ext.type) {
                guard leaf.capabilities.extensions.contains(ext.type) else {
                    throw .invalidProposal("\(index) does not support group extension \(ext.type)")
                }
            }
            do {
                try checkRequiredCapabilities(leaf.capabilities, extensions: extensions)
            } catch {
                throw .invalidProposal("\(index): \(error)")
            }
        }
    }

    // MARK: Proposal list (§12.2)

    /// The rules of §12.2 for a regular commit by `committer`, on the tree before the commit. Each
    /// proposal was checked on its own when received (or built); this checks the list as a whole.
    static func validateProposalList(
        _ proposals: [ResolvedProposal], committer: LeafIndex, tree: RatchetTree
    ) throws(GroupError) {
        var touched = Set<LeafIndex>()
        var removed = Set<LeafIndex>()
        var addedKeys = Set<SignaturePublicKey>()
        var pskIDs = Set<PreSharedKeyID>()
        var contextExtensions = 0
        for item in proposals {
            switch item.proposal {
            case .update:
                guard case .member(let leaf) = item.sender else { throw .invalidCommit("Update from a non-member") }
                guard leaf != committer else { throw .invalidCommit("committer's own Update") }
                guard touched.insert(leaf).inserted else { throw .invalidCommit("several Update/Remove for \(leaf)") }
            case .remove(let remove):
                guard remove.removed != committer else { throw .invalidCommit("Remove of the committer") }
                guard touched.insert(remove.removed).inserted else {
                    throw .invalidCommit("several Update/Remove for \(remove.removed)")
                }
                removed.insert(remove.removed)
            case .selfRemove:
                guard case .member(let leaf) = item.sender else { throw .invalidCommit("SelfRemove from a non-member") }
                guard leaf != committer else { throw .invalidCommit("committer's own SelfRemove") }
                guard touched.insert(leaf).inserted else { throw .invalidCommit("several Update/Remove for \(leaf)") }
                removed.insert(leaf)
            case .add(let add):
                guard addedKeys.insert(add.keyPackage.leafNode.signatureKey).inserted else {
                    throw .invalidCommit("two Adds for the same client")
                }
            case .preSharedKey(let psk):
                guard pskIDs.insert(psk.psk).inserted else { throw .invalidCommit("PSK proposed twice") }
            case .groupContextExtensions:
                contextExtensions += 1
                guard contextExtensions == 1 else { throw .invalidCommit("several GroupContextExtensions") }
            case .reInit:
                throw .invalidCommit("ReInit is not supported")
            case .externalInit:
                throw .invalidCommit("ExternalInit in a regular commit")
            case .unknown(let type, _):
                throw .invalidCommit("unsupported proposal type \(type)")
            }
        }
        for (index, leaf) in tree.leaves where addedKeys.contains(leaf.signatureKey) && !removed.contains(index) {
            throw .invalidCommit("Add of a client already in the group (\(index))")
        }
        let nonDefault = Set(proposals.map(\.proposal.type).filter { !$0.isDefault })
        for (index, leaf) in tree.leaves where !removed.contains(index) {
            for type in nonDefault where !leaf.capabilities.proposals.contains(type) {
                throw .invalidCommit("\(index) does not support proposal type \(type)")
            }
        }
    }
}

/// Unix time in seconds, for lifetime checks.
func currentTime() -> UInt64 { UInt64(max(0, Date().timeIntervalSince1970)) }
