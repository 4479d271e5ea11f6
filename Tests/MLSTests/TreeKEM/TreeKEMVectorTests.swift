import Foundation
import Testing
import TestSupport
@testable import MLS

/// `treekem.json`: processing UpdatePaths as every member with private state, and a fresh UpdatePath
/// from every such member processed by all the others (RFC 9420 §7.4–7.6, §12.4).
struct TreeKEMVector: Decodable, Sendable, CustomTestStringConvertible {
    struct PathSecret: Decodable, Sendable { let node: UInt32; let path_secret: String }
    struct LeafPrivate: Decodable, Sendable {
        let index: UInt32
        let encryption_priv: String
        let signature_priv: String
        let path_secrets: [PathSecret]
    }
    struct UpdatePathCase: Decodable, Sendable {
        let sender: UInt32
        let update_path: String
        let path_secrets: [String?]
        let commit_secret: String
        let tree_hash_after: String
    }

    let cipher_suite: UInt16
    let group_id: String
    let epoch: UInt64
    let confirmed_transcript_hash: String
    let ratchet_tree: String
    let leaves_private: [LeafPrivate]
    let update_paths: [UpdatePathCase]

    var testDescription: String {
        "suite \(cipher_suite), \(leaves_private.count) private leaves, \(update_paths.count) paths"
    }

    static let suite1: [TreeKEMVector] = {
        let cases = (try? SharedFixtures.loadJSON([TreeKEMVector].self, "mls/treekem.json")) ?? nil
        let mine = (cases ?? []).filter { $0.cipher_suite == 1 }
        SharedFixtures.report(
            "mls/treekem.json", ran: mine.count, skipped: (cases?.count ?? 0) - mine.count,
            reason: "other cipher suites")
        return mine
    }()
}

struct TreeKEMVectorTests {
    let provider = CipherSuiteProvider.mls128X25519

    struct Fixture {
        let tree: RatchetTree
        let context: GroupContext
        let keys: [LeafIndex: TreePrivateKeys]
        let signers: [LeafIndex: SignaturePrivateKey]
    }

    /// The tree, the private state of each listed leaf (checked against the tree) and the context
    /// whose tree_hash the operations replace.
    func fixture(_ v: TreeKEMVector) throws -> Fixture {
        let tree = try RatchetTree(tlsSerialized: try hex(v.ratchet_tree), provider: provider)
        var keys: [LeafIndex: TreePrivateKeys] = [:]
        var signers: [LeafIndex: SignaturePrivateKey] = [:]
        for entry in v.leaves_private {
            let leaf = LeafIndex(entry.index)
            var state = TreePrivateKeys(leafIndex: leaf, leafKey: try HPKEPrivateKey(rawBytes: try hex(entry.encryption_priv)))
            for secret in entry.path_secrets {
                try state.setPathSecret(try hex(secret.path_secret), at: NodeIndex(secret.node), provider: provider)
            }
            try tree.verifyPrivateKeys(state)
            keys[leaf] = state
            signers[leaf] = try SignaturePrivateKey(seed: try hex(entry.signature_priv))
        }
        let context = GroupContext(
            cipherSuite: .mls128X25519AES128GCMSHA256Ed25519, groupID: GroupID(try hex(v.group_id)), epoch: v.epoch,
            treeHash: tree.treeHash(), confirmedTranscriptHash: try hex(v.confirmed_transcript_hash), extensions: [])
        return Fixture(tree: tree, context: context, keys: keys, signers: signers)
    }

    @Test func vectorFileHasSuite1() {
        guard SharedFixtures.shouldRun else { return }
        #expect(TreeKEMVector.suite1.count == 11)
    }

    @Test(arguments: TreeKEMVector.suite1)
    func processGivenUpdatePaths(_ v: TreeKEMVector) throws {
        let f = try fixture(v)
        var processed = 0
        for u in v.update_paths {
            let sender = LeafIndex(u.sender)
            let path = try UpdatePath(tlsSerialized: try hex(u.update_path))
            let treeHashAfter = try hex(u.tree_hash_after)

            let merged = try f.tree.mergingUpdatePath(path, from: sender, groupID: f.context.groupID)
            #expect(merged.treeHash() == treeHashAfter, "sender \(u.sender): tree hash after merge")
            #expect(throws: Never.self) { try merged.verifyParentHashes() }

            for (leaf, keys) in f.keys.sorted(by: { $0.key < $1.key }) where leaf != sender {
                let expectedSecret = try #require(u.path_secrets[Int(leaf.rawValue)], "path secret for \(leaf)")
                let applied = try f.tree.applyUpdatePath(path, from: sender, groupContext: f.context, privateKeys: keys)
                #expect(applied.pathSecret == (try hex(expectedSecret)), "sender \(u.sender) → \(leaf): path secret")
                #expect(applied.commitSecret == (try hex(u.commit_secret)), "sender \(u.sender) → \(leaf): commit secret")
                #expect(applied.tree.treeHash() == treeHashAfter)
                #expect(applied.groupContext.treeHash == treeHashAfter)
                #expect(applied.decryptedNode == f.tree.size.commonAncestor(leaf.nodeIndex, sender.nodeIndex))
                #expect(throws: Never.self) { try applied.tree.verifyPrivateKeys(applied.privateKeys) }
                processed += 1
            }
            // Leaves without private state have no expected secret.
            for (j, secret) in u.path_secrets.enumerated() where f.keys[LeafIndex(UInt32(j))] == nil {
                #expect(secret == nil || f.tree.leafNode(at: LeafIndex(UInt32(j))) != nil)
            }
        }
        #expect(processed > 0)
    }

    /// A fresh UpdatePath from each member with private state, processed by every other one.
    @Test(arguments: TreeKEMVector.suite1)
    func freshUpdatePathsRoundTrip(_ v: TreeKEMVector) throws {
        let f = try fixture(v)
        for (sender, signer) in f.signers.sorted(by: { $0.key < $1.key }) {
            let current = try #require(f.tree.leafNode(at: sender))
            let created = try f.tree.createUpdatePath(
                from: sender, leaf: LeafNodeTemplate(current), signer: signer, groupContext: f.context)
            #expect(created.updatePath.nodes.count == f.tree.filteredDirectPath(of: sender).count)
            #expect(created.groupContext.treeHash == created.tree.treeHash())
            #expect(throws: Never.self) { try created.tree.verifyParentHashes() }
            #expect(throws: Never.self) { try created.tree.verifyLeafSignatures(groupID: f.context.groupID) }
            #expect(throws: Never.self) { try created.tree.verifyPrivateKeys(created.privateKeys) }
            // What the tree code would read back from the wire.
            let wirePath = try UpdatePath(tlsSerialized: created.updatePath.tlsSerialized)

            for (leaf, keys) in f.keys.sorted(by: { $0.key < $1.key }) where leaf != sender {
                let applied = try f.tree.applyUpdatePath(wirePath, from: sender, groupContext: f.context, privateKeys: keys)
                #expect(applied.commitSecret == created.commitSecret, "\(sender) → \(leaf): commit secret")
                #expect(applied.tree == created.tree, "\(sender) → \(leaf): same tree")
                #expect(applied.pathSecret == created.pathSecret(commonWith: leaf))
                #expect(throws: Never.self) { try applied.tree.verifyPrivateKeys(applied.privateKeys) }
            }
        }
    }
}
