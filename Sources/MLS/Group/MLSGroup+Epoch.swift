import Foundation

/// Moving the state to the epoch a commit starts, shared by commit creation and processing
/// (RFC 9420 §8, §12.4.1, §12.4.2, §14).
extension MLSGroup {
    /// The group in the next epoch: new context, tree, keys and secrets, a fresh secret tree, no
    /// pending proposals, and the current epoch retained (up to `maxPastEpochs` and
    /// `maxPastEpochAge`) for late messages.
    func advanced(
        to context: GroupContext, tree newTree: RatchetTree, privateKeys newKeys: TreePrivateKeys,
        signer newSigner: SignaturePrivateKey, epochSecrets newSecrets: EpochSecrets, transcriptHashes: TranscriptHashes
    ) -> MLSGroup {
        var next = self
        next.retainCurrentEpoch()
        next.groupContext = context
        next.tree = newTree
        next.privateKeys = newKeys
        next.signer = newSigner
        next.transcriptHashes = transcriptHashes
        next.secretTree = SecretTree(
            provider: provider, encryptionSecret: newSecrets.encryptionSecret, size: newTree.size,
            configuration: configuration.secretTree)
        // The secret tree takes over from encryption_secret, which (with the Welcome secrets) goes
        // (§9.2); its root is split at once so encryption_secret is not kept there either.
        next.secretTree.consumeRoot()
        next.epochSecrets = newSecrets.forgettingTransientSecrets()
        next.pendingProposals = []
        next.pendingUpdateKeys = [:]
        next.pruneSentHandshakes()
        return next
    }

    /// Keeps what late application messages of the current epoch need, dropping the oldest epochs
    /// beyond `maxPastEpochs` (their keys are deleted with them, §9.2).
    mutating func retainCurrentEpoch(now: UInt64? = nil) {
        let now = now ?? self.now
        dropExpiredPastEpochs(now: now)
        guard configuration.maxPastEpochs > 0 else {
            pastEpochs = []
            return
        }
        var members: [LeafIndex: PastMember] = [:]
        for (index, leaf) in tree.leaves {
            members[index] = PastMember(signatureKey: leaf.signatureKey, credential: leaf.credential)
        }
        pastEpochs.append(PastEpoch(
            groupContext: groupContext, senderDataSecret: epochSecrets.senderDataSecret,
            resumptionPSK: epochSecrets.resumptionPSK, secretTree: secretTree, members: members, retainedAt: now))
        if pastEpochs.count > configuration.maxPastEpochs {
            pastEpochs.removeFirst(pastEpochs.count - configuration.maxPastEpochs)
        }
    }

    /// Drops retained epochs older than `maxPastEpochAge` at `now`, with their keys (§9.2).
    mutating func dropExpiredPastEpochs(now: UInt64) {
        guard let maxAge = configuration.maxPastEpochAge else { return }
        pastEpochs.removeAll { now > $0.retainedAt && now - $0.retainedAt > maxAge }
    }

    /// Drops the retained past epochs that are older than the configuration's `maxPastEpochAge`
    /// (§9.2); the group also does this whenever it changes epoch or is loaded. `now` is injectable
    /// for tests.
    public mutating func dropExpiredRetainedEpochs(now: UInt64 = UnixTime.now) {
        dropExpiredPastEpochs(now: now)
    }

    /// The new GroupContext's confirmed transcript hash, key schedule and confirmation tag for a
    /// commit (§8, §8.2): returns the context with its hash filled in, the epoch secrets and the
    /// tag the commit must carry.
    func nextEpoch(
        commit authenticated: AuthenticatedContent, context provisional: GroupContext, tree newTree: RatchetTree,
        commitSecret: Data, pskSecret: Data?
    ) throws(GroupError) -> (context: GroupContext, secrets: EpochSecrets, confirmationTag: Data) {
        let input: ConfirmedTranscriptHashInput
        do {
            input = try ConfirmedTranscriptHashInput(authenticated)
        } catch {
            throw .malformedMessage("commit content: \(error)")
        }
        var context = provisional
        context.treeHash = newTree.treeHash()
        context.confirmedTranscriptHash = TranscriptHashes.confirmedHash(
            interimBefore: transcriptHashes.interim, input: input, suite: provider)
        let secrets = EpochSecrets(
            provider: provider, initSecret: epochSecrets.initSecret, commitSecret: commitSecret, pskSecret: pskSecret,
            groupContext: context)
        let tag = TranscriptHashes.confirmationTag(
            confirmationKey: secrets.confirmationKey, confirmed: context.confirmedTranscriptHash, suite: provider)
        return (context, secrets, tag)
    }

    /// The provisional GroupContext of the next epoch (§12.4.1): epoch + 1, the new extensions, the
    /// old confirmed transcript hash; tree_hash is filled in by whoever holds the new tree.
    func provisionalContext(extensions: [Extension]) throws(GroupError) -> GroupContext {
        var context = groupContext
        guard context.epoch < UInt64.max else { throw .tooLarge("epoch \(context.epoch) cannot advance") }
        context.epoch += 1
        context.extensions = extensions
        return context
    }
}
