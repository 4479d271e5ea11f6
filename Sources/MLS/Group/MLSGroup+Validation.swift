import Foundation

/// Where the group state machine asks whether KeyPackages, LeafNodes, GroupContext extensions and
/// proposal lists are valid (RFC 9420 §7.3, §10.1, §11.1, §12.1, §12.2). Every check goes through
/// the validators of `Group/Validation`, with the group's configuration, from here.
extension MLSGroup {
    /// The leaf validator under this group's configuration, at the current time.
    var leafValidator: LeafNodeValidator {
        LeafNodeValidator(provider: provider, configuration: configuration.validation, now: now)
    }

    /// The KeyPackage validator under this group's configuration, at the current time. With
    /// `ownAdd` false (an Add another member sent or committed) the not_before/not_after window is
    /// not checked: §7.3 only recommends it there, and members processing a commit at different
    /// times would otherwise disagree on it and fork.
    func keyPackageValidator(ownAdd: Bool) -> KeyPackageValidator {
        KeyPackageValidator(provider: provider, configuration: validationConfiguration(ownAdd: ownAdd), now: now)
    }

    func validationConfiguration(ownAdd: Bool) -> ValidationConfiguration {
        var validation = configuration.validation
        validation.checkKeyPackageLifetime = ownAdd
        return validation
    }

    /// The current context and tree, as validators see the group.
    var validationContext: GroupValidationContext { GroupValidationContext(groupContext: groupContext, tree: tree) }

    /// Validates a commit's resolved proposal list by `committer` against the current state (§12.2);
    /// `hasPath` enforces the path rule of §12.4 when the path is known.
    func validateProposalList(
        _ proposals: [ResolvedProposal], committer: LeafIndex, hasPath: Bool?
    ) throws(GroupError) -> ValidatedProposalList {
        let validator = ProposalListValidator(
            provider: provider, configuration: validationConfiguration(ownAdd: committer == ownLeafIndex),
            now: now)
        do {
            return try validator.validate(
                proposals.map { CommittedProposal(proposal: $0.proposal, sender: $0.sender, reference: $0.ref) },
                committer: .member(leafIndex: committer), tree: tree, groupContext: groupContext, hasPath: hasPath)
        } catch {
            throw GroupError(error)
        }
    }

    /// The checks a standalone proposal must pass on its own before it is kept (§12.1): the sender may
    /// send its type (§6.1, §12.1.8), Adds carry valid KeyPackages, Updates valid leaves for the
    /// sender's position, Removes name a member, PSKs have an Nh-byte nonce and an allowed usage,
    /// GroupContextExtensions are supported by every member, and an AppDataUpdate `remove` names a
    /// component the dictionary holds (the rest of its rules need the whole commit).
    ///
    /// `asCommitter`: checked as this member would commit it, so KeyPackage lifetimes are checked
    /// even for another member's Add (see `keyPackageValidator(ownAdd:)`).
    func validateProposal(_ proposal: Proposal, sender: Sender, asCommitter: Bool = false) throws(GroupError) {
        guard proposal.type.canBeSent(by: sender) else {
            throw .senderNotAllowed("\(sender) may not propose \(proposal.type)")
        }
        if case .member(let leaf) = sender, tree.leafNode(at: leaf) == nil { throw .unknownSender(sender) }
        switch proposal {
        case .add(let add):
            do {
                try keyPackageValidator(ownAdd: asCommitter || sender == .member(leafIndex: ownLeafIndex))
                    .validate(add.keyPackage, in: validationContext)
            } catch {
                throw .invalidKeyPackage(error)
            }
        case .update(let update):
            guard case .member(let leaf) = sender else { throw .senderNotAllowed("Update from a non-member") }
            do {
                try leafValidator.validate(update.leafNode, as: .update(leaf), in: validationContext)
            } catch {
                throw .invalidLeafNode(error)
            }
        case .remove(let remove):
            guard tree.size.contains(remove.removed) else { throw .tree(.leafOutOfRange(remove.removed)) }
            guard tree.leafNode(at: remove.removed) != nil else {
                throw .invalidProposal("Remove of blank or unknown \(remove.removed)")
            }
        case .selfRemove:
            guard case .member = sender else { throw .senderNotAllowed("SelfRemove from a non-member") }
        case .preSharedKey(let psk):
            guard psk.psk.nonce.count == provider.hashLength else { throw .invalidProposal("psk_nonce is not Nh bytes") }
            if case .resumption(let usage, _, _) = psk.psk.kind, usage != .application {
                throw .invalidProposal("resumption PSK usage \(usage.rawValue) outside reinit/branch")
            }
        case .groupContextExtensions(let gce):
            do {
                try GroupContextExtensionsValidation.validate(gce.extensions, tree: tree)
            } catch {
                throw .invalidGroupContextExtensions(error)
            }
            do {
                try AppDataUpdateRules.checkGroupContextExtensions(gce.extensions, current: groupContext.extensions)
            } catch {
                throw .invalidProposal("\(error)")
            }
        case .appDataUpdate(let update):
            switch update.operation {
            case .update:
                break
            case .remove:
                // A remove of a component with no state is invalid (draft-ietf-mls-extensions).
                let dictionary = try? groupContext.extensions.payload(AppDataDictionary.self)
                guard dictionary?[update.componentID] != nil else {
                    throw .invalidProposal("\(AppDataUpdateError.removeOfAbsentComponent(update.componentID))")
                }
            default:
                throw .invalidProposal("\(AppDataUpdateError.unknownOperation(update.operation.rawValue))")
            }
        case .reInit:
            throw .invalidProposal("ReInit is not supported")
        case .externalInit:
            throw .invalidProposal("ExternalInit outside an external commit")
        case .unknown(let type, _):
            throw .invalidProposal("unsupported proposal type \(type)")
        }
    }

    /// A committer's new leaf from an UpdatePath (§7.3, §12.4.2), against the tree the proposals
    /// produced and the new extensions.
    func validateCommitLeaf(
        _ leaf: LeafNode, committer: LeafIndex, tree proposed: RatchetTree, context provisional: GroupContext
    ) throws(GroupError) {
        do {
            try leafValidator.validate(
                leaf, as: .commit(committer), in: GroupValidationContext(groupContext: provisional, tree: proposed))
        } catch {
            throw .invalidLeafNode(error)
        }
    }
}
