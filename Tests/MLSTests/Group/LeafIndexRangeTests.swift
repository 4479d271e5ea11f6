import Foundation
import Testing
@testable import MLS

/// Leaf indices at or beyond the tree's leaf count never alias a member: 2^31 + i must not be read
/// as leaf i (node 2·(2^31 + i) wraps to 2i in 32 bits).
struct LeafIndexRangeTests {
    static let alias = LeafIndex((1 << 31) + 1)

    @Test func publicMessageSenderBeyondTreeCannotAliasAMember() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob", "carol"])
        var bob = groups[1]
        // Bob signs with his own key but names leaf 2^31 + 1 as the sender, which used to resolve to
        // his leaf: the message would verify and be attributed to a leaf that does not exist.
        let message = try HostileMember.frame(
            .proposal(.remove(Remove(removed: LeafIndex(2)))), by: &bob, sender: .member(leafIndex: Self.alias),
            wireFormat: .publicMessage)
        HostileMember.expectRejected(message, by: &groups[0]) { $0 == .unknownSender(.member(leafIndex: Self.alias)) }
        #expect(groups[0].proposals.isEmpty)
    }

    @Test func privateMessageSenderBeyondTreeCannotAliasAMember() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob"])
        let genuine = try groups[1].encrypt(Data("hi".utf8))
        guard case .privateMessage(var message) = genuine.body else { return }
        // Re-encrypt the sender data with the aliasing index (Bob holds the sender-data secret).
        let provider = groups[1].provider
        let key = SenderDataKey(
            provider: provider, senderDataSecret: groups[1].epochSecrets.senderDataSecret, ciphertext: message.ciphertext)
        var senderData = try SenderData(
            tlsSerialized: try provider.open(
                key: key.key, nonce: key.nonce, aad: message.senderDataAAD.tlsSerialized,
                ciphertext: message.encryptedSenderData))
        senderData.leafIndex = Self.alias
        message.encryptedSenderData = try provider.seal(
            key: key.key, nonce: key.nonce, aad: message.senderDataAAD.tlsSerialized, plaintext: senderData.tlsSerialized)
        HostileMember.expectRejected(MLSMessage(.privateMessage(message)), by: &groups[0]) {
            $0 == .unknownSender(.member(leafIndex: Self.alias))
        }
        // The untouched message still decrypts.
        guard case .application = try groups[0].process(genuine) else {
            Issue.record("genuine message rejected")
            return
        }
    }

    @Test func removeBeyondTreeCannotAliasAMember() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob", "carol"])
        // An honest client refuses to send it.
        #expect(throws: GroupError.tree(.leafOutOfRange(Self.alias))) { try groups[1].proposeRemove(Self.alias) }
        // A hostile one sends it anyway: it used to be kept as a Remove of leaf 1.
        var bob = groups[1]
        let message = try HostileMember.frame(.proposal(.remove(Remove(removed: Self.alias))), by: &bob)
        HostileMember.expectRejected(message, by: &groups[0]) { $0 == .tree(.leafOutOfRange(Self.alias)) }
        #expect(groups[0].proposals.isEmpty)
        // Committing it inline fails too, and the group does not move.
        #expect(throws: GroupError.self) { try groups[0].commit(removing: [Self.alias]) }
        #expect(groups[0].epoch == 1)
        // And the tree itself answers nothing for it.
        #expect(groups[0].tree.leafNode(at: Self.alias) == nil)
        #expect(groups[0].member(at: Self.alias) == nil)
        #expect(throws: TreeError.leafOutOfRange(Self.alias)) { try groups[0].tree.requireLeaf(Self.alias) }
    }
}
