import Foundation
import Testing
import TestSupport
@testable import MLS

/// `tree-operations.json`: Add, Update and Remove applied to a tree (RFC 9420 §12.1.1–12.1.3, §7.7).
struct TreeOperationsVector: Decodable, Sendable, CustomTestStringConvertible {
    let cipher_suite: UInt16
    let tree_before: String
    let proposal: String
    let proposal_sender: UInt32
    let tree_hash_before: String
    let tree_after: String
    let tree_hash_after: String

    var testDescription: String { "suite \(cipher_suite), proposal \(proposal.prefix(4)) from \(proposal_sender)" }

    static let suite1: [TreeOperationsVector] = {
        let cases = (try? SharedFixtures.loadJSON([TreeOperationsVector].self, "mls/tree-operations.json")) ?? nil
        let mine = (cases ?? []).filter { $0.cipher_suite == 1 }
        SharedFixtures.report(
            "mls/tree-operations.json", ran: mine.count, skipped: (cases?.count ?? 0) - mine.count,
            reason: "other cipher suites")
        return mine
    }()
}

struct TreeOperationsVectorTests {
    let provider = CipherSuiteProvider.mls128X25519

    @Test func vectorFileHasSuite1() {
        guard SharedFixtures.shouldRun else { return }
        #expect(TreeOperationsVector.suite1.count == 5)
    }

    @Test(arguments: TreeOperationsVector.suite1)
    func applyProposal(_ v: TreeOperationsVector) throws {
        var tree = try RatchetTree(tlsSerialized: try hex(v.tree_before), provider: provider)
        #expect(tree.treeHash() == (try hex(v.tree_hash_before)))
        let sender = LeafIndex(v.proposal_sender)
        switch try Proposal(tlsSerialized: try hex(v.proposal)) {
        case .add(let add):
            let index = try tree.add(add.keyPackage.leafNode)
            #expect(tree.leafNode(at: index) == add.keyPackage.leafNode)
        case .update(let update):
            try tree.update(update.leafNode, at: sender)
        case .remove(let remove):
            try tree.remove(remove.removed)
            #expect(tree.leafNode(at: remove.removed) == nil)
        default:
            Issue.record("unexpected proposal type")
        }
        #expect(tree.ratchetTreeNodes.tlsSerialized == (try hex(v.tree_after)))
        #expect(tree.treeHash() == (try hex(v.tree_hash_after)))
    }
}
