import Foundation

/// Processing another member's commit (RFC 9420 §12.4.2).
extension MLSGroup {
    /// Applies a verified commit of the current epoch: resolves and validates its proposals, applies
    /// them, checks that a required path is present, merges and decrypts the UpdatePath, runs the key
    /// schedule with the PSKs, verifies the confirmation tag and returns the next epoch's group.
    /// A commit that removes this member makes the group inactive instead.
    func processCommit(
        _ commit: Commit, in content: AuthenticatedContent, externalPSKs: [Data: Data]
    ) throws(GroupError) -> (ProcessedMessage, MLSGroup) {
        guard case .member(let committer) = content.content.sender else {
            throw .unsupportedMessage("external commits are not supported")
        }
        guard committer != ownLeafIndex else { throw .ownMessage }

        let resolved = try resolve(commit.proposals, committer: content.content.sender)
        let applied = try applyProposals(resolved, committer: committer, hasPath: commit.path != nil)

        let provisional = try provisionalContext(extensions: applied.extensions)
        var enteredLeaves = applied.enteredLeaves
        if let path = commit.path {
            try validateCommitLeaf(path.leafNode, committer: committer, tree: applied.tree, context: provisional)
            enteredLeaves[committer] = path.leafNode
        }

        if applied.removed.contains(where: { $0.leafIndex == ownLeafIndex }) {
            // Removed: the path secrets are not for us, but the public part of the commit is still
            // checked (§12.4.2) before the group is left, so a malformed commit is not reported as
            // our removal: the UpdatePath's shape, keys and parent hashes, and the resulting tree.
            var publicTree = applied.tree
            if let path = commit.path {
                do {
                    publicTree = try applied.tree.mergingUpdatePath(
                        path, from: committer, groupID: groupID, leafVerified: true)
                } catch {
                    throw .tree(error)
                }
            }
            try validateTreeAfterCommit(publicTree, context: provisional, enteredLeaves: enteredLeaves)
            var next = self
            next.leaveAfterRemoval()
            return (.commit(summary(applied, committer: committer, epoch: epoch, pathUsed: commit.path != nil,
                                    newTree: applied.tree, removedSelf: true)), next)
        }

        guard var keys = privateKeys else { throw .notAMember }
        if let ownUpdate = applied.ownUpdate {
            guard let key = pendingUpdateKeys[ownUpdate] else {
                throw .invalidCommit("commits this member's Update, whose key is not kept")
            }
            keys.leafKey = key
        }
        var newTree = applied.tree
        var commitSecret = provider.zeroSecret
        if let path = commit.path {
            do {
                let result = try applied.tree.applyUpdatePath(
                    path, from: committer, groupContext: provisional, privateKeys: keys, excluding: applied.addedLeaves,
                    leafVerified: true)
                newTree = result.tree
                keys = result.privateKeys
                commitSecret = result.commitSecret
            } catch {
                throw .tree(error)
            }
        } else {
            keys.prune(against: newTree)
        }

        try validateTreeAfterCommit(newTree, context: provisional, enteredLeaves: enteredLeaves)

        let pskSecret = try pskSecret(for: applied.psks, externalPSKs: externalPSKs)
        let next = try nextEpoch(
            commit: content, context: provisional, tree: newTree, commitSecret: commitSecret, pskSecret: pskSecret)
        guard let tag = content.auth.confirmationTag,
              TranscriptHashes.verifyConfirmationTag(
                tag, confirmationKey: next.secrets.confirmationKey, confirmed: next.context.confirmedTranscriptHash,
                suite: provider)
        else { throw .badConfirmationTag }

        let newGroup = advanced(
            to: next.context, tree: newTree, privateKeys: keys, signer: signer, epochSecrets: next.secrets,
            transcriptHashes: TranscriptHashes(
                confirmed: next.context.confirmedTranscriptHash, confirmationTag: tag, suite: provider))
        return (.commit(summary(applied, committer: committer, epoch: next.context.epoch, pathUsed: commit.path != nil,
                                newTree: newTree, removedSelf: false)), newGroup)
    }

    /// The tree a commit produced, checked before the epoch is adopted (§12.2, last bullet; §7.9.2;
    /// §12.4.2) as far as it differs from the current tree, which passed the same checks when it was
    /// adopted (or the joiner's full ones, §12.4.3.1): unmerged lists and parent-hash validity of every
    /// parent whose subtree changed (both depend on that subtree alone), key uniqueness of what changed
    /// against the whole tree, and
    /// each new or changed leaf valid for the new GroupContext against all members (credential,
    /// capabilities, keys, and its signature unless `enteredLeaves` holds that exact leaf, verified as
    /// it entered); when the extensions changed, every member's capabilities against them.
    func validateTreeAfterCommit(
        _ newTree: RatchetTree, context: GroupContext, enteredLeaves: [LeafIndex: LeafNode] = [:]
    ) throws(GroupError) {
        let changed = newTree.changedSubtrees(since: tree)
        let parents = changed.filter { !$0.isLeaf }
        do {
            try newTree.verifyUnmergedLeaves(of: parents)
            try newTree.verifyKeyUniqueness(changed: changed)
            try newTree.verifyParentHashes(of: parents)
        } catch {
            throw .invalidCommit("tree after the commit: \(error)")
        }
        do {
            try leafValidator.validateChangedTreeLeaves(
                changed.compactMap(\.leafIndex), of: newTree, groupContext: context,
                extensionsChanged: context.extensions != groupContext.extensions, keysChecked: true,
                verified: { index, leaf in enteredLeaves[index] == leaf })
        } catch {
            throw .invalidCommit("tree after the commit: leaf \(error)")
        }
    }

    /// Leaves the group after a commit removed this member: the current epoch is retained like a
    /// past one (its late application messages stay readable), and the leaf and path private keys,
    /// pending proposals and current-epoch secrets are deleted (§9.2), all but exporter_secret.
    mutating func leaveAfterRemoval(now: UInt64? = nil) {
        retainCurrentEpoch(now: now)
        isActive = false
        pendingProposals = []
        pendingUpdateKeys = [:]
        privateKeys = nil
        epochSecrets = epochSecrets.forgettingAllButExporter()
        secretTree.erase()
    }

    /// What a commit changed, as reported to the application.
    func summary(
        _ applied: AppliedProposals, committer: LeafIndex, epoch: UInt64, pathUsed: Bool, newTree: RatchetTree,
        removedSelf: Bool
    ) -> CommitSummary {
        CommitSummary(
            committer: committer, epoch: epoch,
            added: applied.added.compactMap { added in
                newTree.leafNode(at: added.leaf).map { GroupMember(leafIndex: added.leaf, leafNode: $0) }
            },
            removed: applied.removed, selfRemoved: applied.selfRemoved,
            updated: applied.updated + (pathUsed ? [committer] : []),
            newExtensions: applied.extensionsChanged ? applied.extensions : nil, psks: applied.psks,
            removedSelf: removedSelf, proposals: applied.proposals,
            appDataUpdates: applied.proposals.compactMap { item in
                item.proposal.appDataUpdate.map {
                    CommittedAppDataUpdate(update: $0, sender: item.sender, reference: item.reference)
                }
            },
            hasUpdatePath: pathUsed)
    }
}
