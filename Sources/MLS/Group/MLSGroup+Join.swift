import Foundation

/// Joining a group from a Welcome (RFC 9420 §12.4.3.1, §12.4.3.3).
extension MLSGroup {
    /// Joins the group a Welcome describes, as the holder of `keyPackage`.
    ///
    /// Opens the GroupSecrets and GroupInfo (PSKs from `externalPSKs` by psk_id), takes the ratchet
    /// tree from `ratchetTree` or else the GroupInfo's ratchet_tree extension, verifies the GroupInfo
    /// signature under the signer's leaf, the tree hash, the tree's integrity (parent hashes, leaf
    /// signatures, unmerged leaves, key uniqueness) and every leaf (§7.3), finds this member's leaf,
    /// and derives its path keys from the path secret.
    public static func join(
        welcome: Welcome, keyPackage: KeyPackage, privateMaterial: KeyPackagePrivateMaterial,
        ratchetTree: RatchetTreeNodes? = nil, externalPSKs: [Data: Data] = [:],
        configuration: GroupConfiguration = .default
    ) throws(GroupError) -> MLSGroup {
        try joinReportingSigner(
            welcome: welcome, keyPackage: keyPackage, privateMaterial: privateMaterial, ratchetTree: ratchetTree,
            externalPSKs: externalPSKs, configuration: configuration
        ).group
    }

    /// `join`, also returning the leaf that signed the Welcome's GroupInfo (the member who added us),
    /// which applications may hold to a policy (Marmot v2: it must be an admin).
    ///
    /// `screen` sees the group as the Welcome states it (its GroupContext, the tree as given and the
    /// GroupInfo's signer) once the GroupInfo's signature is verified (§12.4.3.1) and before the tree
    /// is hashed and validated (§7.9, every leaf's signature: the part whose cost grows with the
    /// group), so an application can refuse an invitation from someone it would refuse anyway
    /// without paying for a large hostile tree; a reason it returns is thrown as `invalidWelcome`.
    public static func joinReportingSigner(
        welcome: Welcome, keyPackage: KeyPackage, privateMaterial: KeyPackagePrivateMaterial,
        ratchetTree: RatchetTreeNodes? = nil, externalPSKs: [Data: Data] = [:],
        configuration: GroupConfiguration = .default,
        screen: ((_ context: GroupContext, _ tree: RatchetTree, _ signer: LeafIndex) -> String?)? = nil
    ) throws(GroupError) -> (group: MLSGroup, groupInfoSigner: LeafIndex) {
        let provider = try providerFor(keyPackage.cipherSuite)
        guard privateMaterial.matches(keyPackage) else { throw .privateKeyMismatch("not the KeyPackage's private keys") }

        var tree: RatchetTree?
        var treeProblem: String?
        let joined: JoinedEpoch
        do {
            joined = try welcome.join(
                keyPackage: keyPackage, initPrivateKey: privateMaterial.initPrivateKey,
                psk: { id in
                    if case .external(let pskID) = id.kind { externalPSKs[pskID] } else { nil }
                },
                signatureKey: { info in
                    do {
                        guard let nodes = try ratchetTree ?? info.extensions.payload(RatchetTreeNodes.self) else {
                            treeProblem = "no ratchet tree given or in the GroupInfo"
                            return nil
                        }
                        let built = try RatchetTree(nodes, provider: provider)
                        tree = built
                        return built.leafNode(at: info.signer)?.signatureKey
                    } catch {
                        treeProblem = "ratchet tree: \(error)"
                        return nil
                    }
                })
        } catch {
            if let treeProblem { throw .invalidWelcome(treeProblem) }
            if case .missingPSK(let id) = error { throw .missingPSK(id) }
            throw .invalidWelcome(error.description)
        }
        guard var tree else { throw .invalidWelcome(treeProblem ?? "no ratchet tree") }
        if let screen, let why = screen(joined.groupContext, tree, joined.groupInfo.signer) {
            throw .invalidWelcome("refused before validation: \(why)")
        }
        tree.cacheTreeHashes()

        let context = joined.groupContext
        // §12.4.3.1 / §13.4: no extension type twice in the GroupInfo (a second ratchet_tree could
        // otherwise be read differently by different implementations).
        var infoTypes = Set<ExtensionType>()
        for ext in joined.groupInfo.extensions where !infoTypes.insert(ext.type).inserted {
            throw .invalidWelcome("GroupInfo extension \(ext.type) appears twice")
        }
        guard tree.treeHash() == context.treeHash else { throw .invalidWelcome("tree hash differs from the GroupContext") }
        do {
            try tree.validate(groupID: context.groupID)
        } catch {
            throw .invalidWelcome("ratchet tree: \(error)")
        }
        do {
            try LeafNodeValidator(provider: provider, configuration: configuration.validation)
                .validateTreeLeaves(of: tree, groupContext: context, treeChecked: true)
        } catch {
            throw .invalidWelcome("tree leaf \(error)")
        }
        do {
            try GroupContextExtensionsValidation.validate(context.extensions, tree: tree)
        } catch {
            throw .invalidGroupContextExtensions(error)
        }
        guard let own = tree.leafIndex(of: keyPackage.leafNode) else {
            throw .invalidWelcome("this KeyPackage's leaf is not in the tree")
        }
        let keys: TreePrivateKeys
        do {
            keys = try tree.joinerPrivateKeys(
                leaf: own, leafKey: privateMaterial.encryptionPrivateKey, committer: joined.groupInfo.signer,
                pathSecret: joined.pathSecret)
        } catch {
            throw .invalidWelcome("path secret: \(error)")
        }
        let group = MLSGroup(
            provider: provider, configuration: configuration, groupContext: context, tree: tree, ownLeafIndex: own,
            isActive: true, privateKeys: keys, signer: privateMaterial.signaturePrivateKey, epochSecrets: joined.epochSecrets,
            secretTree: SecretTree(
                provider: provider, encryptionSecret: joined.epochSecrets.encryptionSecret, size: tree.size,
                configuration: configuration.secretTree),
            transcriptHashes: joined.transcriptHashes)
        return (group, joined.groupInfo.signer)
    }

    /// Joins from a Welcome carried in an MLSMessage.
    public static func join(
        welcomeMessage: MLSMessage, keyPackage: KeyPackage, privateMaterial: KeyPackagePrivateMaterial,
        ratchetTree: RatchetTreeNodes? = nil, externalPSKs: [Data: Data] = [:],
        configuration: GroupConfiguration = .default
    ) throws(GroupError) -> MLSGroup {
        guard case .welcome(let welcome) = welcomeMessage.body else {
            throw .unsupportedMessage("expected a Welcome, got wire format \(welcomeMessage.wireFormat)")
        }
        return try join(
            welcome: welcome, keyPackage: keyPackage, privateMaterial: privateMaterial, ratchetTree: ratchetTree,
            externalPSKs: externalPSKs, configuration: configuration)
    }
}
