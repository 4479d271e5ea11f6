import Foundation
import Testing
import TestSupport
@testable import MLS

/// `tree-validation.json`: per-node resolutions and tree hashes, parent-hash validity and leaf
/// signatures of trees a joiner would receive (RFC 9420 §4.1.1, §7.8, §7.9.2, §7.3).
struct TreeValidationVector: Decodable, Sendable, CustomTestStringConvertible {
    let cipher_suite: UInt16
    let tree: String
    let group_id: String
    let resolutions: [[UInt32]]
    let tree_hashes: [String]

    var testDescription: String { "suite \(cipher_suite), \(resolutions.count) nodes" }

    static let suite1: [TreeValidationVector] = {
        let cases = (try? SharedFixtures.loadJSON([TreeValidationVector].self, "mls/tree-validation.json")) ?? nil
        let mine = (cases ?? []).filter { $0.cipher_suite == 1 }
        SharedFixtures.report(
            "mls/tree-validation.json", ran: mine.count, skipped: (cases?.count ?? 0) - mine.count,
            reason: "other cipher suites")
        return mine
    }()
}

struct TreeValidationVectorTests {
    let provider = CipherSuiteProvider.mls128X25519

    @Test func vectorFileHasSuite1() {
        guard SharedFixtures.shouldRun else { return }
        #expect(TreeValidationVector.suite1.count == 14)
    }

    @Test(arguments: TreeValidationVector.suite1)
    func resolutionsAndTreeHashes(_ v: TreeValidationVector) throws {
        let tree = try RatchetTree(tlsSerialized: try hex(v.tree), provider: provider)
        #expect(tree.nodeCount == v.resolutions.count)
        #expect(tree.nodeCount == v.tree_hashes.count)
        let hashes = tree.treeHashes()
        for i in 0..<tree.nodeCount {
            let node = NodeIndex(UInt32(i))
            #expect(tree.resolution(of: node).map(\.rawValue) == v.resolutions[i], "resolution(\(i))")
            let expected = try hex(v.tree_hashes[i])
            #expect(hashes[i] == expected, "tree hash \(i)")
            #expect(tree.treeHash(of: node) == expected, "recursive tree hash \(i)")
        }
        #expect(tree.treeHash() == (try hex(v.tree_hashes[Int(tree.root.rawValue)])))
        // The tree serializes back to the bytes it came from (trailing blanks dropped).
        #expect(tree.ratchetTreeNodes.tlsSerialized == (try hex(v.tree)))
    }

    @Test(arguments: TreeValidationVector.suite1)
    func parentHashesAndSignaturesVerify(_ v: TreeValidationVector) throws {
        let tree = try RatchetTree(tlsSerialized: try hex(v.tree), provider: provider)
        let groupID = GroupID(try hex(v.group_id))
        #expect(throws: Never.self) { try tree.verifyParentHashes() }
        #expect(throws: Never.self) { try tree.verifyLeafSignatures(groupID: groupID) }
        #expect(throws: Never.self) { try tree.validate(groupID: groupID) }
    }

    /// Another group id breaks the signatures of update- and commit-sourced leaves.
    @Test(arguments: TreeValidationVector.suite1)
    func wrongGroupIDFailsSignatures(_ v: TreeValidationVector) throws {
        let tree = try RatchetTree(tlsSerialized: try hex(v.tree), provider: provider)
        let bound = tree.leaves.filter { $0.leaf.source.signsGroupContext }
        guard let first = bound.first else { return }
        #expect(throws: TreeError.invalidLeafSignature(first.index)) {
            try tree.verifyLeafSignatures(groupID: GroupID(Data("another group".utf8)))
        }
    }
}
