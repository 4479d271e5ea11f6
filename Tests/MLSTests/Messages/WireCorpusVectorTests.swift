import Foundation
import Testing
import TestSupport
@testable import MLS

/// The wire structs embedded in the other MLS vector files (suite 1) round-trip byte for byte, and the
/// signed-content encodings (LeafNodeTBS, KeyPackageTBS, FramedContentTBS, AuthenticatedContentTBM)
/// reproduce what the vectors' signatures and MACs were computed over.
struct WireCorpusVectorTests {
    static let suite = CipherSuiteProvider.mls128X25519

    static func hex(_ string: String?, _ what: String) throws -> Data {
        guard let string, let data = Data(testHex: string) else { throw FixtureError.malformed(what) }
        return data
    }

    /// Decodes `bytes` as `T`, expects an identical re-encoding, and returns the value.
    @discardableResult
    static func roundTrip<T: TLSCodable>(_ type: T.Type, _ bytes: Data, _ what: String) throws -> T {
        let value = try T(tlsSerialized: bytes)
        #expect(value.tlsSerialized == bytes, "\(what) re-encodes differently")
        return value
    }

    /// Checks a leaf's signature over its LeafNodeTBS; update and commit leaves bind group and index.
    static func verifyLeaf(_ leaf: LeafNode, groupID: GroupID?, leafIndex: LeafIndex?) throws -> Bool {
        let tbs = leaf.source.signsGroupContext
            ? try LeafNodeTBS(leafNode: leaf, groupID: groupID, leafIndex: leafIndex)
            : try LeafNodeTBS(leafNode: leaf)
        return suite.verifyWithLabel(leaf.signatureKey, label: "LeafNodeTBS", content: tbs.tlsSerialized, signature: leaf.signature)
    }

    // MARK: message-protection.json

    struct ProtectionVector: Decodable {
        let cipher_suite: UInt16
        let group_id: String
        let epoch: UInt64
        let tree_hash: String
        let confirmed_transcript_hash: String
        let signature_pub: String
        let membership_key: String
        let proposal: String
        let proposal_pub: String
        let proposal_priv: String
        let commit: String
        let commit_pub: String
        let commit_priv: String
        let application_priv: String
    }

    @Test func messageProtectionPublicMessagesVerify() throws {
        guard let vectors = try SharedFixtures.loadJSON([ProtectionVector].self, "mls/message-protection.json") else { return }
        var ran = 0
        for v in vectors where v.cipher_suite == 1 {
            let context = GroupContext(
                cipherSuite: CipherSuite(rawValue: v.cipher_suite), groupID: GroupID(try Self.hex(v.group_id, "group_id")),
                epoch: v.epoch, treeHash: try Self.hex(v.tree_hash, "tree_hash"),
                confirmedTranscriptHash: try Self.hex(v.confirmed_transcript_hash, "cth"), extensions: [])
            let signatureKey = SignaturePublicKey(try Self.hex(v.signature_pub, "signature_pub"))
            let membershipKey = try Self.hex(v.membership_key, "membership_key")
            let proposal = try Self.roundTrip(Proposal.self, try Self.hex(v.proposal, "proposal"), "proposal")
            let commit = try Self.roundTrip(Commit.self, try Self.hex(v.commit, "commit"), "commit")

            for (name, hex, expected) in [
                ("proposal_pub", v.proposal_pub, FramedContent.Body.proposal(proposal)),
                ("commit_pub", v.commit_pub, .commit(commit)),
            ] {
                let message = try Self.roundTrip(MLSMessage.self, try Self.hex(hex, name), name)
                guard case .publicMessage(let pub) = message.body else {
                    Issue.record("\(name) is not a PublicMessage")
                    continue
                }
                #expect(pub.content.body == expected, "\(name) body")
                #expect(pub.content.sender == .member(leafIndex: LeafIndex(1)))
                let tbs = try FramedContentTBS(wireFormat: .publicMessage, content: pub.content, context: context)
                #expect(Self.suite.verifyWithLabel(signatureKey, label: "FramedContentTBS", content: tbs.tlsSerialized, signature: pub.auth.signature), "\(name) signature")
                let tbm = AuthenticatedContentTBM(contentTBS: tbs, auth: pub.auth)
                #expect(Self.suite.mac(key: membershipKey, data: tbm.tlsSerialized) == pub.membershipTag, "\(name) membership tag")
            }
            for (name, hex, type) in [
                ("proposal_priv", v.proposal_priv, ContentType.proposal), ("commit_priv", v.commit_priv, .commit),
                ("application_priv", v.application_priv, .application),
            ] {
                let message = try Self.roundTrip(MLSMessage.self, try Self.hex(hex, name), name)
                guard case .privateMessage(let priv) = message.body else {
                    Issue.record("\(name) is not a PrivateMessage")
                    continue
                }
                #expect(priv.contentType == type)
                #expect(priv.groupID == context.groupID && priv.epoch == context.epoch)
            }
            ran += 1
        }
        #expect(ran == 1)
        SharedFixtures.report("message-protection.json (wire + signature/membership tag)", ran: ran, skipped: vectors.count - ran)
    }

    // MARK: welcome.json

    struct WelcomeVector: Decodable {
        let cipher_suite: UInt16
        let key_package: String
        let welcome: String
    }

    @Test func welcomeKeyPackageSignaturesVerify() throws {
        guard let vectors = try SharedFixtures.loadJSON([WelcomeVector].self, "mls/welcome.json") else { return }
        var ran = 0
        for v in vectors where v.cipher_suite == 1 {
            let message = try Self.roundTrip(MLSMessage.self, try Self.hex(v.key_package, "key_package"), "key_package")
            guard case .keyPackage(let kp) = message.body else {
                Issue.record("key_package is not a KeyPackage")
                continue
            }
            let key = kp.leafNode.signatureKey
            #expect(Self.suite.verifyWithLabel(key, label: "KeyPackageTBS", content: kp.tbs.tlsSerialized, signature: kp.signature))
            #expect(try Self.verifyLeaf(kp.leafNode, groupID: nil, leafIndex: nil))
            let welcome = try Self.roundTrip(MLSMessage.self, try Self.hex(v.welcome, "welcome"), "welcome")
            guard case .welcome(let w) = welcome.body else {
                Issue.record("welcome is not a Welcome")
                continue
            }
            #expect(w.cipherSuite == kp.cipherSuite)
            #expect(w.secrets(for: Self.suite.keyPackageRef(encodedKeyPackage: kp.tlsSerialized)) != nil)
            ran += 1
        }
        #expect(ran == 1)
        SharedFixtures.report("welcome.json (wire + KeyPackage/leaf signatures, KeyPackageRef lookup)", ran: ran, skipped: vectors.count - ran)
    }

    // MARK: tree-validation.json, treekem.json, tree-operations.json

    struct TreeValidationVector: Decodable {
        let cipher_suite: UInt16
        let tree: String
        let group_id: String
    }

    @Test func treeValidationLeafSignaturesVerify() throws {
        guard let vectors = try SharedFixtures.loadJSON([TreeValidationVector].self, "mls/tree-validation.json") else { return }
        var ran = 0
        var leaves = 0
        for v in vectors where v.cipher_suite == 1 {
            let groupID = GroupID(try Self.hex(v.group_id, "group_id"))
            let tree = try Self.roundTrip(RatchetTreeNodes.self, try Self.hex(v.tree, "tree"), "tree")
            for (index, node) in tree.nodes.enumerated() {
                guard let leaf = node?.leafNode else { continue }
                let leafIndex = LeafIndex(UInt32(index / 2))
                #expect(try Self.verifyLeaf(leaf, groupID: groupID, leafIndex: leafIndex), "leaf \(leafIndex)")
                leaves += 1
            }
            ran += 1
        }
        #expect(ran > 0)
        print("tree-validation.json: \(leaves) leaf signatures verified over LeafNodeTBS")
        SharedFixtures.report("tree-validation.json (wire + leaf signatures)", ran: ran, skipped: vectors.count - ran)
    }

    struct TreeKEMVector: Decodable {
        struct Path: Decodable {
            let sender: UInt32
            let update_path: String
        }
        let cipher_suite: UInt16
        let group_id: String
        let ratchet_tree: String
        let update_paths: [Path]
    }

    @Test func treeKEMTreesAndUpdatePathsRoundTrip() throws {
        guard let vectors = try SharedFixtures.loadJSON([TreeKEMVector].self, "mls/treekem.json") else { return }
        var ran = 0
        var paths = 0
        for v in vectors where v.cipher_suite == 1 {
            let groupID = GroupID(try Self.hex(v.group_id, "group_id"))
            try Self.roundTrip(RatchetTreeNodes.self, try Self.hex(v.ratchet_tree, "ratchet_tree"), "ratchet_tree")
            for p in v.update_paths {
                let path = try Self.roundTrip(UpdatePath.self, try Self.hex(p.update_path, "update_path"), "update_path")
                guard case .commit = path.leafNode.source else {
                    Issue.record("update path leaf source is not commit")
                    continue
                }
                #expect(try Self.verifyLeaf(path.leafNode, groupID: groupID, leafIndex: LeafIndex(p.sender)))
                paths += 1
            }
            ran += 1
        }
        #expect(ran > 0)
        print("treekem.json: \(paths) update paths round-tripped, leaf signatures verified")
        SharedFixtures.report("treekem.json (wire + update path leaf signatures)", ran: ran, skipped: vectors.count - ran)
    }

    struct TreeOperationsVector: Decodable {
        let cipher_suite: UInt16
        let tree_before: String
        let proposal: String
        let tree_after: String
    }

    @Test func treeOperationsRoundTrip() throws {
        guard let vectors = try SharedFixtures.loadJSON([TreeOperationsVector].self, "mls/tree-operations.json") else { return }
        var ran = 0
        for v in vectors where v.cipher_suite == 1 {
            try Self.roundTrip(RatchetTreeNodes.self, try Self.hex(v.tree_before, "tree_before"), "tree_before")
            try Self.roundTrip(Proposal.self, try Self.hex(v.proposal, "proposal"), "proposal")
            try Self.roundTrip(RatchetTreeNodes.self, try Self.hex(v.tree_after, "tree_after"), "tree_after")
            ran += 1
        }
        #expect(ran > 0)
        SharedFixtures.report("tree-operations.json (wire only)", ran: ran, skipped: vectors.count - ran)
    }

    // MARK: passive-client-*.json

    struct PassiveClientVector: Decodable {
        struct Epoch: Decodable {
            let proposals: [String]
            let commit: String
        }
        let cipher_suite: UInt16
        let key_package: String
        let welcome: String
        let ratchet_tree: String?
        let epochs: [Epoch]
    }

    @Test(arguments: ["passive-client-welcome.json", "passive-client-handling-commit.json", "passive-client-random.json"])
    func passiveClientMessagesRoundTrip(file: String) throws {
        guard let vectors = try SharedFixtures.loadJSON([PassiveClientVector].self, "mls/\(file)") else { return }
        var ran = 0
        var messages = 0
        for v in vectors where v.cipher_suite == 1 {
            try Self.roundTrip(MLSMessage.self, try Self.hex(v.key_package, "key_package"), "key_package")
            try Self.roundTrip(MLSMessage.self, try Self.hex(v.welcome, "welcome"), "welcome")
            if let tree = v.ratchet_tree {
                try Self.roundTrip(RatchetTreeNodes.self, try Self.hex(tree, "ratchet_tree"), "ratchet_tree")
            }
            for epoch in v.epochs {
                for proposal in epoch.proposals {
                    try Self.roundTrip(MLSMessage.self, try Self.hex(proposal, "proposal"), "proposal")
                }
                try Self.roundTrip(MLSMessage.self, try Self.hex(epoch.commit, "commit"), "commit")
                messages += epoch.proposals.count + 1
            }
            ran += 1
        }
        #expect(ran > 0)
        print("\(file): \(messages) proposal/commit MLSMessages round-tripped")
        SharedFixtures.report("\(file) (wire only)", ran: ran, skipped: vectors.count - ran)
    }
}
