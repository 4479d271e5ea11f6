import Foundation

/// Checks LeafNodes where they enter or sit in a group (RFC 9420 §7.3): credential, source,
/// signature, capabilities against the group and its members, lifetime, extensions, and key
/// uniqueness. `now` is injectable so lifetime checks are testable.
public struct LeafNodeValidator: Sendable {
    public var provider: CipherSuiteProvider
    public var configuration: ValidationConfiguration
    /// The current time in Unix seconds for lifetime checks.
    public var now: UInt64

    public init(
        provider: CipherSuiteProvider = .mls128X25519, configuration: ValidationConfiguration = .init(),
        now: UInt64 = UnixTime.now
    ) {
        self.provider = provider
        self.configuration = configuration
        self.now = now
    }

    /// Validates `leaf` where `usage` says it appears, against the group's context and tree (§7.3).
    public func validate(
        _ leaf: LeafNode, as usage: LeafNodeUsage, in group: GroupValidationContext
    ) throws(LeafNodeValidationError) {
        try check(leaf, as: usage, in: group)
    }

    /// `validate` for a KeyPackage leaf about to be added, with the adder's indexes: `keysChecked`
    /// when the caller checked its keys against the tree, `compatibility` indexing the tree's members.
    func validateAdded(
        _ leaf: LeafNode, in group: GroupValidationContext, keysChecked: Bool, compatibility: CredentialCompatibility
    ) throws(LeafNodeValidationError) {
        try check(leaf, as: .keyPackage, in: group, keysChecked: keysChecked, compatibility: compatibility)
    }

    /// Validates the leaf of a KeyPackage seen outside any group (e.g. a downloaded Marmot KeyPackage):
    /// the group-dependent checks are replaced by version mls10 and the provider's suite.
    public func validateKeyPackageLeaf(_ leaf: LeafNode) throws(LeafNodeValidationError) {
        try check(leaf, as: .keyPackage, in: nil)
    }

    /// Validates every leaf of a ratchet tree a client is about to join (§7.3, §12.4.3.1), each against
    /// the others. Parent hashes, unmerged leaves and tree-wide key uniqueness are the tree's own
    /// `validate(groupID:)`.
    ///
    /// `treeChecked`: the caller ran `tree.validate(groupID:)` with this context's group id, which
    /// verified every leaf signature with the same binding and that no key appears twice; those
    /// per-leaf checks are then not repeated. Either way the work grows linearly with the group: the
    /// pairwise credential rule is answered from per-type indexes (`CredentialCompatibility`), with
    /// the same error, for the same leaf and member, as the leaf-by-leaf rule gives.
    public func validateTreeLeaves(
        of tree: RatchetTree, groupContext: GroupContext, treeChecked: Bool = false
    ) throws(TreeLeafValidationError) {
        let group = GroupValidationContext(groupContext: groupContext, tree: tree)
        let compatibility = CredentialCompatibility(tree)
        for (index, leaf) in tree.leaves {
            do {
                try check(
                    leaf, as: .treeMember(index), in: group, verifySignature: !treeChecked, keysChecked: treeChecked,
                    compatibility: compatibility)
            } catch {
                throw TreeLeafValidationError(leaf: index, reason: error)
            }
        }
    }

    /// Validates the leaves of a tree that a commit changed (§7.3, §12.4.2), the others having been
    /// validated when they entered the group: each leaf in `changed` as `validateTreeLeaves` would,
    /// against every other member, and, when the GroupContext extensions changed, every other leaf's
    /// capabilities against the new ones (§12.1.7, §13.4). A changed leaf for which `verified` is
    /// true had this exact version's signature verified as it entered (KeyPackage, Update or
    /// UpdatePath leaf checks of the same commit), so its signature is verified once, not twice.
    ///
    /// `keysChecked`: the caller verified tree-wide key uniqueness (`verifyKeyUniqueness`), so the
    /// per-leaf key checks are not repeated. Many changed leaves (a group created with its members,
    /// a large add) are checked against the members through `CredentialCompatibility`, so the work
    /// grows with the group, not with its square.
    public func validateChangedTreeLeaves(
        _ changed: [LeafIndex], of tree: RatchetTree, groupContext: GroupContext, extensionsChanged: Bool,
        keysChecked: Bool = false, verified: (LeafIndex, LeafNode) -> Bool = { _, _ in false }
    ) throws(TreeLeafValidationError) {
        let group = GroupValidationContext(groupContext: groupContext, tree: tree)
        let compatibility = changed.count > 2 ? CredentialCompatibility(tree) : nil
        for index in changed {
            guard let leaf = tree.leafNode(at: index) else { continue }
            do {
                try check(
                    leaf, as: .treeMember(index), in: group, verifySignature: !verified(index, leaf),
                    keysChecked: keysChecked, compatibility: compatibility)
            } catch {
                throw TreeLeafValidationError(leaf: index, reason: error)
            }
        }
        guard extensionsChanged else { return }
        let changedSet = Set(changed)
        for (index, leaf) in tree.leaves where !changedSet.contains(index) {
            do {
                try checkCapabilities(leaf, group: group)
            } catch {
                throw TreeLeafValidationError(leaf: index, reason: error)
            }
        }
    }

    // MARK: Steps

    private func check(
        _ leaf: LeafNode, as usage: LeafNodeUsage, in group: GroupValidationContext?, verifySignature: Bool = true,
        keysChecked: Bool = false, compatibility: CredentialCompatibility? = nil
    ) throws(LeafNodeValidationError) {
        if let policy = configuration.credentialPolicy, !policy(leaf.credential) {
            throw .credentialRejected(leaf.credential.type)
        }
        guard leaf.encryptionKey.bytes.count == provider.hpkePublicKeyLength else {
            throw .invalidEncryptionKeyLength(leaf.encryptionKey.bytes.count)
        }
        try checkSource(leaf.source, usage: usage)
        if let group { try checkCredentialUnchanged(leaf, usage: usage, group: group) }
        if verifySignature { try checkSignature(leaf, usage: usage, groupID: group?.groupContext.groupID) }
        try checkCapabilities(leaf, group: group)
        let indexed: (applies: Bool, own: LeafIndex?) =
            switch usage {
            case .treeMember(let index): (true, index)
            case .keyPackage: (true, nil)
            case .update, .commit: (false, nil)
            }
        if let compatibility, indexed.applies, group?.departingLeaves.isEmpty ?? false {
            try compatibility.check(leaf, at: indexed.own)
        } else if let group {
            try checkCredentialCompatibility(leaf, usage: usage, group: group)
        }
        try checkLifetime(leaf.source, usage: usage)
        try checkExtensions(leaf)
        if let group, !keysChecked { try checkKeys(leaf, usage: usage, group: group) }
    }

    private func checkSource(_ source: LeafNodeSource, usage: LeafNodeUsage) throws(LeafNodeValidationError) {
        let expected: LeafNodeSourceKind
        switch usage {
        case .keyPackage: expected = .keyPackage
        case .update: expected = .update
        case .commit: expected = .commit
        case .treeMember: return
        }
        guard source.kind == expected else { throw .unexpectedSource(expected: expected, actual: source.kind) }
    }

    /// An Update or UpdatePath leaf keeps the credential of the leaf it replaces (MIP-00, §5.3.1):
    /// otherwise a member could take another member's identity and have its messages shown as theirs.
    private func checkCredentialUnchanged(
        _ leaf: LeafNode, usage: LeafNodeUsage, group: GroupValidationContext
    ) throws(LeafNodeValidationError) {
        guard configuration.credentialsImmutable else { return }
        switch usage {
        case .update(let index), .commit(let index):
            guard group.tree.size.contains(index), let old = group.tree.leafNode(at: index) else { return }
            guard old.credential == leaf.credential else { throw .credentialChanged(member: index) }
        case .keyPackage, .treeMember:
            return
        }
    }

    private func checkSignature(_ leaf: LeafNode, usage: LeafNodeUsage, groupID: GroupID?) throws(LeafNodeValidationError) {
        let index: LeafIndex
        switch usage {
        case .keyPackage: index = LeafIndex(0)
        case .update(let l), .commit(let l), .treeMember(let l): index = l
        }
        // Key-package leaves sign no group binding, so the placeholder id and index are unused.
        let id = groupID ?? GroupID(Data())
        guard provider.verifyLeafNodeSignature(leaf, groupID: id, leafIndex: index) else { throw .badSignature }
    }

    private func checkCapabilities(_ leaf: LeafNode, group: GroupValidationContext?) throws(LeafNodeValidationError) {
        let capabilities = leaf.capabilities
        guard capabilities.supports(.credentialType(leaf.credential.type)) else {
            throw .credentialTypeNotInCapabilities(leaf.credential.type)
        }
        let version = group?.groupContext.version ?? .mls10
        let suite = group?.groupContext.cipherSuite ?? provider.suite
        guard capabilities.supports(.version(version)) else { throw .missingRequiredCapability(.version(version)) }
        guard capabilities.supports(.cipherSuite(suite)) else { throw .missingRequiredCapability(.cipherSuite(suite)) }
        guard let extensions = group?.groupContext.extensions else { return }
        // The group's own context was accepted earlier, where a malformed required_capabilities is
        // rejected (GroupContextExtensionsValidation); here an undecodable one imposes nothing.
        if let required = try? RequiredCapabilities.from(extensions), let missing = capabilities.firstMissing(of: required) {
            throw .missingRequiredCapability(missing)
        }
        // §13.4: a new member's capabilities must cover every extension in the GroupContext.
        for ext in extensions where !ext.type.isGrease && !capabilities.supports(.extensionType(ext.type)) {
            throw .missingRequiredCapability(.extensionType(ext.type))
        }
    }

    private func checkCredentialCompatibility(
        _ leaf: LeafNode, usage: LeafNodeUsage, group: GroupValidationContext
    ) throws(LeafNodeValidationError) {
        let excluded = excludedLeaves(usage: usage, group: group)
        let type = leaf.credential.type
        for (index, member) in group.tree.leaves where !excluded.contains(index) {
            guard member.capabilities.supports(.credentialType(type)) else {
                throw .credentialUnsupportedByMember(type, member: index)
            }
            guard leaf.capabilities.supports(.credentialType(member.credential.type)) else {
                throw .memberCredentialUnsupported(member.credential.type, member: index)
            }
        }
    }

    private func checkLifetime(_ source: LeafNodeSource, usage: LeafNodeUsage) throws(LeafNodeValidationError) {
        guard case .keyPackage(let lifetime) = source else { return }
        if case .treeMember = usage, !configuration.checkLifetimeOfTreeLeaves { return }
        if case .keyPackage = usage, !configuration.checkKeyPackageLifetime {
            // Only the span bound, which does not depend on when the leaf is processed.
            if let maximum = configuration.maxLifetime, let span = lifetime.duration, span > maximum {
                throw .lifetimeTooLong(span: span, maximum: maximum)
            }
            return
        }
        if now < lifetime.notBefore { throw .notYetValid(notBefore: lifetime.notBefore, now: now) }
        if now > lifetime.notAfter { throw .expired(notAfter: lifetime.notAfter, now: now) }
        if let maximum = configuration.maxLifetime, let span = lifetime.duration, span > maximum {
            throw .lifetimeTooLong(span: span, maximum: maximum)
        }
    }

    private func checkExtensions(_ leaf: LeafNode) throws(LeafNodeValidationError) {
        try Self.checkExtensionList(leaf.extensions, listedIn: leaf.capabilities)
    }

    /// No type twice (§13.4), and every non-default type listed in `capabilities` (§7.2, §10).
    /// GREASE types are skipped: receivers must ignore them (§13.5).
    static func checkExtensionList(_ extensions: [Extension], listedIn capabilities: Capabilities) throws(LeafNodeValidationError) {
        var seen = Set<ExtensionType>()
        for ext in extensions {
            guard seen.insert(ext.type).inserted else { throw .duplicateExtension(ext.type) }
            guard ext.type.isGrease || capabilities.supports(.extensionType(ext.type)) else {
                throw .unsupportedExtension(ext.type)
            }
        }
    }

    private func checkKeys(_ leaf: LeafNode, usage: LeafNodeUsage, group: GroupValidationContext) throws(LeafNodeValidationError) {
        let tree = group.tree
        var replacedPath = Set<NodeIndex>()
        switch usage {
        case .update(let index), .commit(let index):
            if let old = tree.leafNode(at: index), old.encryptionKey == leaf.encryptionKey {
                throw .encryptionKeyNotRefreshed
            }
            // The replaced leaf's direct path is blanked (Update) or overwritten (Commit).
            if tree.size.contains(index) { replacedPath = Set(tree.size.directPath(of: index.nodeIndex)) }
        case .keyPackage, .treeMember:
            break
        }
        let excluded = excludedLeaves(usage: usage, group: group)
        for (index, member) in tree.leaves where !excluded.contains(index) && member.signatureKey == leaf.signatureKey {
            throw .duplicateSignatureKey(index)
        }
        for i in 0..<tree.nodeCount {
            let node = NodeIndex(UInt32(i))
            if let leafIndex = node.leafIndex, excluded.contains(leafIndex) { continue }
            if replacedPath.contains(node) { continue }
            if tree.encryptionKey(at: node) == leaf.encryptionKey { throw .duplicateEncryptionKey(node) }
        }
    }

    /// The leaf being replaced and the leaves leaving in the same Commit.
    private func excludedLeaves(usage: LeafNodeUsage, group: GroupValidationContext) -> Set<LeafIndex> {
        var excluded = group.departingLeaves
        switch usage {
        case .keyPackage: break
        case .update(let l), .commit(let l), .treeMember(let l): excluded.insert(l)
        }
        return excluded
    }
}

/// A leaf of a received ratchet tree that failed validation, with where and why (§7.3).
public struct TreeLeafValidationError: Error, Hashable, Sendable, CustomStringConvertible {
    public let leaf: LeafIndex
    public let reason: LeafNodeValidationError
    public init(leaf: LeafIndex, reason: LeafNodeValidationError) {
        self.leaf = leaf
        self.reason = reason
    }
    public var description: String { "\(leaf): \(reason)" }
}
