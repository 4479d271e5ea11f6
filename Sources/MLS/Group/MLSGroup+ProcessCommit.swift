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

        if applied.removed.contains(where: { $0.leafIndex == ownLeafIndex }) {
            var next = self
            next.isActive = false
            next.pendingProposals = []
            next.pendingUpdateKeys = [:]
            return (.commit(summary(applied, committer: committer, epoch: epoch, pathUsed: commit.path != nil,
                                    newTree: applied.tree, removedSelf: true)), next)
        }

        var keys = privateKeys
        if let ownUpdate = applied.ownUpdate {
            guard let key = pendingUpdateKeys[ownUpdate] else {
                throw .invalidCommit("commits this member's Update, whose key is not kept")
            }
            keys.leafKey = key
        }
        let provisional = provisionalContext(extensions: applied.extensions)
        var newTree = applied.tree
        var commitSecret = provider.zeroSecret
        if let path = commit.path {
            try validateCommitLeaf(path.leafNode, committer: committer, tree: applied.tree, context: provisional)
            do {
                let result = try applied.tree.applyUpdatePath(
                    path, from: committer, groupContext: provisional, privateKeys: keys, excluding: applied.addedLeaves)
                newTree = result.tree
                keys = result.privateKeys
                commitSecret = result.commitSecret
            } catch {
                throw .tree(error)
            }
        } else {
            keys.prune(against: newTree)
        }

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
            removedSelf: removedSelf)
    }
}
