import Foundation
import Testing
@testable import MLS

/// Keys of the wrong length, GREASE or duplicate extensions in a GroupContext or GroupInfo, and a
/// malformed commit that removes the receiver are all rejected (RFC 9420 §5.1.1, §12.4.2, §13.5).
struct StructuralValidationTests {
    let provider = CipherSuiteProvider.mls128X25519

    @Test func keysOfWrongLengthAreRejected() throws {
        let client = GroupTestClient("alice")
        let (good, _) = try client.keyPackage()
        // A 31-byte init_key.
        var shortInit = good
        shortInit.initKey = HPKEPublicKey(Data(good.initKey.bytes.dropLast()))
        try provider.signKeyPackage(&shortInit, with: client.signer)
        #expect(throws: KeyPackageValidationError.invalidInitKeyLength(31)) { try KeyPackageValidator().validate(shortInit) }
        // A 33-byte encryption_key in the leaf.
        var longLeaf = good
        longLeaf.leafNode.encryptionKey = HPKEPublicKey(good.leafNode.encryptionKey.bytes + Data([0]))
        try provider.signLeafNode(&longLeaf.leafNode, with: client.signer, groupID: GroupID(Data()), leafIndex: LeafIndex(0))
        try provider.signKeyPackage(&longLeaf, with: client.signer)
        #expect(throws: KeyPackageValidationError.invalidLeafNode(.invalidEncryptionKeyLength(33))) {
            try KeyPackageValidator().validate(longLeaf)
        }
        // The same leaf in an Update from a hostile member.
        var groups = try GroupTest.makeGroup(["alice", "bob"])
        var bob = groups[1]
        var leaf = try HostileMember.updateLeaf(of: bob, claiming: bob.ownLeafNode!.credential)
        leaf.encryptionKey = HPKEPublicKey(Data(repeating: 9, count: 64))
        try provider.signLeafNode(&leaf, with: bob.signer, groupID: bob.groupID, leafIndex: LeafIndex(1))
        let message = try HostileMember.frame(.proposal(.update(Update(leafNode: leaf))), by: &bob)
        HostileMember.expectRejected(message, by: &groups[0]) { $0 == .invalidLeafNode(.invalidEncryptionKeyLength(64)) }
    }

    @Test func greaseExtensionInGroupContextIsRejected() throws {
        let grease = Extension(type: ExtensionType(rawValue: 0x0a0a), data: Data([1]))
        var groups = try GroupTest.makeGroup(["alice", "bob"])
        let extensions = groups[0].extensions + [grease]
        #expect(throws: GroupContextExtensionsError.greaseExtension(grease.type)) {
            try GroupContextExtensionsValidation.validate(extensions, tree: groups[0].tree)
        }
        // An honest client will not propose it; a hostile one does, and it is refused.
        #expect(throws: GroupError.invalidGroupContextExtensions(.greaseExtension(grease.type))) {
            try groups[1].proposeGroupContextExtensions(extensions)
        }
        var bob = groups[1]
        let message = try HostileMember.frame(
            .proposal(.groupContextExtensions(GroupContextExtensions(extensions: extensions))), by: &bob)
        HostileMember.expectRejected(message, by: &groups[0]) {
            $0 == .invalidGroupContextExtensions(.greaseExtension(grease.type))
        }
        // Nor can a group be created with one.
        #expect(throws: GroupError.invalidGroupContextExtensions(.greaseExtension(grease.type))) {
            try MLSGroup.create(
                groupID: GroupID(Data([1])), signer: .generate(), credential: .basic(identity: Data("x".utf8)),
                capabilities: GroupTestClient.capabilities, groupContextExtensions: extensions)
        }
    }

    @Test func welcomeWithDuplicateGroupInfoExtensionIsRejected() throws {
        let made = try Fixture.doubledTreeWelcome()
        #expect {
            try MLSGroup.join(welcome: made.forged, keyPackage: made.bobPackage, privateMaterial: made.bobKeys)
        } throws: { error in
            guard case .invalidWelcome(let why) = error as? GroupError else { return false }
            return why.contains("twice")
        }
        // The genuine Welcome joins.
        _ = try MLSGroup.join(welcome: made.genuine, keyPackage: made.bobPackage, privateMaterial: made.bobKeys)
    }

    @Test func removedMemberStillChecksTheCommitThatRemovesIt() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob", "carol"])
        var alice = groups[0]
        let pending = try alice.commit(removing: [LeafIndex(2)])
        let (content, _) = try groups[2].open(pending.message)
        guard case .commit(let commit) = content.content.body else { return }
        let tag = try #require(content.auth.confirmationTag)
        let path = try #require(commit.path)
        func forge(_ commit: Commit) throws -> MLSMessage {
            var authenticated = try alice.sign(
                alice.framedContent(.commit(commit), authenticatedData: Data()), wireFormat: .privateMessage)
            authenticated.auth.confirmationTag = tag
            return try alice.protect(authenticated)
        }
        // Too few path nodes: Carol used to go inactive on it without looking.
        var short = commit
        short.path?.nodes.removeLast()
        HostileMember.expectRejected(try forge(short), by: &groups[2]) {
            $0 == .tree(.pathLengthMismatch(expected: path.nodes.count, actual: path.nodes.count - 1))
        }
        // A path leaf that does not verify.
        var badLeaf = commit
        badLeaf.path?.leafNode.signature[0] ^= 1
        HostileMember.expectRejected(try forge(badLeaf), by: &groups[2]) { $0 == .invalidLeafNode(.badSignature) }
        // A path leaf under another identity.
        var stolen = commit
        stolen.path?.leafNode.credential = .basic(identity: Data("bob".utf8))
        HostileMember.expectRejected(try forge(stolen), by: &groups[2]) {
            $0 == .invalidLeafNode(.credentialChanged(member: LeafIndex(0)))
        }
        #expect(groups[2].isActive)
        // The genuine commit removes her.
        _ = try groups[2].process(pending.message)
        #expect(!groups[2].isActive)
    }

    @Test func treeAfterCommitIsValidatedAsAWhole() throws {
        let groups = try GroupTest.makeGroup(["alice", "bob", "carol"])
        let alice = groups[0]
        try alice.validateTreeAfterCommit(alice.tree, context: alice.groupContext)
        // A leaf whose signature no longer verifies (e.g. a path merge gone wrong).
        var forgedLeaf = alice.tree
        var bobLeaf = try #require(forgedLeaf.leafNode(at: LeafIndex(1)))
        bobLeaf.signature[0] ^= 1
        forgedLeaf.nodes[2] = .leaf(bobLeaf)
        #expect(throws: GroupError.self) { try alice.validateTreeAfterCommit(forgedLeaf, context: alice.groupContext) }
        // Two nodes sharing one encryption key.
        var sharedKey = alice.tree
        var carolLeaf = try #require(sharedKey.leafNode(at: LeafIndex(2)))
        carolLeaf.encryptionKey = try #require(sharedKey.leafNode(at: LeafIndex(1))).encryptionKey
        sharedKey.nodes[4] = .leaf(carolLeaf)
        #expect(throws: GroupError.self) { try alice.validateTreeAfterCommit(sharedKey, context: alice.groupContext) }
    }
}
