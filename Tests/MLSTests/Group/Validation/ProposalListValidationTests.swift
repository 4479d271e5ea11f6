import Foundation
import Testing
@testable import MLS

/// §12.2 rules over a four-member group (leaves 0–3), committed by leaf 0 unless said otherwise.
struct ProposalListValidationTests {
    let provider = Fixture.provider
    let validator = ProposalListValidator(now: Fixture.now)
    let committer = Sender.member(leafIndex: LeafIndex(0))

    func byReference(_ proposal: Proposal, from sender: Sender) -> CommittedProposal {
        CommittedProposal(proposal: proposal, sender: sender, reference: ProposalRef(provider.randomBytes(32)))
    }

    func byReference(_ proposal: Proposal, from leaf: UInt32) -> CommittedProposal {
        byReference(proposal, from: .member(leafIndex: LeafIndex(leaf)))
    }

    func inline(_ proposal: Proposal, from sender: Sender = .member(leafIndex: LeafIndex(0))) -> CommittedProposal {
        CommittedProposal(proposal: proposal, sender: sender)
    }

    func add(_ name: String, capabilities: Capabilities = .marmotDefault()) throws -> Proposal {
        .add(Add(keyPackage: try Fixture.client(name, capabilities: capabilities).keyPackage))
    }

    func remove(_ leaf: UInt32) -> Proposal { .remove(Remove(removed: LeafIndex(leaf))) }

    func psk(_ id: String, nonceLength: Int = 32) -> Proposal {
        .preSharedKey(PreSharedKey(psk: PreSharedKeyID(
            kind: .external(pskID: Data(id.utf8)), nonce: provider.randomBytes(nonceLength))))
    }

    @discardableResult
    func validate(
        _ proposals: [CommittedProposal], in group: TestGroup, committer: Sender? = nil, hasPath: Bool? = nil
    ) throws -> ValidatedProposalList {
        try validator.validate(
            proposals, committer: committer ?? self.committer, tree: group.tree, groupContext: group.context,
            hasPath: hasPath)
    }

    // MARK: Valid lists

    @Test func mixedListValidates() throws {
        let group = try Fixture.group(4)
        let result = try validate([
            inline(try add("new")),
            byReference(.update(Update(leafNode: try group.renewedLeaf(1))), from: 1),
            inline(remove(2)),
            byReference(.selfRemove(SelfRemove()), from: 3),
            inline(psk("a")),
        ], in: group, hasPath: true)
        #expect(!result.isExternalCommit)
        #expect(result.pathRequired)
        #expect(result.removedLeaves == [LeafIndex(2), LeafIndex(3)])
        #expect(result.updatedLeaves == [LeafIndex(1)])
        #expect(result.newGroupContextExtensions == nil)
    }

    @Test func pathRule() throws {
        let group = try Fixture.group(4)
        let addOnly = try validate([inline(try add("a")), inline(psk("p"))], in: group, hasPath: false)
        #expect(!addOnly.pathRequired)
        #expect(throws: ProposalListValidationError.pathRequired) { try validate([], in: group, hasPath: false) }
        #expect(try validate([], in: group, hasPath: true).pathRequired)
        #expect(throws: ProposalListValidationError.pathRequired) {
            try validate([byReference(.selfRemove(SelfRemove()), from: 2)], in: group, hasPath: false)
        }
        #expect(throws: ProposalListValidationError.pathRequired) {
            try validate([inline(remove(3))], in: group, hasPath: false)
        }

        let required: [ProposalType] = [.update, .remove, .externalInit, .groupContextExtensions, .selfRemove, ProposalType(rawValue: 0xF001)]
        for type in required { #expect(ProposalListValidator.pathRequired(for: [type])) }
        for type in [ProposalType.add, .psk, .reinit] { #expect(!ProposalListValidator.pathRequired(for: [type])) }
        #expect(ProposalListValidator.pathRequired(for: []))
        #expect(!ProposalListValidator.pathRequired(for: [.add, .psk, .add]))
    }

    // MARK: Adds

    @Test func duplicateAddsAreRejected() throws {
        let group = try Fixture.group(4)
        let proposal = try add("twice")
        #expect(throws: ProposalListValidationError.duplicateAdd(position: 1)) {
            try validate([inline(proposal), inline(proposal)], in: group)
        }
        // Same signature key, different HPKE keys.
        let signer = provider.generateSignatureKey()
        let first = try Fixture.client("first", signer: signer), second = try Fixture.client("second", signer: signer)
        #expect(throws: ProposalListValidationError.duplicateAdd(position: 2)) {
            try validate([
                inline(.add(Add(keyPackage: first.keyPackage))), inline(psk("x")),
                inline(.add(Add(keyPackage: second.keyPackage))),
            ], in: group)
        }
    }

    @Test func addOfExistingMemberIsRejectedUnlessRemoved() throws {
        let group = try Fixture.group(4)
        let again = try Fixture.client("member 2 again", signer: group.members[2].signer)
        #expect(throws: ProposalListValidationError.addOfExistingMember(LeafIndex(2))) {
            try validate([inline(.add(Add(keyPackage: again.keyPackage)))], in: group)
        }
        try validate([inline(remove(2)), inline(.add(Add(keyPackage: again.keyPackage)))], in: group)
    }

    @Test func addWithKeysAlreadyInTreeIsRejected() throws {
        let group = try Fixture.group(4)
        var client = try Fixture.client("copycat")
        client.keyPackage.leafNode.encryptionKey = group.members[3].leaf.encryptionKey
        try Fixture.resign(&client.keyPackage, with: client.signer)
        #expect(throws: ProposalListValidationError.keyPackageKeyInTree(position: 0)) {
            try validate([inline(.add(Add(keyPackage: client.keyPackage)))], in: group)
        }
        var initClash = try Fixture.client("init clash")
        initClash.keyPackage.initKey = group.members[1].leaf.encryptionKey
        try Fixture.resign(&initClash.keyPackage, with: initClash.signer)
        #expect(throws: ProposalListValidationError.keyPackageKeyInTree(position: 0)) {
            try validate([inline(.add(Add(keyPackage: initClash.keyPackage)))], in: group)
        }
    }

    /// The same refusals when the Add comes after more Adds than `TreeKeys.scanLimit`, where the
    /// tree's keys are indexed instead of scanned (issue 27).
    @Test(arguments: [0, TreeKeys.scanLimit + 1])
    func addChecksAgreeAloneAndInABatch(others: Int) throws {
        let group = try Fixture.group(4)
        let fresh = try (0..<others).map { inline(try add("fresh \($0)")) }
        let again = try Fixture.client("member 2 again", signer: group.members[2].signer)
        #expect(throws: ProposalListValidationError.addOfExistingMember(LeafIndex(2))) {
            try validate(fresh + [inline(.add(Add(keyPackage: again.keyPackage)))], in: group)
        }
        var copycat = try Fixture.client("copycat")
        copycat.keyPackage.leafNode.encryptionKey = group.members[3].leaf.encryptionKey
        try Fixture.resign(&copycat.keyPackage, with: copycat.signer)
        #expect(throws: ProposalListValidationError.keyPackageKeyInTree(position: others)) {
            try validate(fresh + [inline(.add(Add(keyPackage: copycat.keyPackage)))], in: group)
        }
        var initClash = try Fixture.client("init clash")
        initClash.keyPackage.initKey = group.members[1].leaf.encryptionKey
        try Fixture.resign(&initClash.keyPackage, with: initClash.signer)
        #expect(throws: ProposalListValidationError.keyPackageKeyInTree(position: others)) {
            try validate(fresh + [inline(.add(Add(keyPackage: initClash.keyPackage)))], in: group)
        }
        let result = try validate(fresh + [inline(try add("one more"))], in: group)
        #expect(!result.pathRequired)
    }

    @Test func invalidKeyPackageInAddIsRejected() throws {
        let group = try Fixture.group(4)
        let expired = try Fixture.client("expired", lifetime: Lifetime(notBefore: 0, notAfter: Fixture.now - 1))
        #expect(throws: ProposalListValidationError.invalidKeyPackage(
            position: 1, .expired(notAfter: Fixture.now - 1, now: Fixture.now))) {
            try validate([inline(psk("p")), inline(.add(Add(keyPackage: expired.keyPackage)))], in: group)
        }
        #expect(throws: ProposalListValidationError.invalidKeyPackage(
            position: 0, .missingRequiredCapability(.proposalType(.selfRemove)))) {
            try validate([inline(try add("lacking", capabilities: Fixture.noSelfRemove))], in: group)
        }
    }

    // MARK: Update, Remove, SelfRemove

    @Test func leafReferencesMustBeMembers() throws {
        var group = try Fixture.group(4)
        try group.tree.remove(LeafIndex(2))
        #expect(throws: ProposalListValidationError.removedLeafBlank(LeafIndex(2))) {
            try validate([inline(remove(2))], in: group)
        }
        #expect(throws: ProposalListValidationError.removedLeafOutOfRange(LeafIndex(9))) {
            try validate([inline(remove(9))], in: group)
        }
        #expect(throws: ProposalListValidationError.senderNotMember(LeafIndex(2))) {
            try validate([byReference(.selfRemove(SelfRemove()), from: 2)], in: group)
        }
        let update = Update(leafNode: try group.renewedLeaf(2))
        #expect(throws: ProposalListValidationError.senderNotMember(LeafIndex(2))) {
            try validate([byReference(.update(update), from: 2)], in: group)
        }
        #expect(throws: ProposalListValidationError.senderNotMember(LeafIndex(7))) {
            try validate([byReference(remove(1), from: 7)], in: group)
        }
    }

    @Test func oneChangePerLeaf() throws {
        let group = try Fixture.group(4)
        let update = byReference(.update(Update(leafNode: try group.renewedLeaf(1))), from: 1)
        #expect(throws: ProposalListValidationError.conflictingLeafChanges(LeafIndex(1))) {
            try validate([update, inline(remove(1))], in: group)
        }
        #expect(throws: ProposalListValidationError.conflictingLeafChanges(LeafIndex(2))) {
            try validate([inline(remove(2)), byReference(remove(2), from: 3)], in: group)
        }
        #expect(throws: ProposalListValidationError.conflictingLeafChanges(LeafIndex(3))) {
            try validate([byReference(.selfRemove(SelfRemove()), from: 3), inline(remove(3))], in: group)
        }
        #expect(throws: ProposalListValidationError.conflictingLeafChanges(LeafIndex(1))) {
            try validate([update, byReference(.update(Update(leafNode: try group.renewedLeaf(1))), from: 1)], in: group)
        }
    }

    @Test func committerMayNotUpdateRemoveOrSelfRemoveItself() throws {
        let group = try Fixture.group(4)
        let ownUpdate = Update(leafNode: try group.renewedLeaf(0))
        #expect(throws: ProposalListValidationError.updateByCommitter) {
            try validate([byReference(.update(ownUpdate), from: 0)], in: group)
        }
        #expect(throws: ProposalListValidationError.updateByCommitter) { try validate([inline(.update(ownUpdate))], in: group) }
        #expect(throws: ProposalListValidationError.removesCommitter) {
            try validate([byReference(remove(0), from: 1)], in: group)
        }
        #expect(throws: ProposalListValidationError.selfRemoveByCommitter) {
            try validate([byReference(.selfRemove(SelfRemove()), from: 0)], in: group)
        }
        #expect(throws: ProposalListValidationError.selfRemoveByCommitter) {
            try validate([inline(.selfRemove(SelfRemove()))], in: group)
        }
    }

    @Test func invalidUpdateLeafIsRejected() throws {
        let group = try Fixture.group(4)
        let stale = Update(leafNode: try group.renewedLeaf(1, encryptionKey: group.members[1].leaf.encryptionKey))
        #expect(throws: ProposalListValidationError.invalidUpdate(LeafIndex(1), .encryptionKeyNotRefreshed)) {
            try validate([byReference(.update(stale), from: 1)], in: group)
        }
        let wrongSource = Update(leafNode: group.members[1].leaf)
        #expect(throws: ProposalListValidationError.invalidUpdate(
            LeafIndex(1), .unexpectedSource(expected: .update, actual: .keyPackage))) {
            try validate([byReference(.update(wrongSource), from: 1)], in: group)
        }
        // Signed for another leaf than its sender's.
        let misplaced = Update(leafNode: try group.renewedLeaf(1, signedAt: 3))
        #expect(throws: ProposalListValidationError.invalidUpdate(LeafIndex(1), .badSignature)) {
            try validate([byReference(.update(misplaced), from: 1)], in: group)
        }
    }

    // MARK: GroupContextExtensions

    @Test func groupContextExtensionRules() throws {
        let group = try Fixture.group(4, capabilities: { $0 == 3 ? Fixture.noSelfRemove : .marmotDefault() }, extensions: [
            Extension(type: .marmotGroupData, data: Data([0, 2])),
        ])
        let gce = Proposal.groupContextExtensions(GroupContextExtensions(extensions: Fixture.marmotExtensions))
        #expect(throws: ProposalListValidationError.multipleGroupContextExtensions) {
            try validate([inline(gce), inline(gce)], in: group)
        }
        // Member 3 lacks self_remove, which the new required_capabilities demand.
        #expect(throws: ProposalListValidationError.invalidGroupContextExtensions(
            .unsupportedByMember(LeafIndex(3), .proposalType(.selfRemove)))) {
            try validate([inline(gce)], in: group)
        }
        // Removing member 3 in the same Commit makes it valid.
        let result = try validate([inline(gce), inline(remove(3))], in: group)
        #expect(result.newGroupContextExtensions == Fixture.marmotExtensions)

        // Adds in the same Commit are checked against the new extensions.
        #expect(throws: ProposalListValidationError.invalidKeyPackage(
            position: 2, .missingRequiredCapability(.proposalType(.selfRemove)))) {
            try validate([inline(gce), inline(remove(3)), inline(try add("old client", capabilities: Fixture.noSelfRemove))], in: group)
        }

        // An extension type a member does not list.
        let unknown = Proposal.groupContextExtensions(GroupContextExtensions(extensions: [
            Extension(type: ExtensionType(rawValue: 0xF0F0), data: Data()),
        ]))
        #expect(throws: ProposalListValidationError.invalidGroupContextExtensions(
            .unsupportedByMember(LeafIndex(0), .extensionType(ExtensionType(rawValue: 0xF0F0))))) {
            try validate([inline(unknown)], in: group)
        }
        let duplicate = Proposal.groupContextExtensions(GroupContextExtensions(extensions: [
            Extension(type: .marmotGroupData, data: Data()), Extension(type: .marmotGroupData, data: Data([1])),
        ]))
        #expect(throws: ProposalListValidationError.invalidGroupContextExtensions(.duplicateExtension(.marmotGroupData))) {
            try validate([inline(duplicate)], in: group)
        }
        let malformed = Proposal.groupContextExtensions(GroupContextExtensions(extensions: [
            Extension(type: .requiredCapabilities, data: Data([0x05])),
        ]))
        #expect(throws: ProposalListValidationError.invalidGroupContextExtensions(.malformedRequiredCapabilities)) {
            try validate([inline(malformed)], in: group)
        }
    }

    @Test func groupContextExtensionsHelper() throws {
        let group = try Fixture.group(3, capabilities: { $0 == 1 ? Fixture.noSelfRemove : .marmotDefault() }, extensions: [])
        try GroupContextExtensionsValidation.validate([Extension(type: .marmotGroupData, data: Data())], tree: group.tree)
        #expect(throws: GroupContextExtensionsError.unsupportedByMember(LeafIndex(1), .proposalType(.selfRemove))) {
            try GroupContextExtensionsValidation.validate(Fixture.marmotExtensions, tree: group.tree)
        }
        try GroupContextExtensionsValidation.validate(Fixture.marmotExtensions, tree: group.tree, excluding: [LeafIndex(1)])
    }

    // MARK: PSK, ReInit, ExternalInit

    @Test func pskRules() throws {
        let group = try Fixture.group(4)
        let first = psk("same")
        guard case .preSharedKey(let second) = psk("same") else { return }
        #expect(throws: ProposalListValidationError.duplicatePSK(second.psk)) {
            try validate([inline(first), inline(.preSharedKey(second))], in: group)
        }
        #expect(throws: ProposalListValidationError.invalidPSKNonce(length: 16)) {
            try validate([inline(psk("short", nonceLength: 16))], in: group)
        }
        let reinitPSK = Proposal.preSharedKey(PreSharedKey(psk: PreSharedKeyID(
            kind: .resumption(usage: .reinit, groupID: group.context.groupID, epoch: 2), nonce: provider.randomBytes(32))))
        #expect(throws: ProposalListValidationError.pskUsageNotAllowed(.reinit)) { try validate([inline(reinitPSK)], in: group) }
        try validate([inline(psk("one")), inline(psk("two"))], in: group)
    }

    @Test func reInitRules() throws {
        let group = try Fixture.group(4)
        let reInit = Proposal.reInit(ReInit(
            groupID: GroupID(Data("next".utf8)), version: .mls10, cipherSuite: .mls128X25519AES128GCMSHA256Ed25519,
            extensions: []))
        #expect(try !validate([inline(reInit)], in: group, hasPath: false).pathRequired)
        #expect(throws: ProposalListValidationError.reInitWithOtherProposals) {
            try validate([inline(reInit), inline(psk("p"))], in: group)
        }
        let downgrade = Proposal.reInit(ReInit(
            groupID: GroupID(Data()), version: .reserved, cipherSuite: .mls128X25519AES128GCMSHA256Ed25519, extensions: []))
        #expect(throws: ProposalListValidationError.reInitVersionDowngrade(.reserved)) { try validate([inline(downgrade)], in: group) }
    }

    @Test func externalInitOnlyInExternalCommits() throws {
        let group = try Fixture.group(4)
        #expect(throws: ProposalListValidationError.externalInitInRegularCommit) {
            try validate([inline(.externalInit(ExternalInit(kemOutput: Data(count: 32))))], in: group)
        }
    }

    // MARK: Support and senders

    @Test func proposalTypesMustBeSupportedByRemainingMembers() throws {
        let group = try Fixture.group(4, capabilities: { $0 == 3 ? Fixture.noSelfRemove : .marmotDefault() }, extensions: [])
        #expect(throws: ProposalListValidationError.proposalTypeUnsupported(.selfRemove, member: LeafIndex(3))) {
            try validate([byReference(.selfRemove(SelfRemove()), from: 2)], in: group)
        }
        // Members leaving in this Commit need not support it.
        try validate([byReference(.selfRemove(SelfRemove()), from: 2), inline(remove(3))], in: group)
        // A custom type nobody lists.
        let custom = ProposalType(rawValue: 0xF001)
        #expect(throws: ProposalListValidationError.proposalTypeUnsupported(custom, member: LeafIndex(0))) {
            try validate([inline(.unknown(type: custom, body: Data()))], in: group)
        }
    }

    @Test func senderTypesPerProposalType() throws {
        let external = Sender.external(senderIndex: 0)
        for type in [ProposalType.add, .remove, .psk, .reinit, .groupContextExtensions] { #expect(type.canBeSent(by: external)) }
        for type in [ProposalType.update, .externalInit, .selfRemove, ProposalType(rawValue: 0xF001)] {
            #expect(!type.canBeSent(by: external))
        }
        #expect(ProposalType.add.canBeSent(by: .newMemberProposal))
        #expect(!ProposalType.remove.canBeSent(by: .newMemberProposal))
        #expect(!ProposalType.externalInit.canBeSent(by: .member(leafIndex: LeafIndex(0))))
        #expect(ProposalType.selfRemove.canBeSent(by: .member(leafIndex: LeafIndex(0))))
        for type in [ProposalType.externalInit, .remove, .psk] { #expect(type.canBeSent(by: .newMemberCommit)) }
        #expect(!ProposalType.add.canBeSent(by: .newMemberCommit))

        var group = try Fixture.group(4)
        let updateLeaf = try group.renewedLeaf(1)
        #expect(throws: ProposalListValidationError.senderNotAllowed(.update, external)) {
            try validate([byReference(.update(Update(leafNode: updateLeaf)), from: external)], in: group)
        }
        #expect(throws: ProposalListValidationError.senderNotAllowed(.selfRemove, external)) {
            try validate([byReference(.selfRemove(SelfRemove()), from: external)], in: group)
        }
        #expect(throws: ProposalListValidationError.senderNotAllowed(.remove, .newMemberProposal)) {
            try validate([byReference(remove(1), from: .newMemberProposal)], in: group)
        }
        try validate([byReference(try add("self-proposed"), from: .newMemberProposal)], in: group)

        // External senders must be configured in the GroupContext.
        #expect(throws: ProposalListValidationError.unknownExternalSender(0)) {
            try validate([byReference(remove(1), from: external)], in: group)
        }
        let sender = ExternalSender(
            signatureKey: provider.generateSignatureKey().publicKey, credential: .basic(identity: Data("service".utf8)))
        group.context.extensions.append(Extension(ExternalSenders(senders: [sender])))
        try validate([byReference(remove(1), from: external)], in: group)
        #expect(throws: ProposalListValidationError.unknownExternalSender(1)) {
            try validate([byReference(remove(1), from: .external(senderIndex: 1))], in: group)
        }
    }

    @Test func committerAndInlineSenders() throws {
        var group = try Fixture.group(4)
        #expect(throws: ProposalListValidationError.inlineProposalFromOtherSender(position: 0)) {
            try validate([inline(psk("p"), from: .member(leafIndex: LeafIndex(1)))], in: group)
        }
        try group.tree.remove(LeafIndex(2))
        #expect(throws: ProposalListValidationError.committerNotMember(.member(leafIndex: LeafIndex(2)))) {
            try validate([], in: group, committer: .member(leafIndex: LeafIndex(2)))
        }
        #expect(throws: ProposalListValidationError.committerNotMember(.external(senderIndex: 0))) {
            try validate([], in: group, committer: .external(senderIndex: 0))
        }
    }

    // MARK: External Commit

    @Test func externalCommitRules() throws {
        let group = try Fixture.group(4)
        let joiner = Sender.newMemberCommit
        let externalInit = inline(.externalInit(ExternalInit(kemOutput: Data(count: 32))), from: joiner)
        let result = try validate([
            externalInit, inline(remove(1), from: joiner), inline(psk("p"), from: joiner),
            byReference(.selfRemove(SelfRemove()), from: 2),
        ], in: group, committer: joiner, hasPath: true)
        #expect(result.isExternalCommit && result.pathRequired)
        #expect(result.removedLeaves == [LeafIndex(1), LeafIndex(2)])

        #expect(throws: ProposalListValidationError.externalCommitExternalInitCount(0)) {
            try validate([inline(remove(1), from: joiner)], in: group, committer: joiner)
        }
        #expect(throws: ProposalListValidationError.externalCommitExternalInitCount(2)) {
            try validate([externalInit, externalInit], in: group, committer: joiner)
        }
        #expect(throws: ProposalListValidationError.externalCommitMultipleRemoves) {
            try validate([externalInit, inline(remove(1), from: joiner), inline(remove(2), from: joiner)], in: group, committer: joiner)
        }
        #expect(throws: ProposalListValidationError.notAllowedInExternalCommit(.add)) {
            try validate([externalInit, inline(try add("x"), from: joiner)], in: group, committer: joiner)
        }
        #expect(throws: ProposalListValidationError.externalCommitByReference(position: 1)) {
            try validate([externalInit, byReference(remove(1), from: 3)], in: group, committer: joiner)
        }
        #expect(throws: ProposalListValidationError.selfRemoveByValue(position: 1)) {
            try validate([externalInit, inline(.selfRemove(SelfRemove()), from: joiner)], in: group, committer: joiner)
        }
        #expect(throws: ProposalListValidationError.conflictingLeafChanges(LeafIndex(2))) {
            try validate([externalInit, byReference(.selfRemove(SelfRemove()), from: 2), inline(remove(2), from: joiner)],
                         in: group, committer: joiner)
        }
        #expect(throws: ProposalListValidationError.pathRequired) {
            try validate([externalInit], in: group, committer: joiner, hasPath: false)
        }
    }
}
