import Foundation

/// Creating a one-member group at epoch 0 (RFC 9420 §11).
extension MLSGroup {
    /// Creates a group whose only member is the caller, with a fresh leaf encryption key and a
    /// key_package-sourced leaf signed by `signer`.
    ///
    /// The caller chooses the GroupContext extensions (Marmot: its group-data extension and
    /// required_capabilities); the leaf's capabilities must cover them.
    public static func create(
        groupID: GroupID, cipherSuite: CipherSuite = .mls128X25519AES128GCMSHA256Ed25519, signer: SignaturePrivateKey,
        credential: Credential, capabilities: Capabilities, leafExtensions: [Extension] = [],
        lifetime: Lifetime = .keyPackageDefault(), groupContextExtensions: [Extension] = [],
        configuration: GroupConfiguration = .default
    ) throws(GroupError) -> MLSGroup {
        let provider = try providerFor(cipherSuite)
        let encryptionKey = provider.generateKeyPair()
        var leaf = LeafNode(
            encryptionKey: encryptionKey.publicKey, signatureKey: signer.publicKey, credential: credential,
            capabilities: capabilities, source: .keyPackage(lifetime: lifetime), extensions: leafExtensions,
            signature: Data())
        do {
            try provider.signLeafNode(&leaf, with: signer, groupID: groupID, leafIndex: LeafIndex(0))
        } catch {
            throw .tree(error)
        }
        return try create(
            groupID: groupID, cipherSuite: cipherSuite, leafNode: leaf, encryptionKey: encryptionKey, signer: signer,
            groupContextExtensions: groupContextExtensions, configuration: configuration)
    }

    /// Creates a group from a LeafNode the caller built and signed, with its encryption private key.
    public static func create(
        groupID: GroupID, cipherSuite: CipherSuite = .mls128X25519AES128GCMSHA256Ed25519, leafNode: LeafNode,
        encryptionKey: HPKEPrivateKey, signer: SignaturePrivateKey, groupContextExtensions: [Extension] = [],
        configuration: GroupConfiguration = .default
    ) throws(GroupError) -> MLSGroup {
        let provider = try providerFor(cipherSuite)
        guard leafNode.signatureKey == signer.publicKey else { throw .privateKeyMismatch("signer is not the leaf's") }
        guard leafNode.encryptionKey == encryptionKey.publicKey else {
            throw .privateKeyMismatch("encryption key is not the leaf's")
        }
        let tree = RatchetTree(provider: provider, firstLeaf: leafNode)
        do {
            try GroupContextExtensionsValidation.validate(groupContextExtensions, tree: tree)
        } catch {
            throw .invalidGroupContextExtensions(error)
        }
        let context = GroupContext(
            cipherSuite: cipherSuite, groupID: groupID, epoch: 0, treeHash: tree.treeHash(), confirmedTranscriptHash: Data(),
            extensions: groupContextExtensions)
        do {
            try LeafNodeValidator(provider: provider, configuration: configuration.validation).validate(
                leafNode, as: .treeMember(LeafIndex(0)), in: GroupValidationContext(groupContext: context, tree: tree))
        } catch {
            throw .invalidLeafNode(error)
        }

        let secrets = EpochSecrets(
            provider: provider, initSecret: provider.randomBytes(provider.hashLength), commitSecret: provider.zeroSecret,
            pskSecret: nil, groupContext: context)
        let tag = TranscriptHashes.confirmationTag(
            confirmationKey: secrets.confirmationKey, confirmed: Data(), suite: provider)
        return MLSGroup(
            provider: provider, configuration: configuration, groupContext: context, tree: tree,
            ownLeafIndex: LeafIndex(0), isActive: true,
            privateKeys: TreePrivateKeys(leafIndex: LeafIndex(0), leafKey: encryptionKey), signer: signer,
            epochSecrets: secrets,
            secretTree: SecretTree(
                provider: provider, encryptionSecret: secrets.encryptionSecret, size: tree.size,
                configuration: configuration.secretTree),
            transcriptHashes: TranscriptHashes(confirmed: Data(), confirmationTag: tag, suite: provider))
    }

    static func providerFor(_ suite: CipherSuite) throws(GroupError) -> CipherSuiteProvider {
        do {
            return try CipherSuiteProvider(suite)
        } catch {
            throw .unsupportedCipherSuite(suite)
        }
    }
}
