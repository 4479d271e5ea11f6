import Foundation
import Testing
@testable import MLS

/// The tree check after a commit looks only at what the commit changed (RFC 9420 §7.9.2, §12.4.2),
/// and still refuses everything the whole-tree check refused there: a changed parent that is not
/// parent-hash valid, a changed leaf whose signature does not verify (also when another version of
/// it was verified), members that do not support new GroupContext extensions, and forged commits
/// processed by a state restored from storage or kept as a copy.
struct IncrementalTreeValidationTests {
    let provider = CipherSuiteProvider.mls128X25519

    /// Four members after Alice's and Dave's self-updates, so parents on two paths are set.
    func committedGroups() throws -> [MLSGroup] {
        var groups = try GroupTest.makeGroup(["alice", "bob", "carol", "dave"])
        try GroupTest.commit(by: 0, in: &groups) { try $0.selfUpdate() }
        try GroupTest.commit(by: 3, in: &groups) { try $0.selfUpdate() }
        GroupTest.expectInSync(groups)
        return groups
    }

    @Test func everyTamperedParentIsRejected() throws {
        let alice = try committedGroups()[0]
        try alice.validateTreeAfterCommit(alice.tree, context: alice.groupContext)
        var tampered = 0
        for i in stride(from: 1, to: alice.tree.nodeCount, by: 2) {
            guard case .parent(let parent) = alice.tree[NodeIndex(UInt32(i))] else { continue }
            for change in 0..<2 {
                var forged = alice.tree
                var node = parent
                if change == 0 {
                    node.parentHash = Data(repeating: 0xAB, count: provider.hashLength)
                } else {
                    node.encryptionKey = HPKEPrivateKey.generate().publicKey
                }
                forged.nodes[i] = .parent(node)
                #expect(throws: GroupError.self, "node \(i), change \(change)") {
                    try alice.validateTreeAfterCommit(forged, context: alice.groupContext)
                }
                tampered += 1
            }
        }
        #expect(tampered >= 4)
    }

    @Test func changedLeafSignatureIsVerifiedUnlessThatVersionEntered() throws {
        // No parent is set yet (the Add commit had no path), so only the leaf's own checks see the
        // change (with parents set, the parent hashes above it would fail as well).
        let alice = try GroupTest.makeGroup(["alice", "bob", "carol"])[0]
        let genuine = try #require(alice.tree.leafNode(at: LeafIndex(1)))
        var forgedLeaf = genuine
        forgedLeaf.signature[forgedLeaf.signature.startIndex] ^= 1
        var forged = alice.tree
        forged.nodes[2] = .leaf(forgedLeaf)
        #expect(throws: GroupError.self) { try alice.validateTreeAfterCommit(forged, context: alice.groupContext) }
        // Another version of the leaf having been verified does not vouch for this one.
        #expect(throws: GroupError.self) {
            try alice.validateTreeAfterCommit(forged, context: alice.groupContext, enteredLeaves: [LeafIndex(1): genuine])
        }
        // A leaf that entered in this commit was verified then: its signature is not verified twice.
        try alice.validateTreeAfterCommit(forged, context: alice.groupContext, enteredLeaves: [LeafIndex(1): forgedLeaf])
    }

    @Test func newExtensionsAreCheckedAgainstEveryMember() throws {
        let alice = try committedGroups()[0]
        var context = alice.groupContext
        context.extensions.append(Extension(type: ExtensionType(rawValue: 0xff00), data: Data()))
        // No leaf changed, but none supports the new extension (§13.4).
        #expect(throws: GroupError.self) { try alice.validateTreeAfterCommit(alice.tree, context: context) }
    }

    /// Alice's self-update with its leaf re-signed over a wrong parent_hash: the leaf verifies, but
    /// the path does not chain to it (§7.9.2).
    func forgedSelfUpdate(from alice: inout MLSGroup, readBy reader: inout MLSGroup) throws -> (forged: MLSMessage, genuine: MLSMessage) {
        let pending = try alice.selfUpdate()
        let (content, _) = try reader.open(pending.message)
        guard case .commit(var commit) = content.content.body else { throw GroupError.unsupportedMessage("no commit") }
        let tag = try #require(content.auth.confirmationTag)
        var leaf = try #require(commit.path?.leafNode)
        leaf.source = .commit(parentHash: Data(repeating: 0x5A, count: provider.hashLength))
        try provider.signLeafNode(&leaf, with: alice.signer, groupID: alice.groupID, leafIndex: alice.ownLeafIndex)
        commit.path?.leafNode = leaf
        var authenticated = try alice.sign(
            alice.framedContent(.commit(commit), authenticatedData: Data()), wireFormat: .privateMessage)
        authenticated.auth.confirmationTag = tag
        return (try alice.protect(authenticated), pending.message)
    }

    @Test func restoredOrCopiedStateRejectsABadParentHash() throws {
        var groups = try committedGroups()
        let snapshot = groups[2].serialized()
        let kept = groups[2]
        var alice = groups[0], bob = groups[1]
        let (forged, genuine) = try forgedSelfUpdate(from: &alice, readBy: &bob)
        // The live state moves on with the genuine commit; a copy kept from before (sharing what the
        // live tree had cached) and the state restored from storage (nothing cached) each still
        // refuse the forged commit, then accept the genuine one.
        _ = try groups[2].process(genuine)
        var states = [("copy", kept), ("restored", try MLSGroup(serialized: snapshot))]
        for i in states.indices {
            HostileMember.expectRejected(forged, by: &states[i].1) { $0 == .tree(.leafParentHashMismatch(LeafIndex(0))) }
            _ = try states[i].1.process(genuine)
            #expect(states[i].1.epoch == groups[2].epoch, "\(states[i].0)")
            #expect(states[i].1.tree.treeHash() == groups[2].tree.treeHash(), "\(states[i].0)")
        }
    }

    @Test func removedMemberStillRefusesABadParentHash() throws {
        var groups = try committedGroups()
        var alice = groups[0]
        let pending = try alice.commit(removing: [LeafIndex(2)])
        let (content, _) = try groups[2].open(pending.message)
        guard case .commit(var commit) = content.content.body else { return }
        let tag = try #require(content.auth.confirmationTag)
        var leaf = try #require(commit.path?.leafNode)
        leaf.source = .commit(parentHash: Data(repeating: 0x5A, count: provider.hashLength))
        try provider.signLeafNode(&leaf, with: alice.signer, groupID: alice.groupID, leafIndex: LeafIndex(0))
        commit.path?.leafNode = leaf
        var authenticated = try alice.sign(
            alice.framedContent(.commit(commit), authenticatedData: Data()), wireFormat: .privateMessage)
        authenticated.auth.confirmationTag = tag
        let forged = try alice.protect(authenticated)
        HostileMember.expectRejected(forged, by: &groups[2]) { $0 == .tree(.leafParentHashMismatch(LeafIndex(0))) }
        #expect(groups[2].isActive)
        _ = try groups[2].process(pending.message)
        #expect(!groups[2].isActive)
    }
}
