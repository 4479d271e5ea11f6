import Foundation
import Testing
@testable import MLS

/// Key uniqueness after a commit (RFC 9420 §7.3) checked from the changed nodes only finds every
/// duplicate the tree-wide check finds: a changed leaf or parent that takes a key some unchanged node
/// holds, and a changed leaf that takes another member's signature key (issue 27).
struct KeyUniquenessTests {
    /// Eight members, with parent keys from a commit by leaf 5.
    func tree() throws -> RatchetTree {
        let people = try (0..<8).map { try TreeTestMember("member \($0)") }
        var group = TreeTestGroup(creator: people[0])
        try group.commit(by: LeafIndex(0), adding: Array(people[1...]))
        try group.commit(by: LeafIndex(5))
        return group.tree
    }

    /// Both checks on `changed` against `old`: whether each refused it.
    func verdicts(_ changed: RatchetTree, since old: RatchetTree) -> (incremental: TreeError?, full: TreeError?) {
        let nodes = changed.changedSubtrees(since: old)
        var incremental: TreeError?
        var full: TreeError?
        do { try changed.verifyKeyUniqueness(changed: nodes) } catch { incremental = error }
        do { try changed.verifyKeyUniqueness() } catch { full = error }
        return (incremental, full)
    }

    func withLeaf(_ tree: RatchetTree, _ leaf: UInt32, _ change: (inout LeafNode) -> Void) throws -> RatchetTree {
        var copy = tree
        var node = try #require(copy.leafNode(at: LeafIndex(leaf)))
        change(&node)
        copy.nodes[Int(LeafIndex(leaf).nodeIndex.rawValue)] = .leaf(node)
        return copy
    }

    @Test func freshKeysPass() throws {
        let old = try tree()
        let changed = try withLeaf(old, 2) { $0.encryptionKey = HPKEPrivateKey.generate().publicKey }
        let verdict = verdicts(changed, since: old)
        #expect(verdict.incremental == nil)
        #expect(verdict.full == nil)
    }

    @Test func changedLeafTakingAParentKeyIsRefused() throws {
        let old = try tree()
        let parent = try #require(old.size.directPath(of: LeafIndex(5).nodeIndex).first { old.parentNode(at: $0) != nil })
        let key = try #require(old.encryptionKey(at: parent))
        let verdict = verdicts(try withLeaf(old, 2) { $0.encryptionKey = key }, since: old)
        #expect(verdict.incremental == .duplicateEncryptionKey(LeafIndex(2).nodeIndex))
        #expect(verdict.full != nil)
    }

    @Test func changedLeafTakingAnotherMembersSignatureKeyIsRefused() throws {
        let old = try tree()
        let key = try #require(old.leafNode(at: LeafIndex(6))).signatureKey
        let verdict = verdicts(try withLeaf(old, 2) { $0.signatureKey = key }, since: old)
        #expect(verdict.incremental == .duplicateSignatureKey(LeafIndex(2)))
        #expect(verdict.full != nil)
    }

    @Test func changedParentTakingAnUnchangedLeafsKeyIsRefused() throws {
        let old = try tree()
        let index = try #require(old.size.directPath(of: LeafIndex(5).nodeIndex).first { old.parentNode(at: $0) != nil })
        var parent = try #require(old.parentNode(at: index))
        parent.encryptionKey = try #require(old.leafNode(at: LeafIndex(0))).encryptionKey
        var changed = old
        changed.nodes[Int(index.rawValue)] = .parent(parent)
        let verdict = verdicts(changed, since: old)
        #expect(verdict.incremental == .duplicateEncryptionKey(index))
        #expect(verdict.full != nil)
    }

    @Test func manyChangedNodesFallBackToTheTreeWideCheck() throws {
        let old = try tree()
        let changed = try withLeaf(old, 3) { $0.encryptionKey = old.leafNode(at: LeafIndex(4))!.encryptionKey }
        let all = (0..<changed.nodeCount).map { NodeIndex(UInt32($0)) }
        #expect(all.count <= 32)
        let many = all + all + all
        #expect(throws: TreeError.self) { try changed.verifyKeyUniqueness(changed: many) }
        #expect(throws: TreeError.self) { try changed.verifyKeyUniqueness(changed: all) }
    }
}
