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
    var extensionsChanged = false
    var added: [(leaf: LeafIndex, keyPackage: KeyPackage)] = []
    var removed: [GroupMember] = []
    var selfRemoved: [LeafIndex] = []
    var updated: [LeafIndex] = []
    var psks: [PreSharedKeyID] = []
    /// Whether the commit must carry an UpdatePath (§12.4).
    var pathRequired: Bool
    /// This member's own Update proposal among the committed ones.
    var ownUpdate: ProposalRef?

    /// The leaves the commit adds, which an UpdatePath's resolutions leave out (§7.6).
    var addedLeaves: Set<LeafIndex> { Set(added.map(\.leaf)) }
}

extension MLSGroup {
    /// Proposal types a commit may leave without an UpdatePath (§12.4, §17.4).
    static let pathlessProposalTypes: Set<ProposalType> = [.add, .psk, .reinit]

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

    /// Validates the list (§12.2) and applies it in the order of §12.3 to the current tree and
    /// extensions: GroupContextExtensions, Updates, Removes and SelfRemoves, Adds, then PSKs.
    /// Inline proposals get the checks a received proposal gets (§12.1).
    func applyProposals(
        _ proposals: [ResolvedProposal], committer: LeafIndex, sending: Bool
    ) throws(GroupError) -> AppliedProposals {
        // Inline Adds are validated below against the new extensions, like referenced ones.
        for item in proposals where item.ref == nil && item.proposal.type != .add {
            try validateProposal(item.proposal, sender: item.sender, sending: sending)
        }
        try GroupValidation.validateProposalList(proposals, committer: committer, tree: tree)

        var result = AppliedProposals(
            tree: tree, extensions: groupContext.extensions,
            pathRequired: proposals.isEmpty
                || proposals.contains { !Self.pathlessProposalTypes.contains($0.proposal.type) })

        for item in proposals {
            guard case .groupContextExtensions(let gce) = item.proposal else { continue }
            result.extensions = gce.extensions
            result.extensionsChanged = true
        }
        for item in proposals {
            guard case .update(let update) = item.proposal, case .member(let leaf) = item.sender else { continue }
            do {
                try result.tree.update(update.leafNode, at: leaf)
            } catch {
                throw .invalidProposal("Update: \(error)")
            }
            result.updated.append(leaf)
            if leaf == ownLeafIndex { result.ownUpdate = item.ref }
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
            guard let leafNode = result.tree.leafNode(at: target) else {
                throw .invalidProposal("Remove of blank or unknown \(target)")
            }
            do {
                try result.tree.remove(target)
            } catch {
                throw .invalidProposal("Remove: \(error)")
            }
            result.removed.append(GroupMember(leafIndex: target, leafNode: leafNode))
        }
        var newContext = groupContext
        newContext.extensions = result.extensions
        if result.extensionsChanged {
            try GroupValidation.validateGroupContextExtensions(result.extensions, tree: result.tree)
        }
        for item in proposals {
            guard case .add(let add) = item.proposal else { continue }
            try GroupValidation.validateKeyPackage(
                add.keyPackage, groupContext: newContext, tree: result.tree, provider: provider,
                checkLifetime: sending)
            let leaf: LeafIndex
            do {
                leaf = try result.tree.add(add.keyPackage.leafNode)
            } catch {
                throw .invalidProposal("Add: \(error)")
            }
            result.added.append((leaf, add.keyPackage))
        }
        if result.extensionsChanged {
            try GroupValidation.validateGroupContextExtensions(result.extensions, tree: result.tree)
        }
        for item in proposals {
            guard case .preSharedKey(let psk) = item.proposal else { continue }
            result.psks.append(psk.psk)
        }
        return result
    }

    /// The checks a proposal must pass on its own, whoever sent it (§12.1): Update leaves are valid
    /// for their sender's position, Removes name a member, PSKs have an Nh-byte nonce and a usable
    /// type, and GroupContextExtensions are supported by every member.
    func validateProposal(_ proposal: Proposal, sender: Sender, sending: Bool) throws(GroupError) {
        switch proposal {
        case .add(let add):
            try GroupValidation.validateKeyPackage(
                add.keyPackage, groupContext: groupContext, tree: tree, provider: provider, checkLifetime: sending)
        case .update(let update):
            guard case .member(let leaf) = sender, tree.leafNode(at: leaf) != nil else {
                throw .invalidProposal("Update from a non-member")
            }
            try GroupValidation.validateLeafNode(
                update.leafNode, context: .update(leaf: leaf), groupContext: groupContext, tree: tree,
                provider: provider)
        case .remove(let remove):
            guard tree.leafNode(at: remove.removed) != nil else {
                throw .invalidProposal("Remove of blank or unknown \(remove.removed)")
            }
        case .selfRemove:
            guard case .member(let leaf) = sender, tree.leafNode(at: leaf) != nil else {
                throw .invalidProposal("SelfRemove from a non-member")
            }
        case .preSharedKey(let psk):
            guard psk.psk.nonce.count == provider.hashLength else { throw .invalidProposal("psk_nonce is not Nh bytes") }
            if psk.psk.isReinitOrBranch { throw .invalidProposal("reinit/branch PSK outside reinit/branch") }
        case .groupContextExtensions(let gce):
            try GroupValidation.validateGroupContextExtensions(gce.extensions, tree: tree)
        case .reInit:
            throw .invalidProposal("ReInit is not supported")
        case .externalInit:
            throw .invalidProposal("ExternalInit outside an external commit")
        case .unknown(let type, _):
            throw .invalidProposal("unsupported proposal type \(type)")
        }
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
