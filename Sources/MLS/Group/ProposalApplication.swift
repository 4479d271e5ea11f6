import Foundation

/// A committed proposal with its sender and, when committed by reference, its reference (§12.4).
struct ResolvedProposal: Sendable {
    var proposal: Proposal
    var sender: Sender
    var ref: ProposalRef?
}

/// The tree and GroupContext extensions after a commit's proposals, and what changed (RFC 9420 §12.3).
struct AppliedProposals: Sendable {
    var tree: RatchetTree
    var extensions: [Extension]
    var extensionsChanged: Bool
    var added: [(leaf: LeafIndex, keyPackage: KeyPackage)] = []
    var removed: [GroupMember] = []
    var selfRemoved: [LeafIndex] = []
    var updated: [LeafIndex] = []
    var psks: [PreSharedKeyID] = []
    /// Whether the commit must carry an UpdatePath (§12.4).
    var pathRequired: Bool
    /// This member's own Update proposal among the committed ones.
    var ownUpdate: ProposalRef?
    /// Every committed proposal, in commit order.
    var proposals: [CommittedProposal] = []
    /// The leaves Adds and Updates put in the tree, each validated with its signature as it entered
    /// (§12.2), so the check of the new tree does not verify them again.
    var enteredLeaves: [LeafIndex: LeafNode] = [:]

    /// The leaves the commit adds, which an UpdatePath's resolutions leave out (§7.6).
    var addedLeaves: Set<LeafIndex> { Set(added.map(\.leaf)) }
}

extension MLSGroup {
    /// Resolves a commit's proposals: references from the pending store, inline ones as the
    /// committer's own (§12.4).
    func resolve(_ proposals: [ProposalOrRef], committer: Sender) throws(GroupError) -> [ResolvedProposal] {
        var result: [ResolvedProposal] = []
        for entry in proposals {
            switch entry {
            case .proposal(let proposal):
                result.append(ResolvedProposal(proposal: proposal, sender: committer, ref: nil))
            case .reference(let ref):
                guard let pending = pendingProposals.first(where: { $0.ref == ref }) else { throw .missingProposal(ref) }
                result.append(ResolvedProposal(proposal: pending.proposal, sender: pending.sender, ref: ref))
            }
        }
        return result
    }

    /// Validates the list (§12.2, with the path rule when `hasPath` is known) and applies it in the
    /// order of §12.3 to the current tree and extensions: GroupContextExtensions then AppDataUpdates
    /// (draft-ietf-mls-extensions; computed by the validator), Updates, Removes and SelfRemoves, Adds
    /// in list order, then PSKs.
    func applyProposals(
        _ proposals: [ResolvedProposal], committer: LeafIndex, hasPath: Bool?
    ) throws(GroupError) -> AppliedProposals {
        let validated = try validateProposalList(proposals, committer: committer, hasPath: hasPath)
        var result = AppliedProposals(
            tree: tree, extensions: validated.newGroupContextExtensions ?? groupContext.extensions,
            extensionsChanged: validated.newGroupContextExtensions != nil, pathRequired: validated.pathRequired)
        result.proposals = proposals.map { CommittedProposal(proposal: $0.proposal, sender: $0.sender, reference: $0.ref) }
        do {
            for item in proposals {
                switch (item.proposal, item.sender) {
                case (.update(let update), .member(let leaf)):
                    try result.tree.update(update.leafNode, at: leaf)
                    result.updated.append(leaf)
                    result.enteredLeaves[leaf] = update.leafNode
                    if leaf == ownLeafIndex { result.ownUpdate = item.ref }
                case (.reInit, _):
                    throw GroupError.invalidCommit("ReInit is not supported")
                case (.unknown(let type, _), _):
                    throw GroupError.invalidCommit("unsupported proposal type \(type)")
                default:
                    continue
                }
            }
            for item in proposals {
                let target: LeafIndex
                switch (item.proposal, item.sender) {
                case (.remove(let remove), _): target = remove.removed
                case (.selfRemove, .member(let leaf)):
                    target = leaf
                    result.selfRemoved.append(leaf)
                default: continue
                }
                let leafNode = try result.tree.requireLeaf(target)
                try result.tree.remove(target)
                result.removed.append(GroupMember(leafIndex: target, leafNode: leafNode))
            }
            for item in proposals {
                guard case .add(let add) = item.proposal else { continue }
                let leaf = try result.tree.add(add.keyPackage.leafNode)
                result.added.append((leaf, add.keyPackage))
                result.enteredLeaves[leaf] = add.keyPackage.leafNode
            }
        } catch let error as GroupError {
            throw error
        } catch let error as TreeError {
            throw .tree(error)
        } catch {
            throw .invalidCommit("\(error)")
        }
        for item in proposals {
            guard case .preSharedKey(let psk) = item.proposal else { continue }
            result.psks.append(psk.psk)
        }
        result.tree.cacheTreeHashes()
        return result
    }

    /// psk_secret for the commit's PSKs (§8.4): external ones from `externalPSKs`, resumption PSKs
    /// (usage application) of this group from the current or a retained epoch. Nil without PSKs.
    func pskSecret(for ids: [PreSharedKeyID], externalPSKs: [Data: Data]) throws(GroupError) -> Data? {
        guard !ids.isEmpty else { return nil }
        var entries: [(id: PreSharedKeyID, psk: Data)] = []
        for id in ids {
            guard let psk = lookupPSK(id, externalPSKs: externalPSKs) else { throw .missingPSK(id) }
            entries.append((id, psk))
        }
        do {
            return try KeySchedule(provider).pskSecret(entries)
        } catch {
            throw .invalidCommit("too many PSKs")
        }
    }

    func lookupPSK(_ id: PreSharedKeyID, externalPSKs: [Data: Data]) -> Data? {
        switch id.kind {
        case .external(let pskID):
            return externalPSKs[pskID]
        case .resumption(let usage, let groupID, let epoch):
            guard usage == .application, groupID == self.groupID else { return nil }
            if epoch == self.epoch { return epochSecrets.resumptionPSK }
            return pastEpochs.first { $0.groupContext.epoch == epoch }?.resumptionPSK
        }
    }
}
