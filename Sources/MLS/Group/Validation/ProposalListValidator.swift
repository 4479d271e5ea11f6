import Foundation

/// What a valid proposal list does, for the Commit code that applies it.
public struct ValidatedProposalList: Hashable, Sendable {
    /// True for an external Commit (committer new_member_commit).
    public let isExternalCommit: Bool
    /// Whether the Commit must carry an UpdatePath (§12.4).
    public let pathRequired: Bool
    /// Leaves emptied by Remove and SelfRemove proposals, ascending.
    public let removedLeaves: [LeafIndex]
    /// Leaves replaced by Update proposals, ascending.
    public let updatedLeaves: [LeafIndex]
    /// The GroupContext extensions of the new epoch, when the list has a GroupContextExtensions or
    /// an AppDataUpdate proposal: the GroupContextExtensions proposal's list (or the current one)
    /// with the AppDataUpdates applied to its `app_data_dictionary` (draft-ietf-mls-extensions).
    public let newGroupContextExtensions: [Extension]?
}

/// Validates the resolved proposal list of a Commit, for the committer before sending and for every
/// receiver before applying (RFC 9420 §12.2, with the per-proposal rules of §12.1, sender rules of
/// §6.1/§12.1.8, the path rule of §12.4, and SelfRemove from draft-ietf-mls-extensions).
///
/// Add, Update and GroupContextExtensions are checked against the state they will meet (§12.3): the
/// new GroupContext extensions, Updates and Removes applied before Adds, and each Add seeing earlier
/// Adds. AppDataUpdates are applied after the GroupContextExtensions proposal (see
/// `AppDataUpdateRules`), so the new extensions every later check sees already carry them.
public struct ProposalListValidator: Sendable {
    public var keyPackageValidator: KeyPackageValidator

    public init(
        provider: CipherSuiteProvider = .mls128X25519, configuration: ValidationConfiguration = .init(),
        now: UInt64 = UnixTime.now
    ) {
        keyPackageValidator = KeyPackageValidator(provider: provider, configuration: configuration, now: now)
    }

    var leafValidator: LeafNodeValidator { keyPackageValidator.leafValidator }
    var provider: CipherSuiteProvider { leafValidator.provider }

    /// The §12.4 path rule: an UpdatePath is needed when the Commit covers no proposal or any proposal
    /// of a path-required type (everything but add, psk and reinit).
    public static func pathRequired<S: Sequence>(for proposalTypes: S) -> Bool where S.Element == ProposalType {
        var empty = true
        for type in proposalTypes {
            empty = false
            if type.requiresPath { return true }
        }
        return empty
    }

    /// Validates `proposals` as committed by `committer` (a member for a regular Commit,
    /// `.newMemberCommit` for an external one) against the current tree and GroupContext. With
    /// `hasPath`, also enforces the path rule; pass nil when the path is not decided yet.
    @discardableResult
    public func validate(
        _ proposals: [CommittedProposal], committer: Sender, tree: RatchetTree, groupContext: GroupContext,
        hasPath: Bool? = nil
    ) throws(ProposalListValidationError) -> ValidatedProposalList {
        switch committer {
        case .member(let leaf):
            guard tree.leafNode(at: leaf) != nil else { throw .committerNotMember(committer) }
            return try validateRegular(
                proposals, committer: leaf, tree: tree, groupContext: groupContext, hasPath: hasPath)
        case .newMemberCommit:
            return try validateExternal(proposals, tree: tree, groupContext: groupContext, hasPath: hasPath)
        case .external, .newMemberProposal:
            throw .committerNotMember(committer)
        }
    }

    // MARK: Regular Commit

    private func validateRegular(
        _ proposals: [CommittedProposal], committer: LeafIndex, tree: RatchetTree, groupContext: GroupContext,
        hasPath: Bool?
    ) throws(ProposalListValidationError) -> ValidatedProposalList {
        let types = proposals.map(\.proposal.type)
        if types.contains(.reinit), proposals.count > 1 { throw .reInitWithOtherProposals }
        if types.contains(.externalInit) { throw .externalInitInRegularCommit }
        if types.filter({ $0 == .groupContextExtensions }).count > 1 { throw .multipleGroupContextExtensions }

        let externalSenderCount = Self.externalSenderCount(groupContext)
        var changes = LeafChanges()
        var updates: [(LeafIndex, LeafNode)] = []
        var adds: [(Int, KeyPackage)] = []
        var psks = Set<PreSharedKeyID.Kind>()
        var newExtensions: [Extension]?
        var appDataUpdates: [(position: Int, update: AppDataUpdate)] = []

        for (position, item) in proposals.enumerated() {
            if item.isInline, item.sender != .member(leafIndex: committer) {
                throw .inlineProposalFromOtherSender(position: position)
            }
            try checkSender(item.sender, of: item.proposal.type, tree: tree, externalSenderCount: externalSenderCount)
            switch item.proposal {
            case .add(let add):
                adds.append((position, add.keyPackage))
            case .update(let update):
                guard case .member(let leaf) = item.sender else { throw .senderNotAllowed(.update, item.sender) }
                if leaf == committer { throw .updateByCommitter }
                try changes.claim(leaf)
                updates.append((leaf, update.leafNode))
            case .remove(let remove):
                try checkRemovable(remove.removed, in: tree)
                if remove.removed == committer { throw .removesCommitter }
                try changes.claim(remove.removed)
                changes.removed.insert(remove.removed)
            case .selfRemove:
                guard case .member(let leaf) = item.sender else { throw .senderNotAllowed(.selfRemove, item.sender) }
                if leaf == committer { throw .selfRemoveByCommitter }
                if item.isInline { throw .selfRemoveByValue(position: position) }
                try changes.claim(leaf)
                changes.removed.insert(leaf)
            case .preSharedKey(let psk):
                try checkPSK(psk.psk, seen: &psks)
            case .reInit(let reInit):
                if reInit.version.rawValue < groupContext.version.rawValue { throw .reInitVersionDowngrade(reInit.version) }
            case .externalInit:
                throw .externalInitInRegularCommit
            case .groupContextExtensions(let gce):
                if let first = appDataUpdates.first { throw .appDataUpdateBeforeGroupContextExtensions(position: first.position) }
                newExtensions = gce.extensions
            case .appDataUpdate(let update):
                appDataUpdates.append((position, update))
            case .unknown:
                break
            }
        }

        var context = groupContext
        if let newExtensions {
            try AppDataUpdateRules.checkGroupContextExtensions(newExtensions, current: groupContext.extensions)
            context.extensions = newExtensions
        }
        if !appDataUpdates.isEmpty {
            context.extensions = try AppDataUpdateRules.apply(appDataUpdates, to: context.extensions)
        }
        let extensionsReplaced = newExtensions != nil || !appDataUpdates.isEmpty

        for (leaf, node) in updates {
            do {
                try leafValidator.validate(
                    node, as: .update(leaf),
                    in: GroupValidationContext(groupContext: context, tree: tree, departingLeaves: changes.removed))
            } catch {
                throw .invalidUpdate(leaf, error)
            }
        }

        var provisional = tree
        do {
            for (leaf, node) in updates { try provisional.update(node, at: leaf) }
            for leaf in changes.removed.sorted() { try provisional.remove(leaf) }
        } catch {
            throw .tree(error)
        }
        try checkSupport(of: types, by: provisional)
        try checkAdds(adds, into: &provisional, context: context)

        if extensionsReplaced {
            do {
                try GroupContextExtensionsValidation.validate(context.extensions, tree: provisional)
            } catch {
                throw .invalidGroupContextExtensions(error)
            }
        }

        let pathRequired = Self.pathRequired(for: types)
        if hasPath == false, pathRequired { throw .pathRequired }
        return ValidatedProposalList(
            isExternalCommit: false, pathRequired: pathRequired, removedLeaves: changes.removed.sorted(),
            updatedLeaves: updates.map(\.0).sorted(),
            newGroupContextExtensions: extensionsReplaced ? context.extensions : nil)
    }

    /// Each Add against the provisional tree (after Updates, Removes and earlier Adds) and the new
    /// context; duplicates among Adds and against remaining members are reported first (§12.2).
    private func checkAdds(
        _ adds: [(Int, KeyPackage)], into provisional: inout RatchetTree, context: GroupContext
    ) throws(ProposalListValidationError) {
        guard !adds.isEmpty else { return }
        var signatureKeys = Set<SignaturePublicKey>()
        var hpkeKeys = Set<HPKEPublicKey>()
        var tree = TreeKeys(provisional, indexed: adds.count > TreeKeys.scanLimit)
        var compatibility = CredentialCompatibility(provisional)
        for (position, keyPackage) in adds {
            let leaf = keyPackage.leafNode
            guard signatureKeys.insert(leaf.signatureKey).inserted,
                  hpkeKeys.insert(keyPackage.initKey).inserted, hpkeKeys.insert(leaf.encryptionKey).inserted
            else { throw .duplicateAdd(position: position) }
            if let member = tree.member(signedBy: leaf.signatureKey, in: provisional) { throw .addOfExistingMember(member) }
            if tree.contains(keyPackage.initKey, in: provisional) || tree.contains(leaf.encryptionKey, in: provisional) {
                throw .keyPackageKeyInTree(position: position)
            }
            do {
                try keyPackageValidator.validateAdded(
                    keyPackage, in: GroupValidationContext(groupContext: context, tree: provisional),
                    compatibility: compatibility)
            } catch {
                throw .invalidKeyPackage(position: position, error)
            }
            do {
                let index = try provisional.add(leaf)
                tree.added(leaf, at: index)
                compatibility.insert(leaf, at: index, tree: provisional)
            } catch {
                throw .tree(error)
            }
        }
    }

    // MARK: External Commit

    private func validateExternal(
        _ proposals: [CommittedProposal], tree: RatchetTree, groupContext: GroupContext, hasPath: Bool?
    ) throws(ProposalListValidationError) -> ValidatedProposalList {
        let types = proposals.map(\.proposal.type)
        let externalInits = types.filter { $0 == .externalInit }.count
        guard externalInits == 1 else { throw .externalCommitExternalInitCount(externalInits) }

        let externalSenderCount = Self.externalSenderCount(groupContext)
        var changes = LeafChanges()
        var removeCount = 0
        var psks = Set<PreSharedKeyID.Kind>()

        for (position, item) in proposals.enumerated() {
            // SelfRemove proposals pending in the group are the one kind an external joiner includes
            // by reference (draft-ietf-mls-extensions).
            if case .selfRemove = item.proposal {
                if item.isInline { throw .selfRemoveByValue(position: position) }
                try checkSender(item.sender, of: .selfRemove, tree: tree, externalSenderCount: externalSenderCount)
                guard case .member(let leaf) = item.sender else { throw .senderNotAllowed(.selfRemove, item.sender) }
                try changes.claim(leaf)
                changes.removed.insert(leaf)
                continue
            }
            guard item.isInline else { throw .externalCommitByReference(position: position) }
            guard item.sender == .newMemberCommit else { throw .inlineProposalFromOtherSender(position: position) }
            switch item.proposal {
            case .externalInit:
                break
            case .remove(let remove):
                removeCount += 1
                if removeCount > 1 { throw .externalCommitMultipleRemoves }
                try checkRemovable(remove.removed, in: tree)
                try changes.claim(remove.removed)
                changes.removed.insert(remove.removed)
            case .preSharedKey(let psk):
                try checkPSK(psk.psk, seen: &psks)
            default:
                throw .notAllowedInExternalCommit(item.proposal.type)
            }
        }

        var provisional = tree
        do {
            for leaf in changes.removed.sorted() { try provisional.remove(leaf) }
        } catch {
            throw .tree(error)
        }
        try checkSupport(of: types, by: provisional)
        if hasPath == false { throw .pathRequired }
        return ValidatedProposalList(
            isExternalCommit: true, pathRequired: true, removedLeaves: changes.removed.sorted(), updatedLeaves: [],
            newGroupContextExtensions: nil)
    }

    // MARK: Shared rules

    /// Leaves touched by Update, Remove or SelfRemove; a second claim on one leaf is an error (§12.2).
    private struct LeafChanges {
        var claimed = Set<LeafIndex>()
        var removed = Set<LeafIndex>()

        mutating func claim(_ leaf: LeafIndex) throws(ProposalListValidationError) {
            guard claimed.insert(leaf).inserted else { throw .conflictingLeafChanges(leaf) }
        }
    }

    private static func externalSenderCount(_ context: GroupContext) -> Int {
        ((try? context.extensions.payload(ExternalSenders.self)) ?? nil)?.senders.count ?? 0
    }

    private func checkSender(
        _ sender: Sender, of type: ProposalType, tree: RatchetTree, externalSenderCount: Int
    ) throws(ProposalListValidationError) {
        guard type.canBeSent(by: sender) else { throw .senderNotAllowed(type, sender) }
        switch sender {
        case .member(let leaf):
            guard tree.leafNode(at: leaf) != nil else { throw .senderNotMember(leaf) }
        case .external(let index):
            guard Int(index) < externalSenderCount else { throw .unknownExternalSender(index) }
        case .newMemberProposal, .newMemberCommit:
            break
        }
    }

    private func checkRemovable(_ leaf: LeafIndex, in tree: RatchetTree) throws(ProposalListValidationError) {
        guard tree.size.contains(leaf) else { throw .removedLeafOutOfRange(leaf) }
        guard tree.leafNode(at: leaf) != nil else { throw .removedLeafBlank(leaf) }
    }

    private func checkPSK(_ id: PreSharedKeyID, seen: inout Set<PreSharedKeyID.Kind>) throws(ProposalListValidationError) {
        guard id.nonce.count == provider.hashLength else { throw .invalidPSKNonce(length: id.nonce.count) }
        if case .resumption(let usage, _, _) = id.kind, usage != .application { throw .pskUsageNotAllowed(usage) }
        guard seen.insert(id.kind).inserted else { throw .duplicatePSK(id) }
    }

    /// Every non-default proposal type must be supported by each member that will process the Commit:
    /// the members left after Updates and Removes, not the ones being added (§12.2).
    private func checkSupport(of types: [ProposalType], by tree: RatchetTree) throws(ProposalListValidationError) {
        var checked = Set<ProposalType>()
        for type in types where !type.isDefault && checked.insert(type).inserted {
            for (index, leaf) in tree.leaves where !leaf.capabilities.supports(.proposalType(type)) {
                throw .proposalTypeUnsupported(type, member: index)
            }
        }
    }
}
