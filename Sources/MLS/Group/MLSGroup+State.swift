import Foundation

/// Saving and restoring the whole group state, secrets included (see `GroupStateEncoding`).
extension MLSGroup {
    /// The state as a versioned blob: configuration, context, tree, private keys, signature key,
    /// epoch secrets, secret tree with consumed and skipped keys, transcript hashes, pending
    /// proposals, retained epochs and sent-message digests. It holds the group's secrets (never
    /// joiner_secret, welcome_secret or encryption_secret, which are deleted, §9.2): store it
    /// encrypted.
    public func serialized() -> Data {
        encodedState(withSecretTrees: true)
    }

    /// The state in two blobs: everything but the secret trees, and the secret trees alone
    /// (`serializedRatchets()`); `init(serialized:ratchets:)` joins them.
    ///
    /// An application message changes only a secret tree (a ratchet step, a key deleted, RFC 9420
    /// §9.2), so a store that keeps the two apart rewrites only the small second blob per message
    /// instead of the whole group (issue 27). The first blob holds no tree secret, so rewriting the
    /// second alone still deletes each used key for good.
    public func serializedApart() -> (state: Data, ratchets: Data) {
        (encodedState(withSecretTrees: false), serializedRatchets())
    }

    /// The secret trees alone: the current epoch's and each retained epoch's, by epoch (the blob
    /// `serializedApart()` pairs with its state).
    public func serializedRatchets() -> Data {
        var w = TLSWriter(capacity: 1024)
        w.write(GroupStateEncoding.ratchetsVersion)
        w.write(epoch)
        GroupStateEncoding.write(secretTree, to: &w)
        w.writeVector { v in
            for past in pastEpochs {
                v.write(past.groupContext.epoch)
                GroupStateEncoding.write(past.secretTree, to: &v)
            }
        }
        return w.data
    }

    private func encodedState(withSecretTrees: Bool) -> Data {
        var w = TLSWriter(capacity: 4096)
        w.write(withSecretTrees ? GroupStateEncoding.version : GroupStateEncoding.versionApart)
        GroupStateEncoding.write(configuration, to: &w)
        w.write(groupContext)
        GroupStateEncoding.write(tree, to: &w)
        w.write(ownLeafIndex)
        GroupStateEncoding.write(isActive, to: &w)
        w.writeOptional(privateKeys) { v, keys in GroupStateEncoding.write(keys, to: &v) }
        w.writeOpaque(signer.rawBytesForStorage)
        GroupStateEncoding.write(epochSecrets, to: &w)
        if withSecretTrees { GroupStateEncoding.write(secretTree, to: &w) }
        w.writeOpaque(transcriptHashes.confirmed)
        w.writeOpaque(transcriptHashes.interim)
        w.writeVector { v in
            for pending in pendingProposals {
                v.write(pending.ref)
                v.write(pending.sender)
                v.write(pending.proposal)
            }
        }
        w.writeVector { v in
            for (ref, key) in pendingUpdateKeys.sorted(by: { $0.key.bytes.lexicographicallyPrecedes($1.key.bytes) }) {
                v.write(ref)
                v.writeOpaque(key.rawBytesForStorage)
            }
        }
        w.writeVector { v in
            for past in pastEpochs {
                v.write(past.groupContext)
                v.writeOpaque(past.senderDataSecret)
                v.writeOpaque(past.resumptionPSK)
                v.write(past.retainedAt)
                if withSecretTrees { GroupStateEncoding.write(past.secretTree, to: &v) }
                v.writeVector { m in
                    for (leaf, member) in past.members.sorted(by: { $0.key < $1.key }) {
                        m.write(leaf)
                        m.write(member.signatureKey)
                        m.write(member.credential)
                    }
                }
            }
        }
        w.writeVector { v in
            for sent in sentHandshakes {
                v.write(sent.epoch)
                v.writeOpaque(sent.digest)
                v.writeOptional(sent.proposalRef)
            }
        }
        return w.data
    }

    /// Restores a state written by `serialized()`; fails with `.invalidState` on any inconsistency.
    /// Retained epochs older than the configuration's `maxPastEpochAge` at `now` are dropped. A
    /// version 1 state loads without the secrets version 2 no longer keeps; a removed member's
    /// version 1 state also loses its private keys and current-epoch secrets (§9.2).
    public init(serialized data: Data, now: UInt64 = UnixTime.now) throws(GroupError) {
        try self.init(serialized: data, ratchets: nil, now: now)
    }

    /// Restores a state from the two blobs of `serializedApart()` (the ratchets possibly written
    /// later, after messages); with `ratchets` nil, a whole state as `init(serialized:)` reads it.
    /// A retained epoch whose secret tree the ratchets lack was dropped after the state was written
    /// (it expired) and stays dropped; ratchets of another epoch than the state's fail.
    public init(serialized data: Data, ratchets: Data?, now: UInt64 = UnixTime.now) throws(GroupError) {
        do {
            self = try Self.decodeState(data, ratchets: ratchets, now: now)
        } catch let error as GroupError {
            throw error
        } catch {
            throw .invalidState("\(error)")
        }
    }

    private static func decodeState(_ data: Data, ratchets: Data?, now: UInt64) throws -> MLSGroup {
        var r = TLSReader(data)
        let version = try r.readUInt8()
        let apart = version == GroupStateEncoding.versionApart
        guard GroupStateEncoding.readable.contains(version) || apart else {
            throw GroupError.invalidState("unknown version \(version)")
        }
        guard apart == (ratchets != nil) else {
            throw GroupError.invalidState(apart ? "secret trees stored apart are missing" : "a whole state with separate secret trees")
        }
        let configuration = try GroupStateEncoding.readConfiguration(&r, version: version)
        let context: GroupContext = try r.read()
        let provider = try providerFor(context.cipherSuite)
        let tree = try GroupStateEncoding.readTree(&r, provider: provider)
        let own: LeafIndex = try r.read()
        let isActive = try GroupStateEncoding.readBool(&r)
        let keys: TreePrivateKeys? = version == GroupStateEncoding.version1
            ? try GroupStateEncoding.readTreePrivateKeys(&r)
            : try r.readOptional { try GroupStateEncoding.readTreePrivateKeys(&$0) }
        let signer = try SignaturePrivateKey(seed: try r.readOpaque())
        let secrets = try GroupStateEncoding.readEpochSecrets(
            &r, provider: provider, version: version, allowDeleted: !isActive && version != GroupStateEncoding.version1)
        var secretTree = apart
            ? SecretTree.erased(provider: provider, size: tree.size)
            : try GroupStateEncoding.readSecretTree(&r, provider: provider)
        let transcript = TranscriptHashes(confirmed: try r.readOpaque(), interim: try r.readOpaque())
        let pending = try r.readVectorElements { v in
            let ref: ProposalRef = try v.read()
            let sender: Sender = try v.read()
            return PendingProposal(ref: ref, proposal: try v.read(), sender: sender)
        }
        var updateKeys: [ProposalRef: HPKEPrivateKey] = [:]
        let updateEntries = try r.readVectorElements { v in
            (try v.read(ProposalRef.self), try HPKEPrivateKey(rawBytes: try v.readOpaque()))
        }
        for (ref, key) in updateEntries {
            updateKeys[ref] = key
        }
        let past = try r.readVectorElements { v in
            let pastContext: GroupContext = try v.read()
            let senderData = try v.readOpaque()
            let resumption = try v.readOpaque()
            let retainedAt = version == GroupStateEncoding.version1 ? now : try v.readUInt64()
            let pastTree = apart
                ? SecretTree.erased(provider: provider, size: tree.size)
                : try GroupStateEncoding.readSecretTree(&v, provider: provider)
            var members: [LeafIndex: PastMember] = [:]
            for (leaf, key, credential) in try v.readVectorElements({ m in
                (try m.read(LeafIndex.self), try m.read(SignaturePublicKey.self), try m.read(Credential.self))
            }) {
                members[leaf] = PastMember(signatureKey: key, credential: credential)
            }
            return PastEpoch(
                groupContext: pastContext, senderDataSecret: senderData, resumptionPSK: resumption,
                secretTree: pastTree, members: members, retainedAt: retainedAt)
        }
        var retained = past
        if let ratchets {
            let trees = try GroupStateEncoding.readRatchets(ratchets, provider: provider, epoch: context.epoch)
            secretTree = trees.current
            retained = past.compactMap { retainedEpoch in
                guard let tree = trees.past[retainedEpoch.groupContext.epoch] else { return nil }
                var kept = retainedEpoch
                kept.secretTree = tree
                return kept
            }
        }
        let sent = try r.readVectorElements { v in
            SentHandshake(
                epoch: try v.readUInt64(), digest: try v.readOpaque(), proposalRef: try v.readOptional(ProposalRef.self))
        }
        try r.finish()

        guard tree.size.contains(own), keys.map({ $0.leafIndex == own }) ?? true else {
            throw GroupError.invalidState("own leaf index")
        }
        guard secretTree.size == tree.size else { throw GroupError.invalidState("secret tree size") }
        if isActive {
            guard let keys else { throw GroupError.invalidState("an active member without private keys") }
            guard tree.leafNode(at: own)?.signatureKey == signer.publicKey else {
                throw GroupError.invalidState("signature key does not match the own leaf")
            }
            try tree.verifyPrivateKeys(keys)
        }
        var group = MLSGroup(
            provider: provider, configuration: configuration, groupContext: context, tree: tree, ownLeafIndex: own,
            isActive: isActive, privateKeys: keys, signer: signer, epochSecrets: secrets, secretTree: secretTree,
            transcriptHashes: transcript, pendingProposals: pending, pendingUpdateKeys: updateKeys, pastEpochs: retained,
            sentHandshakes: sent)
        if !isActive && version == GroupStateEncoding.version1 { group.leaveAfterRemoval(now: now) }
        group.dropExpiredPastEpochs(now: now)
        return group
    }
}
