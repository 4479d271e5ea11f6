import Foundation
import Testing
@testable import MLS

/// The ratchet tree's cache of subtree hashes (RFC 9420 §7.8) never answers for a tree that changed:
/// after every operation it equals a recomputation from scratch, copies keep their own, and the nodes
/// `changedSubtrees(since:)` reports are exactly the changed ones with their ancestors.
struct TreeHashCacheTests {
    /// The same nodes with nothing cached, so every hash is computed afresh.
    func cold(_ tree: RatchetTree) -> RatchetTree {
        var copy = tree
        copy.nodes = tree.nodes
        return copy
    }

    func expectMatchesFresh(_ tree: RatchetTree, _ step: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(tree.treeHashes() == cold(tree).treeHashes(), "\(step)", sourceLocation: sourceLocation)
        #expect(tree.treeHash() == cold(tree).treeHash(), "\(step)", sourceLocation: sourceLocation)
    }

    @Test func cacheMatchesAFreshComputationAfterEveryOperation() throws {
        let people = try (0..<7).map { try TreeTestMember("member \($0)") }
        var tree = RatchetTree(provider: TreeTestMember.provider, firstLeaf: people[0].leaf)
        tree.cacheTreeHashes()
        for person in people[1...4] {
            try tree.add(person.leaf)
            expectMatchesFresh(tree, "add, uncached")
            tree.cacheTreeHashes()
            expectMatchesFresh(tree, "add")
        }
        // Adding past a power of two extends the tree (§7.7).
        for person in people[5...] {
            try tree.add(person.leaf)
            tree.cacheTreeHashes()
            expectMatchesFresh(tree, "add with extension")
        }
        var updated = people[2].leaf
        updated.encryptionKey = HPKEPrivateKey.generate().publicKey
        try tree.update(updated, at: LeafIndex(2))
        tree.cacheTreeHashes()
        expectMatchesFresh(tree, "update")
        // Removing the right-most members truncates the tree.
        for leaf in [6, 5, 4].map({ LeafIndex(UInt32($0)) }) {
            try tree.remove(leaf)
            tree.cacheTreeHashes()
            expectMatchesFresh(tree, "remove \(leaf)")
        }
        // Writing the node array directly (as tests forging trees do) forgets everything.
        var forged = tree
        var leaf = try #require(forged.leafNode(at: LeafIndex(1)))
        leaf.signature[leaf.signature.startIndex] ^= 1
        forged.nodes[2] = .leaf(leaf)
        expectMatchesFresh(forged, "node array written")
        #expect(forged.treeHash() != tree.treeHash())
    }

    @Test func cacheFollowsUpdatePathsCreatedAndMerged() throws {
        let people = try (0..<5).map { try TreeTestMember("member \($0)") }
        var group = TreeTestGroup(creator: people[0])
        try group.commit(by: LeafIndex(0), adding: Array(people[1...4]))
        expectMatchesFresh(group.tree, "after the Add commit")
        for committer in [4, 1, 3, 0].map({ LeafIndex(UInt32($0)) }) {
            try group.commit(by: committer)
            expectMatchesFresh(group.tree, "after \(committer)'s path")
        }
    }

    @Test func copiesKeepTheirOwnCache() throws {
        let people = try (0..<4).map { try TreeTestMember("member \($0)") }
        var original = RatchetTree(provider: TreeTestMember.provider, firstLeaf: people[0].leaf)
        for person in people.dropFirst() { try original.add(person.leaf) }
        original.cacheTreeHashes()
        let before = original.treeHash()
        var copy = original
        try copy.remove(LeafIndex(3))
        copy.cacheTreeHashes()
        #expect(original.treeHash() == before)
        expectMatchesFresh(original, "original after the copy changed")
        expectMatchesFresh(copy, "copy")
        #expect(copy.treeHash() != before)
        // Equality sees the nodes, not what is cached.
        #expect(cold(original) == original)
    }

    @Test func changedSubtreesAreTheChangedNodesAndTheirAncestors() throws {
        let people = try (0..<8).map { try TreeTestMember("member \($0)") }
        var group = TreeTestGroup(creator: people[0])
        try group.commit(by: LeafIndex(0), adding: Array(people[1...]))
        try group.commit(by: LeafIndex(5))
        let old = group.tree
        #expect(old.changedSubtrees(since: old).isEmpty)

        var updated = old
        var leaf = try #require(updated.leafNode(at: LeafIndex(2)))
        leaf.encryptionKey = HPKEPrivateKey.generate().publicKey
        try updated.update(leaf, at: LeafIndex(2))
        updated.cacheTreeHashes()
        let expected = Set([LeafIndex(2).nodeIndex] + old.size.directPath(of: LeafIndex(2).nodeIndex))
        #expect(Set(updated.changedSubtrees(since: old)) == expected)
        // The same answer when the old tree comes back from storage with nothing cached.
        #expect(Set(updated.changedSubtrees(since: cold(old))) == expected)
        #expect(Set(cold(updated).changedSubtrees(since: old)) == expected)
    }
}
