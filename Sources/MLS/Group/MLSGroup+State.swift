import Foundation

/// Saving and restoring the whole group state, secrets included (see `GroupStateEncoding`).
extension MLSGroup {
    /// The state as a versioned blob: configuration, context, tree, private keys, signature key,
    /// epoch secrets, secret tree with consumed and skipped keys, transcript hashes, pending
    /// proposals, retained epochs and sent-message digests. It holds the group's secrets (never
    /// joiner_secret, welcome_secret or encryption_secret, which are deleted, §9.2): store it
    /// encrypted.
    public func serialized() -> Data {
        var w = TLSWriter(capacity: 4096)
        w.write(GroupStateEncoding.version)
        GroupStateEncoding.write(configuration, to: &w)
        w.write(groupContext)
        GroupStateEncoding.write(tree, to: &w)
        w.write(ownLeafIndex)
        GroupStateEncoding.write(isActive, to: &w)
        w.writeOptional(privateKeys) { v, keys in GroupStateEncoding.write(keys, to: &v) }
        w.writeOpaque(signer.rawBytesForStorage)
        GroupStateEncoding.write(epochSecrets, to: &w)
        GroupStateEncoding.write(secretTree, to: &w)
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
                GroupStateEncoding.write(past.secretTree, to: &v)
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
        do {
            self = try Self.decodeState(data, now: now)
        } catch let error as GroupError {
            throw error
        } catch {
            throw .invalidState("\(error)")
        }
    }

    private static func decodeState(_ data: Data, now: UInt64) throws -> MLSGroup {
        var r = TLSReader(data)
        let version = try r.readUInt8()
        guard GroupStateEncoding.readable.contains(version) else {
            throw GroupError.invalidState("unknown version \(version)")
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
        let secretTree = try GroupStateEncoding.readSecretTree(&r, provider: provider)
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
            let pastTree = try GroupStateEncoding.readSecretTree(&v, provider: provider)
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
            transcriptHashes: transcript, pendingProposals: pending, pendingUpdateKeys: updateKeys, pastEpochs: past,
            sentHandshakes: sent)
        if !isActive && version == GroupStateEncoding.version1 { group.leaveAfterRemoval(now: now) }
        group.dropExpiredPastEpochs(now: now)
        return group
    }
}
