import Foundation
import Testing
@testable import MLS

/// Forged, tampered and malformed input is rejected with a specific error and changes nothing.
struct GroupRejectionTests {
    /// Processing `message` fails with `expected` and leaves the serialized state identical.
    func expectRejected(
        _ message: MLSMessage, by group: inout MLSGroup, _ expected: GroupError, externalPSKs: [Data: Data] = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let before = group.serialized()
        #expect(throws: expected, sourceLocation: sourceLocation) { try group.process(message, externalPSKs: externalPSKs) }
        #expect(group.serialized() == before, "state changed", sourceLocation: sourceLocation)
    }

    /// The commit's AuthenticatedContent as the receiver opens it.
    func openCommit(_ message: MLSMessage, with group: MLSGroup) throws -> (Commit, AuthenticatedContent) {
        let (content, _) = try group.open(message)
        guard case .commit(let commit) = content.content.body else { throw GroupError.malformedMessage("not a commit") }
        return (commit, content)
    }

    /// Re-signs `commit` as the member of `group` would, with the given confirmation tag, so that only
    /// the deliberate defect makes it invalid.
    func forge(_ commit: Commit, tag: Data, as group: inout MLSGroup) throws -> MLSMessage {
        var authenticated = try group.sign(
            group.framedContent(.commit(commit), authenticatedData: Data()), wireFormat: .privateMessage)
        authenticated.auth.confirmationTag = tag
        return try group.protect(authenticated)
    }

    @Test func tamperedCiphertext() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob"])
        let message = try groups[0].encrypt(Data("secret".utf8))
        guard case .privateMessage(var privateMessage) = message.body else { return }
        privateMessage.ciphertext[privateMessage.ciphertext.count - 1] ^= 1
        expectRejected(MLSMessage(.privateMessage(privateMessage)), by: &groups[1], .decryptionFailed)
        privateMessage.encryptedSenderData[0] ^= 1
        expectRejected(MLSMessage(.privateMessage(privateMessage)), by: &groups[1], .decryptionFailed)
        // The untampered message still decrypts afterwards: the failed attempts consumed nothing.
        _ = try groups[1].process(message)
    }

    @Test func wrongEpochAndGroup() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob"])
        let message = try groups[0].encrypt(Data("x".utf8))
        guard case .privateMessage(var privateMessage) = message.body else { return }
        privateMessage.epoch = 7
        expectRejected(MLSMessage(.privateMessage(privateMessage)), by: &groups[1], .wrongEpoch(expected: 1, got: 7))
        privateMessage.epoch = 1
        privateMessage.groupID = GroupID(Data([9, 9]))
        expectRejected(MLSMessage(.privateMessage(privateMessage)), by: &groups[1], .wrongGroupID(GroupID(Data([9, 9]))))
        let proposal = try groups[0].proposeRemove(LeafIndex(1))
        try GroupTest.commit(by: 1, in: &groups) { try $0.selfUpdate() }
        expectRejected(proposal, by: &groups[1], .wrongEpoch(expected: 2, got: 1))
    }

    @Test func forgedSignature() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob"])
        // A PrivateMessage from Alice's leaf, signed with a key that is not hers.
        let content = groups[0].framedContent(.application(Data("forged".utf8)), authenticatedData: Data())
        let forged = try AuthenticatedContent.sign(
            content, wireFormat: .privateMessage, groupContext: groups[0].groupContext, signer: .generate(),
            provider: GroupTestClient.provider)
        let message = try groups[0].protect(forged)
        expectRejected(message, by: &groups[1], .badSignature)
        // A PublicMessage whose signature was altered: the membership tag, which covers it, fails first.
        let selfRemove = try groups[0].proposeSelfRemove()
        guard case .publicMessage(var publicMessage) = selfRemove.body else { return }
        publicMessage.auth.signature[0] ^= 1
        expectRejected(MLSMessage(.publicMessage(publicMessage)), by: &groups[1], .badMembershipTag)
        publicMessage.membershipTag = nil
        expectRejected(MLSMessage(.publicMessage(publicMessage)), by: &groups[1], .badMembershipTag)
    }

    @Test func tamperedUpdatePath() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob", "carol"])
        var alice = groups[0]
        let pending = try alice.commit(forceUpdatePath: true)
        let (commit, content) = try openCommit(pending.message, with: groups[1])
        let tag = try #require(content.auth.confirmationTag)
        let path = try #require(commit.path)

        // A path secret ciphertext that does not open.
        var badCiphertext = commit
        badCiphertext.path?.nodes[0].encryptedPathSecret[0].ciphertext[0] ^= 1
        let node = try #require(groups[1].tree.filteredDirectPath(of: LeafIndex(0)).first?.node)
        expectRejected(try forge(badCiphertext, tag: tag, as: &alice), by: &groups[1], .tree(.pathSecretDecryptionFailed(node)))

        // A path node key swapped: the parent hash chain no longer matches the leaf.
        var badKey = commit
        badKey.path?.nodes[0].encryptionKey = HPKEPrivateKey.generate().publicKey
        expectRejected(try forge(badKey, tag: tag, as: &alice), by: &groups[1], .tree(.leafParentHashMismatch(LeafIndex(0))))

        // A leaf whose signature does not verify.
        var badLeaf = commit
        badLeaf.path?.leafNode.signature[0] ^= 1
        expectRejected(
            try forge(badLeaf, tag: tag, as: &alice), by: &groups[1], .invalidLeafNode(.badSignature))

        // Too few path nodes.
        var short = commit
        short.path?.nodes.removeLast()
        expectRejected(
            try forge(short, tag: tag, as: &alice), by: &groups[1],
            .tree(.pathLengthMismatch(expected: path.nodes.count, actual: path.nodes.count - 1)))

        // The genuine commit still works.
        _ = try groups[1].process(pending.message)
    }

    @Test func badConfirmationTag() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob"])
        var alice = groups[0]
        let pending = try alice.commit(forceUpdatePath: true)
        let (commit, content) = try openCommit(pending.message, with: groups[1])
        var tag = try #require(content.auth.confirmationTag)
        tag[0] ^= 1
        expectRejected(try forge(commit, tag: tag, as: &alice), by: &groups[1], .badConfirmationTag)
    }

    @Test func missingPathAndProposalAndSelfReference() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob", "carol"])
        var alice = groups[0]
        let tag = Data(repeating: 0, count: 32)
        // A Remove requires a path (§12.4).
        let noPath = Commit(proposals: [.proposal(.remove(Remove(removed: LeafIndex(2))))], path: nil)
        expectRejected(try forge(noPath, tag: tag, as: &alice), by: &groups[1], .pathRequired)
        // So does an empty commit.
        expectRejected(try forge(Commit(proposals: [], path: nil), tag: tag, as: &alice), by: &groups[1], .pathRequired)
        // A reference to a proposal never received.
        let ref = ProposalRef(Data(repeating: 7, count: 32))
        expectRejected(
            try forge(Commit(proposals: [.reference(ref)], path: nil), tag: tag, as: &alice), by: &groups[1],
            .missingProposal(ref))
        // The committer removing itself.
        let selfRemoval = Commit(proposals: [.proposal(.remove(Remove(removed: LeafIndex(0))))], path: nil)
        expectRejected(try forge(selfRemoval, tag: tag, as: &alice), by: &groups[1], .invalidProposalList(.removesCommitter))
        // Removing a blank leaf.
        let blank = Commit(proposals: [.proposal(.remove(Remove(removed: LeafIndex(3))))], path: nil)
        expectRejected(
            try forge(blank, tag: tag, as: &alice), by: &groups[1], .invalidProposalList(.removedLeafBlank(LeafIndex(3))))
    }

    @Test func truncatedAndWrongKindOfBytes() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob"])
        let message = try groups[0].encrypt(Data("x".utf8)).tlsSerialized
        let before = groups[1].serialized()
        for cut in [1, 5, message.count / 2, message.count - 1] {
            #expect(throws: GroupError.self) { try groups[1].process(bytes: message.prefix(cut)) }
        }
        #expect(throws: GroupError.self) { try groups[1].process(bytes: message + Data([0])) }
        #expect(groups[1].serialized() == before)
        let (keyPackage, _) = try GroupTestClient("dave").keyPackage()
        expectRejected(
            MLSMessage(.keyPackage(keyPackage)), by: &groups[1],
            .unsupportedMessage("wire format 0x0005 is not a group message"))
        _ = try groups[1].process(bytes: message)
    }

    @Test func publicHandshakesCanBeRefused() throws {
        let alice = GroupTestClient("alice")
        var group = try alice.createGroup(configuration: GroupConfiguration(acceptPublicHandshakes: false))
        let (bobPackage, bobKeys) = try GroupTestClient("bob").keyPackage()
        let pending = try group.commit(adding: [bobPackage])
        group = pending.newGroup
        var bob = try MLSGroup.join(
            welcome: try #require(pending.welcome), keyPackage: bobPackage, privateMaterial: bobKeys,
            configuration: GroupConfiguration(acceptPublicHandshakes: false))
        let proposal = try group.proposeSelfRemove()
        expectRejected(proposal, by: &bob, .wireFormatNotAllowed(.publicMessage))
    }

    @Test func welcomeWithWrongKeysOrTreeIsRejected() throws {
        var alice = try GroupTestClient("alice").createGroup()
        let bob = GroupTestClient("bob")
        let (bobPackage, bobKeys) = try bob.keyPackage()
        let (_, otherKeys) = try bob.keyPackage()
        let pending = try alice.commit(adding: [bobPackage])
        let welcome = try #require(pending.welcome)
        #expect(throws: GroupError.privateKeyMismatch("not the KeyPackage's private keys")) {
            try MLSGroup.join(welcome: welcome, keyPackage: bobPackage, privateMaterial: otherKeys)
        }
        // A tree that is not the group's fails the tree-hash check.
        let otherTree = try GroupTestClient("mallory").createGroup().tree.ratchetTreeNodes
        #expect(throws: GroupError.self) {
            try MLSGroup.join(welcome: welcome, keyPackage: bobPackage, privateMaterial: bobKeys, ratchetTree: otherTree)
        }
        _ = try MLSGroup.join(welcome: welcome, keyPackage: bobPackage, privateMaterial: bobKeys)
    }
}
