import Foundation

/// Creating commits (RFC 9420 §12.4.1) and the Welcome for the members they add (§12.4.3.1).
extension MLSGroup {
    /// Builds a commit and the state of the epoch it starts, without adopting it.
    ///
    /// The commit covers, in order: the pending proposals that can be committed together (by
    /// reference, when `includePendingProposals`), an Add per KeyPackage, a Remove per leaf, then
    /// `proposals` inline (GroupContextExtensions, PSK, AppDataUpdate, …). Each pending proposal is
    /// re-validated against the current state first; stale ones (a Remove of a leaf already gone, an Update from
    /// a member no longer in the group, an Add whose KeyPackage expired or whose identity another
    /// Add already brings) are left out rather than failing the commit, and so is every one that
    /// `proposalFilter` rejects (the application's policy of who may have what committed, e.g.
    /// Marmot's admin rules; received Updates and GroupContextExtensions stay pending until then). It carries an UpdatePath when its
    /// proposals require one (§12.4: everything but Add/PSK/ReInit and AppDataUpdate, and an empty commit), when
    /// `forceUpdatePath`, or when `signerRotation` installs a new signature key in this member's leaf.
    ///
    /// The only change to `self` is the handshake-ratchet generation the PrivateMessage consumed,
    /// so that no key is ever used twice even if the commit is discarded (§9.2). Everything else is
    /// in `PendingCommit.newGroup`, which the caller adopts once the commit is published.
    public mutating func commit(
        adding keyPackages: [KeyPackage] = [], removing leaves: [LeafIndex] = [], proposals extra: [Proposal] = [],
        includePendingProposals: Bool = true, forceUpdatePath: Bool = false, signerRotation: SignerRotation? = nil,
        authenticatedData: Data = Data(), externalPSKs: [Data: Data] = [:],
        proposalFilter: ((PendingProposal) -> Bool)? = nil
    ) throws(GroupError) -> PendingCommit {
        guard isActive else { throw .notAMember }
        let own = Sender.member(leafIndex: ownLeafIndex)
        var inline: [Proposal] = keyPackages.map { .add(Add(keyPackage: $0)) }
        inline += leaves.map { .remove(Remove(removed: $0)) }
        inline += extra
        for proposal in extra {
            switch proposal {
            case .update: throw .invalidProposal("a committer's own Update cannot be committed; use a path")
            case .selfRemove: throw .invalidProposal("a member cannot commit its own SelfRemove")
            default: break
            }
        }

        var entries: [ProposalOrRef] = []
        var resolved: [ResolvedProposal] = []
        if includePendingProposals {
            for pending in committablePendingProposals(inline: inline, filter: proposalFilter) {
                entries.append(.reference(pending.ref))
                resolved.append(ResolvedProposal(proposal: pending.proposal, sender: pending.sender, ref: pending.ref))
            }
        }
        for proposal in inline {
            entries.append(.proposal(proposal))
            resolved.append(ResolvedProposal(proposal: proposal, sender: own, ref: nil))
        }

        let applied = try applyProposals(resolved, committer: ownLeafIndex, hasPath: nil)
        let provisional = try provisionalContext(extensions: applied.extensions)
        let newSigner = signerRotation?.signer ?? signer

        var newTree = applied.tree
        guard var newKeys = privateKeys else { throw .notAMember }
        var commitSecret = provider.zeroSecret
        var created: CreatedUpdatePath?
        if applied.pathRequired || forceUpdatePath || signerRotation != nil {
            guard let current = applied.tree.leafNode(at: ownLeafIndex) else { throw .notAMember }
            var template = LeafNodeTemplate(current)
            template.signatureKey = newSigner.publicKey
            if let credential = signerRotation?.credential { template.credential = credential }
            if let leafExtensions = signerRotation?.leafExtensions { template.extensions = leafExtensions }
            do {
                created = try applied.tree.createUpdatePath(
                    from: ownLeafIndex, leaf: template, signer: newSigner, groupContext: provisional,
                    excluding: applied.addedLeaves)
            } catch {
                throw .tree(error)
            }
            if let created {
                newTree = created.tree
                newKeys = created.privateKeys
                commitSecret = created.commitSecret
            }
        } else {
            newKeys.prune(against: newTree)
        }
        var enteredLeaves = applied.enteredLeaves
        if signerRotation != nil, let leaf = newTree.leafNode(at: ownLeafIndex) {
            try validateCommitLeaf(leaf, committer: ownLeafIndex, tree: applied.tree, context: provisional)
            enteredLeaves[ownLeafIndex] = leaf
        }

        try validateTreeAfterCommit(newTree, context: provisional, enteredLeaves: enteredLeaves)

        let pskSecret = try pskSecret(for: applied.psks, externalPSKs: externalPSKs)
        let commit = Commit(proposals: entries, path: created?.updatePath)
        var authenticated = try sign(
            framedContent(.commit(commit), authenticatedData: authenticatedData),
            wireFormat: configuration.outgoingHandshake.wireFormat)
        let next = try nextEpoch(
            commit: authenticated, context: provisional, tree: newTree, commitSecret: commitSecret, pskSecret: pskSecret)
        authenticated.auth.confirmationTag = next.confirmationTag

        var current = self
        let message = try current.protect(authenticated)

        var groupInfo: GroupInfo?
        var welcome: Welcome?
        if !applied.added.isEmpty {
            var infoExtensions: [Extension] = []
            if configuration.ratchetTreeInWelcome { infoExtensions.append(Extension(newTree.ratchetTreeNodes)) }
            do {
                let info = try GroupInfo.signed(
                    groupContext: next.context, extensions: infoExtensions, confirmationTag: next.confirmationTag,
                    signer: ownLeafIndex, signingKey: newSigner, provider: provider)
                groupInfo = info
                let recipients = applied.added.map { added in
                    WelcomeRecipient(
                        keyPackage: added.keyPackage, pathSecret: created?.pathSecret(commonWith: added.leaf),
                        provider: provider)
                }
                welcome = try Welcome.make(
                    groupInfo: info, epochSecrets: next.secrets, psks: applied.psks, recipients: recipients)
            } catch let error as MLSCryptoError {
                throw .crypto(error)
            } catch {
                throw .invalidWelcome("\(error)")
            }
        }

        var newGroup = current.advanced(
            to: next.context, tree: newTree, privateKeys: newKeys, signer: newSigner, epochSecrets: next.secrets,
            transcriptHashes: TranscriptHashes(
                confirmed: next.context.confirmedTranscriptHash, confirmationTag: next.confirmationTag, suite: provider))
        newGroup.sentHandshakes.append(SentHandshake(epoch: epoch, digest: digest(message), proposalRef: nil))

        let summary = summary(
            applied, committer: ownLeafIndex, epoch: next.context.epoch, pathUsed: created != nil, newTree: newTree,
            removedSelf: false)
        self = current
        return PendingCommit(
            message: message, welcome: welcome, groupInfo: groupInfo, newGroup: newGroup, summary: summary)
    }

    /// An empty commit with an UpdatePath: fresh keys for this member's leaf and direct path
    /// (post-compromise security, §12.4), optionally under a new signature key. Pending proposals
    /// that can be committed (and that `proposalFilter` accepts, when given) are included.
    public mutating func selfUpdate(
        signerRotation: SignerRotation? = nil, authenticatedData: Data = Data(), externalPSKs: [Data: Data] = [:],
        proposalFilter: ((PendingProposal) -> Bool)? = nil
    ) throws(GroupError) -> PendingCommit {
        try commit(
            forceUpdatePath: true, signerRotation: signerRotation, authenticatedData: authenticatedData,
            externalPSKs: externalPSKs, proposalFilter: proposalFilter)
    }

    /// The pending proposals a commit by this member would include now: valid against the current
    /// state, accepted by `filter`, and combinable (see `commit`). Lets the application preview or
    /// log what it is about to commit.
    public func committableProposals(filter: ((PendingProposal) -> Bool)? = nil) -> [PendingProposal] {
        committablePendingProposals(inline: [], filter: filter)
    }

    /// The pending proposals a commit by this member can include together (§12.2, §12.4): not its
    /// own Update, no Remove of itself, one Remove/SelfRemove (preferred) or latest Update per leaf,
    /// one GroupContextExtensions, distinct PSKs, Adds of clients not already in the group or
    /// added inline, one per credential, and the latest AppDataUpdate per component not updated
    /// inline, listed after the other references (none when a GroupContextExtensions proposal is
    /// inline, since AppDataUpdates may not precede it; draft-ietf-mls-extensions). Each is first re-validated against the current state (as
    /// this member would commit it: KeyPackage lifetimes checked) and offered to `filter`; those
    /// that fail are left out.
    func committablePendingProposals(
        inline: [Proposal], filter: ((PendingProposal) -> Bool)? = nil
    ) -> [PendingProposal] {
        let candidates = pendingProposals.filter { pending in
            guard filter?(pending) ?? true else { return false }
            do {
                try validateProposal(pending.proposal, sender: pending.sender, asCommitter: true)
                return true
            } catch {
                return false
            }
        }
        var claimedLeaves = Set<LeafIndex>()
        var addedKeys = Set(tree.leaves.map(\.leaf.signatureKey))
        var addedCredentials = Set<Credential>()
        var pskIDs = Set<PreSharedKeyID>()
        var hasExtensions = false
        var hasInlineExtensions = false
        var appDataComponents = Set<UInt16>()
        for proposal in inline {
            switch proposal {
            case .remove(let remove): claimedLeaves.insert(remove.removed)
            case .add(let add):
                addedKeys.insert(add.keyPackage.leafNode.signatureKey)
                addedCredentials.insert(add.keyPackage.leafNode.credential)
            case .preSharedKey(let psk): pskIDs.insert(psk.psk)
            case .groupContextExtensions:
                hasExtensions = true
                hasInlineExtensions = true
            case .appDataUpdate(let update): appDataComponents.insert(update.componentID)
            default: break
            }
        }
        var removals: [LeafIndex: PendingProposal] = [:]
        var updates: [LeafIndex: PendingProposal] = [:]
        var appDataUpdates: [UInt16: PendingProposal] = [:]
        for pending in candidates {
            switch (pending.proposal, pending.sender) {
            case (.appDataUpdate(let update), _):
                appDataUpdates[update.componentID] = pending
            case (.remove(let remove), _) where remove.removed != ownLeafIndex:
                if removals[remove.removed] == nil { removals[remove.removed] = pending }
            case (.selfRemove, .member(let leaf)) where leaf != ownLeafIndex:
                removals[leaf] = pending
            case (.update, .member(let leaf)) where leaf != ownLeafIndex:
                updates[leaf] = pending
            default: break
            }
        }
        var chosen: [PendingProposal] = []
        var chosenAppData: [PendingProposal] = []
        for pending in candidates {
            switch (pending.proposal, pending.sender) {
            case (.remove, _), (.selfRemove, _):
                guard let leaf = target(of: pending), removals[leaf]?.ref == pending.ref,
                      claimedLeaves.insert(leaf).inserted
                else { continue }
                chosen.append(pending)
            case (.update, .member(let leaf)):
                guard removals[leaf] == nil, updates[leaf]?.ref == pending.ref, claimedLeaves.insert(leaf).inserted
                else { continue }
                chosen.append(pending)
            case (.add(let add), _):
                guard addedKeys.insert(add.keyPackage.leafNode.signatureKey).inserted,
                      addedCredentials.insert(add.keyPackage.leafNode.credential).inserted
                else { continue }
                chosen.append(pending)
            case (.preSharedKey(let psk), _):
                guard pskIDs.insert(psk.psk).inserted else { continue }
                chosen.append(pending)
            case (.groupContextExtensions, _):
                guard !hasExtensions else { continue }
                hasExtensions = true
                chosen.append(pending)
            case (.appDataUpdate(let update), _):
                guard !hasInlineExtensions, appDataUpdates[update.componentID]?.ref == pending.ref,
                      appDataComponents.insert(update.componentID).inserted
                else { continue }
                chosenAppData.append(pending)
            default:
                continue
            }
        }
        return chosen + chosenAppData
    }

    private func target(of pending: PendingProposal) -> LeafIndex? {
        switch (pending.proposal, pending.sender) {
        case (.remove(let remove), _): remove.removed
        case (.selfRemove, .member(let leaf)): leaf
        default: nil
        }
    }
}
