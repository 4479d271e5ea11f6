import Foundation
import Testing
@testable import MLS

/// Commits created and processed in process between members (RFC 9420 §12.4, §12.1).
struct GroupCommitTests {
    @Test func selfUpdatesFromEachSideWithSignerRotation() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob"])
        let oldAliceKey = groups[0].signaturePublicKey
        let newAlice = SignaturePrivateKey.generate()
        let (_, results) = try GroupTest.commit(by: 0, in: &groups) {
            try $0.selfUpdate(signerRotation: SignerRotation(signer: newAlice))
        }
        guard case .commit(let summary) = results[0] else {
            Issue.record("expected a commit")
            return
        }
        #expect(summary.updated == [LeafIndex(0)])
        #expect(summary.committer == LeafIndex(0))
        GroupTest.expectInSync(groups)
        #expect(groups[0].signaturePublicKey == newAlice.publicKey)
        #expect(groups[1].member(at: LeafIndex(0))?.signatureKey == newAlice.publicKey)
        #expect(groups[1].member(at: LeafIndex(0))?.signatureKey != oldAliceKey)
        try GroupTest.send("signed with the new key", from: 0, in: &groups)

        // Credentials are immutable by default (MIP-00): a rotation may change the key, not the identity.
        let newBob = SignaturePrivateKey.generate()
        #expect(throws: GroupError.invalidLeafNode(.credentialChanged(member: LeafIndex(1)))) {
            try groups[1].selfUpdate(signerRotation: SignerRotation(signer: newBob, credential: .basic(identity: Data("bob2".utf8))))
        }
        try GroupTest.commit(by: 1, in: &groups) {
            try $0.selfUpdate(signerRotation: SignerRotation(signer: newBob))
        }
        GroupTest.expectInSync(groups)
        #expect(groups[0].member(at: LeafIndex(1))?.credential == .basic(identity: Data("bob".utf8)))
        #expect(groups[0].member(at: LeafIndex(1))?.signatureKey == newBob.publicKey)
        try GroupTest.send("bob rotated", from: 1, in: &groups)
        try GroupTest.send("alice answers", from: 0, in: &groups)
        #expect(groups[0].epoch == 3)
    }

    @Test func removeMember() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob", "carol"])
        let carolLate = try groups[2].encrypt(Data("sent before removal".utf8))
        let (pending, results) = try GroupTest.commit(by: 0, in: &groups) { try $0.commit(removing: [LeafIndex(2)]) }
        #expect(pending.summary.removed.map(\.leafIndex) == [LeafIndex(2)])
        guard case .commit(let bobView) = results[0], case .commit(let carolView) = results[1] else {
            Issue.record("expected commits")
            return
        }
        #expect(bobView.removed.map(\.credential) == [.basic(identity: Data("carol".utf8))])
        #expect(!bobView.removedSelf)
        #expect(carolView.removedSelf)
        #expect(!groups[2].isActive)
        #expect(throws: GroupError.notAMember) { try groups[2].encrypt(Data("x".utf8)) }
        #expect(throws: GroupError.notAMember) { try groups[2].selfUpdate() }

        var remaining = Array(groups.prefix(2))
        GroupTest.expectInSync(remaining)
        #expect(remaining[0].members.count == 2)
        #expect(remaining[0].tree.leafCount == 2, "the tree is truncated after the last member left (§7.7)")
        try GroupTest.send("just us", from: 1, in: &remaining)
        // A late message from the removed member's last epoch still decrypts for the others.
        guard case .application(let late) = try remaining[0].process(carolLate) else {
            Issue.record("expected the late message")
            return
        }
        #expect(late.epoch == 1)
        #expect(late.credential == .basic(identity: Data("carol".utf8)))
    }

    @Test func selfRemoveIsProposedPubliclyAndCommittedByAnother() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob", "carol"])
        let proposal = try groups[2].proposeSelfRemove()
        guard case .publicMessage(let publicMessage) = proposal.body else {
            Issue.record("SelfRemove must be a PublicMessage")
            return
        }
        #expect(publicMessage.membershipTag != nil)
        #expect(publicMessage.content.sender == .member(leafIndex: LeafIndex(2)))
        #expect(groups[2].proposals.count == 1, "the leaving member keeps its own proposal")
        guard case .ownProposal(let ownRef) = try groups[2].process(proposal) else {
            Issue.record("the echo is recognised")
            return
        }
        #expect(ownRef == groups[2].proposals[0].ref)
        for index in 0..<2 {
            guard case .proposal(let pending) = try groups[index].process(proposal) else {
                Issue.record("expected a proposal")
                return
            }
            #expect(pending.ref == ownRef)
            #expect(pending.sender == .member(leafIndex: LeafIndex(2)))
        }
        #expect(throws: GroupError.pendingProposals(1)) { try groups[1].encrypt(Data("x".utf8)) }
        #expect(throws: GroupError.invalidProposal("a member cannot commit its own SelfRemove")) {
            try groups[2].commit(proposals: [.selfRemove(SelfRemove())])
        }
        let (pending, results) = try GroupTest.commit(by: 1, in: &groups) { try $0.commit() }
        #expect(pending.summary.selfRemoved == [LeafIndex(2)])
        guard case .commit(let aliceView) = results[0], case .commit(let carolView) = results[1] else {
            Issue.record("expected commits")
            return
        }
        #expect(aliceView.selfRemoved == [LeafIndex(2)])
        #expect(aliceView.removed.map(\.leafIndex) == [LeafIndex(2)])
        #expect(carolView.removedSelf)
        #expect(!groups[2].isActive)
        var remaining = Array(groups.prefix(2))
        GroupTest.expectInSync(remaining)
        try GroupTest.send("carol left", from: 0, in: &remaining)
    }

    @Test func groupContextExtensionsUpdate() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob"])
        var newExtensions = GroupTestClient.marmotExtensions
        newExtensions[0] = Extension(type: .marmotGroupData, data: Data("group data v2".utf8))
        let (_, results) = try GroupTest.commit(by: 1, in: &groups) {
            try $0.commit(proposals: [.groupContextExtensions(GroupContextExtensions(extensions: newExtensions))])
        }
        guard case .commit(let summary) = results[0] else {
            Issue.record("expected a commit")
            return
        }
        #expect(summary.newExtensions == newExtensions)
        #expect(summary.extensionsChanged)
        GroupTest.expectInSync(groups)
        #expect(groups[0].extensions == newExtensions)

        // Requiring an extension no member supports is refused before anything is sent (§12.1.7).
        var unsupported = newExtensions
        unsupported.append(Extension(type: ExtensionType(rawValue: 0xBEEF), data: Data()))
        let before = groups[0].serialized()
        #expect(throws: GroupError.self) {
            try groups[0].commit(proposals: [.groupContextExtensions(GroupContextExtensions(extensions: unsupported))])
        }
        #expect(groups[0].serialized() == before)
    }

    @Test func lateApplicationMessageFromPreviousEpoch() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob"])
        let late = try groups[1].encrypt(Data("late".utf8))
        let lateProposal = try groups[1].proposeRemove(LeafIndex(0))
        try GroupTest.commit(by: 0, in: &groups) { try $0.selfUpdate() }
        #expect(groups[0].retainedEpochs == [0, 1])
        #expect(groups[1].retainedEpochs == [1], "the joiner starts at epoch 1")
        guard case .application(let app) = try groups[0].process(late) else {
            Issue.record("expected the late application message")
            return
        }
        #expect(app.epoch == 1)
        #expect(app.data == Data("late".utf8))
        // Handshake messages of a past epoch are refused.
        #expect(throws: GroupError.wrongEpoch(expected: 2, got: 1)) { try groups[0].process(lateProposal) }
        // Past epochs beyond the configured five are forgotten.
        for _ in 0..<6 { try GroupTest.commit(by: 0, in: &groups) { try $0.selfUpdate() } }
        #expect(groups[0].retainedEpochs == [3, 4, 5, 6, 7])
        GroupTest.expectInSync(groups)
    }

    @Test func discardedPendingCommitLeavesGroupUsable() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob"])
        let discarded = try groups[0].commit(forceUpdatePath: true)
        #expect(groups[0].epoch == 1)
        #expect(discarded.newGroup.epoch == 2)
        try GroupTest.send("still epoch 1", from: 0, in: &groups)
        try GroupTest.send("yes", from: 1, in: &groups)
        try GroupTest.commit(by: 0, in: &groups) { try $0.selfUpdate() }
        GroupTest.expectInSync(groups)
        // The discarded commit is now from a past epoch.
        #expect(throws: GroupError.wrongEpoch(expected: 2, got: 1)) { try groups[1].process(discarded.message) }
    }

    @Test func ownCommitComingBackIsIgnored() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob"])
        var alice = groups[0]
        let pending = try alice.commit(forceUpdatePath: true)
        #expect(throws: GroupError.ownMessage) { try alice.process(pending.message) }
        alice = pending.newGroup
        let before = alice.serialized()
        #expect(try alice.process(pending.message) == .ownCommit(epoch: 2))
        #expect(alice.serialized() == before)
        _ = try groups[1].process(pending.message)
        groups[0] = alice
        GroupTest.expectInSync(groups)
    }

    @Test func updateProposalCommittedByAnotherMember() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob"])
        let update = try groups[1].proposeUpdate()
        guard case .proposal(let pending) = try groups[0].process(update) else {
            Issue.record("expected a proposal")
            return
        }
        #expect(pending.proposal.type == .update)
        let (commit, results) = try GroupTest.commit(by: 0, in: &groups) { try $0.commit() }
        #expect(commit.summary.updated.contains(LeafIndex(1)))
        guard case .commit = results[0] else {
            Issue.record("expected a commit")
            return
        }
        GroupTest.expectInSync(groups)
        try GroupTest.send("after update", from: 1, in: &groups)
        try GroupTest.send("and back", from: 0, in: &groups)
        // Bob can now process a commit whose path is encrypted to his new leaf key.
        try GroupTest.commit(by: 0, in: &groups) { try $0.selfUpdate() }
        GroupTest.expectInSync(groups)
    }

    @Test func addProposalByReferenceThenWelcome() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob"])
        let (carolPackage, carolKeys) = try GroupTestClient("carol").keyPackage()
        let proposal = try groups[1].proposeAdd(carolPackage)
        _ = try groups[0].process(proposal)
        let (pending, _) = try GroupTest.commit(by: 0, in: &groups) { try $0.commit(forceUpdatePath: true) }
        let carol = try MLSGroup.join(
            welcome: try #require(pending.welcome), keyPackage: carolPackage, privateMaterial: carolKeys)
        groups.append(carol)
        GroupTest.expectInSync(groups)
        #expect(carol.ownLeafIndex == LeafIndex(2))
        for sender in groups.indices { try GroupTest.send("hi from \(sender)", from: sender, in: &groups) }
        try GroupTest.commit(by: 2, in: &groups) { try $0.selfUpdate() }
        GroupTest.expectInSync(groups)
    }

    @Test func externalPSKCommit() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob"])
        let id = Data("shared".utf8)
        let psks = [id: Data(repeating: 0x42, count: 32)]
        let pskID = PreSharedKeyID(kind: .external(pskID: id), nonce: GroupTestClient.provider.randomBytes(32))
        let pending = try groups[0].commit(proposals: [.preSharedKey(PreSharedKey(psk: pskID))], externalPSKs: psks)
        #expect(pending.summary.psks == [pskID])
        let before = groups[1].serialized()
        #expect(throws: GroupError.missingPSK(pskID)) { try groups[1].process(pending.message) }
        #expect(groups[1].serialized() == before)
        _ = try groups[1].process(pending.message, externalPSKs: psks)
        groups[0] = pending.newGroup
        GroupTest.expectInSync(groups)
    }

    @Test func resumptionPSKOfAPastEpoch() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob"])
        try GroupTest.commit(by: 1, in: &groups) { try $0.selfUpdate() }
        let pskID = PreSharedKeyID(
            kind: .resumption(usage: .application, groupID: groups[0].groupID, epoch: 1),
            nonce: GroupTestClient.provider.randomBytes(32))
        try GroupTest.commit(by: 0, in: &groups) { try $0.commit(proposals: [.preSharedKey(PreSharedKey(psk: pskID))]) }
        GroupTest.expectInSync(groups)
    }

    @Test func removedMemberProposalsAndCommitRules() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob"])
        #expect(throws: GroupError.invalidProposalList(.removesCommitter)) { try groups[0].commit(removing: [LeafIndex(0)]) }
        #expect(throws: GroupError.invalidProposalList(.removedLeafOutOfRange(LeafIndex(5)))) {
            try groups[0].commit(removing: [LeafIndex(5)])
        }
        let (bobAgain, _) = try GroupTestClient("bob").keyPackage()
        #expect(throws: GroupError.self) { try groups[0].commit(adding: [bobAgain, bobAgain]) }
        // A Remove of ourselves proposed by someone else is left out of our own commits.
        let removeAlice = try groups[1].proposeRemove(LeafIndex(0))
        _ = try groups[0].process(removeAlice)
        let pending = try groups[0].commit()
        #expect(pending.summary.removed.isEmpty)
    }
}

/// Configuration choices: framing, credential rule, persistence of the configuration itself.
struct GroupConfigurationTests {
    @Test func publicHandshakeFramingInterworks() throws {
        let configuration = GroupConfiguration(outgoingHandshake: .publicMessage, padding: .multiple(of: 32))
        var alice = try GroupTestClient("alice").createGroup(configuration: configuration)
        let (bobPackage, bobKeys) = try GroupTestClient("bob").keyPackage()
        let pending = try alice.commit(adding: [bobPackage], forceUpdatePath: true)
        guard case .publicMessage = pending.message.body else {
            Issue.record("configured for PublicMessage handshakes")
            return
        }
        alice = pending.newGroup
        let bob = try MLSGroup.join(
            welcome: try #require(pending.welcome), keyPackage: bobPackage, privateMaterial: bobKeys)
        var groups = [alice, bob]
        try GroupTest.commit(by: 1, in: &groups) { try $0.selfUpdate() }
        try GroupTest.commit(by: 0, in: &groups) { try $0.selfUpdate() }
        GroupTest.expectInSync(groups)
        try GroupTest.send("padded", from: 0, in: &groups)
        #expect(try MLSGroup(serialized: groups[0].serialized()).configuration == configuration)
    }

    @Test func marmotCredentialRuleRefusesOtherCredentials() throws {
        let key = Data(repeating: 0xAB, count: 32)
        let alice = GroupTestClient("alice")
        var group = try MLSGroup.create(
            groupID: GroupID(Data([1, 2, 3])), signer: alice.signer, credential: .basic(identity: key),
            capabilities: GroupTestClient.capabilities, groupContextExtensions: GroupTestClient.marmotExtensions,
            configuration: .marmot)
        #expect(group.configuration.credentialRule == .marmot)
        let (named, _) = try GroupTestClient("not a nostr key").keyPackage()
        let before = group.serialized()
        #expect(throws: GroupError.self) { try group.commit(adding: [named]) }
        #expect(group.serialized() == before)
        let (good, _) = try KeyPackage.create(
            credential: .basic(identity: Data(repeating: 0xCD, count: 32)), capabilities: GroupTestClient.capabilities)
        #expect(try group.commit(adding: [good]).summary.added.count == 1)
    }

    @Test func oneSelfRemovePerEpoch() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob"])
        _ = try groups[1].proposeSelfRemove()
        #expect(throws: GroupError.invalidProposal("a SelfRemove was already sent in this epoch")) {
            try groups[1].proposeSelfRemove()
        }
        groups[1].discardPendingProposals()
        #expect(groups[1].proposals.isEmpty)
        _ = try groups[1].encrypt(Data("no longer blocked".utf8))
    }

    @Test func expiredKeyPackageIsNotAdded() throws {
        var group = try GroupTestClient("alice").createGroup()
        let (expired, _) = try GroupTestClient("bob").keyPackage(lifetime: Lifetime(notBefore: 0, notAfter: 1000))
        #expect(throws: GroupError.self) { try group.commit(adding: [expired]) }
    }
}
