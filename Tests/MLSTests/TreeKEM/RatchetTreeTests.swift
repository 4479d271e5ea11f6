import Foundation
import Testing
@testable import MLS

struct RatchetTreeTests {
    let provider = CipherSuiteProvider.mls128X25519

    func members(_ count: Int) throws -> [TreeTestMember] {
        try (0..<count).map { try TreeTestMember("member \($0)") }
    }

    /// A tree of `count` members added one by one (no paths: all parents blank).
    func plainTree(_ people: [TreeTestMember]) throws -> RatchetTree {
        var tree = RatchetTree(provider: provider, firstLeaf: people[0].leaf)
        for member in people.dropFirst() { try tree.add(member.leaf) }
        return tree
    }

    // MARK: Add, Update, Remove

    @Test func addExtendsWhenFullAndFillsLeftmostBlank() throws {
        let people = try members(6)
        var tree = RatchetTree(provider: provider, firstLeaf: people[0].leaf)
        #expect(tree.leafCount == 1 && tree.nodeCount == 1)
        #expect(try tree.add(people[1].leaf) == LeafIndex(1))
        #expect(tree.leafCount == 2 && tree.nodeCount == 3)
        #expect(try tree.add(people[2].leaf) == LeafIndex(2))
        #expect(tree.leafCount == 4 && tree.nodeCount == 7)
        #expect(try tree.add(people[3].leaf) == LeafIndex(3))
        #expect(tree.leftmostBlankLeaf == nil)

        try tree.remove(LeafIndex(1))
        #expect(tree.leafCount == 4)
        #expect(tree.leftmostBlankLeaf == LeafIndex(1))
        #expect(try tree.add(people[4].leaf) == LeafIndex(1))
        #expect(tree.leafNode(at: LeafIndex(1)) == people[4].leaf)
        #expect(try tree.add(people[5].leaf) == LeafIndex(4))
        #expect(tree.leafCount == 8 && tree.memberCount == 5)
        #expect(tree.leafIndex(signatureKey: people[5].signer.publicKey) == LeafIndex(4))
        #expect(tree.leafIndex(encryptionKey: people[2].encryptionKey.publicKey) == LeafIndex(2))
        #expect(tree.leafIndex(of: people[3].leaf) == LeafIndex(3))
        #expect(tree.leaves.map(\.index.rawValue) == [0, 1, 2, 3, 4])
    }

    @Test func removeTruncatesBlankRightSubtrees() throws {
        var tree = try plainTree(members(5))
        #expect(tree.leafCount == 8)
        try tree.remove(LeafIndex(4))
        #expect(tree.leafCount == 4 && tree.nodeCount == 7)
        try tree.remove(LeafIndex(1))
        #expect(tree.leafCount == 4)
        try tree.remove(LeafIndex(2))
        #expect(tree.leafCount == 4, "leaf 3 still lives in the right half")
        try tree.remove(LeafIndex(3))
        #expect(tree.leafCount == 1 && tree.nodeCount == 1)
        #expect(tree.memberCount == 1)
    }

    @Test func serializedTreeDropsTrailingBlanksAndRoundTrips() throws {
        let tree = try plainTree(members(3))
        #expect(tree.nodeCount == 7)
        #expect(tree.ratchetTreeNodes.nodes.count == 5)
        let decoded = try RatchetTree(tlsSerialized: tree.ratchetTreeNodes.tlsSerialized, provider: provider)
        #expect(decoded == tree)
        #expect(decoded.treeHash() == tree.treeHash())
    }

    @Test func malformedNodeListsAreRejected() throws {
        let member = try TreeTestMember("a")
        let parent = ParentNode(encryptionKey: HPKEPrivateKey.generate().publicKey, parentHash: Data(), unmergedLeaves: [])
        #expect(throws: TreeError.emptyOrTrailingBlank) { try RatchetTree(RatchetTreeNodes(nodes: []), provider: provider) }
        #expect(throws: TreeError.emptyOrTrailingBlank) {
            try RatchetTree(RatchetTreeNodes(nodes: [.leaf(member.leaf), nil]), provider: provider)
        }
        #expect(throws: TreeError.nodeMisplaced(NodeIndex(0))) {
            try RatchetTree(RatchetTreeNodes(nodes: [.parent(parent)]), provider: provider)
        }
        #expect(throws: TreeError.nodeMisplaced(NodeIndex(1))) {
            try RatchetTree(RatchetTreeNodes(nodes: [.leaf(member.leaf), .leaf(member.leaf)]), provider: provider)
        }
    }

    @Test func updateReplacesLeafAndBlanksDirectPath() throws {
        let people = try members(4)
        var group = TreeTestGroup(creator: people[0])
        try group.commit(by: LeafIndex(0), adding: Array(people[1...3]))
        #expect(group.tree.parentNode(at: NodeIndex(1)) != nil && group.tree.parentNode(at: NodeIndex(3)) != nil)

        let replacement = try TreeTestMember("member 2 again")
        var tree = group.tree
        try tree.update(replacement.leaf, at: LeafIndex(2))
        #expect(tree.leafNode(at: LeafIndex(2)) == replacement.leaf)
        #expect(tree.isBlank(NodeIndex(5)) && tree.isBlank(NodeIndex(3)))
        #expect(!tree.isBlank(NodeIndex(1)))
    }

    @Test func addListsNewLeafAsUnmergedAtNonBlankAncestors() throws {
        let people = try members(4)
        var group = TreeTestGroup(creator: people[0])
        try group.commit(by: LeafIndex(0), adding: Array(people[1...2]))
        // Leaf 0's path set nodes 1 and 3; node 5 stayed blank (leaf 3 was empty).
        #expect(!group.tree.isBlank(NodeIndex(3)) && group.tree.isBlank(NodeIndex(5)))

        var tree = group.tree
        let index = try tree.add(people[3].leaf)
        #expect(index == LeafIndex(3))
        #expect(tree.parentNode(at: NodeIndex(3))?.unmergedLeaves == [LeafIndex(3)])
        #expect(tree.resolution(of: NodeIndex(3)).map(\.rawValue) == [3, 6])
        #expect(tree.resolution(of: NodeIndex(5)).map(\.rawValue) == [4, 6])
        #expect(tree.resolution(of: NodeIndex(5), excluding: [LeafIndex(3)]).map(\.rawValue) == [4])
        #expect(tree.resolution(of: NodeIndex(3), excluding: [LeafIndex(3)]).map(\.rawValue) == [3])
        try tree.verifyUnmergedLeaves()
        try tree.verifyParentHashes()

        // A commit by leaf 1 merges leaf 3 at the root again.
        try group.commit(by: LeafIndex(1), adding: [people[3]])
        #expect(group.tree.parentNode(at: NodeIndex(3))?.unmergedLeaves == [])
    }

    // MARK: TreeKEM across epochs

    @Test func membersAgreeAcrossCommitsAddsAndRemoves() throws {
        let people = try members(9)
        var group = TreeTestGroup(creator: people[0])
        let lone = try group.commit(by: LeafIndex(0))
        #expect(lone.updatePath.nodes.isEmpty && lone.commitSecret.count == 32)
        try group.commit(by: LeafIndex(0), adding: Array(people[1...4]))
        try group.commit(by: LeafIndex(3))
        try group.commit(by: LeafIndex(2), adding: Array(people[5...6]), removing: [LeafIndex(1)])
        // Members now sit at leaves 0 ... 5 (the Adds filled leaf 1, freed by the Remove, then leaf 5).
        #expect(group.tree.leaves.map(\.index.rawValue) == [0, 1, 2, 3, 4, 5])
        try group.commit(by: LeafIndex(4), removing: [LeafIndex(0), LeafIndex(5)])
        try group.commit(by: LeafIndex(3), adding: Array(people[7...8]))
        #expect(group.tree.leaves.map(\.index.rawValue) == [0, 1, 2, 3, 4, 5])
        for committer in group.keys.keys.sorted() { try group.commit(by: committer) }
        #expect(group.tree.memberCount == 6)
        let decoded = try RatchetTree(tlsSerialized: group.tree.ratchetTreeNodes.tlsSerialized, provider: provider)
        #expect(decoded == group.tree)
        try decoded.validate(groupID: TreeTestGroup.groupID)
    }

    // MARK: Rejections

    /// A group of five after a few commits, so most parents are set and chained.
    func committedGroup() throws -> TreeTestGroup {
        let people = try members(5)
        var group = TreeTestGroup(creator: people[0])
        try group.commit(by: LeafIndex(0), adding: Array(people[1...4]))
        try group.commit(by: LeafIndex(4))
        return group
    }

    @Test func tamperedParentNodeFailsParentHashCheck() throws {
        let group = try committedGroup()
        for i in stride(from: 1, to: group.tree.nodeCount, by: 2) {
            guard case .parent(var parent) = group.tree[NodeIndex(UInt32(i))] else { continue }
            var tampered = group.tree
            parent.parentHash = Data(repeating: 0xAB, count: 32)
            tampered.nodes[i] = .parent(parent)
            #expect(throws: TreeError.self, "node \(i)") { try tampered.verifyParentHashes() }
            do {
                try tampered.verifyParentHashes()
            } catch {
                guard case .invalidParentHash = error else {
                    Issue.record("node \(i): unexpected \(error)")
                    continue
                }
            }
        }
        var swapped = group.tree
        guard case .parent(var root) = swapped[swapped.root] else {
            Issue.record("blank root")
            return
        }
        root.encryptionKey = HPKEPrivateKey.generate().publicKey
        swapped.nodes[Int(swapped.root.rawValue)] = .parent(root)
        #expect(throws: TreeError.invalidParentHash(swapped.root)) { try swapped.verifyParentHashes() }
    }

    @Test func tamperedLeafSignatureIsRejected() throws {
        let group = try committedGroup()
        var tampered = group.tree
        guard case .leaf(var leaf) = tampered[LeafIndex(2).nodeIndex] else {
            Issue.record("blank leaf")
            return
        }
        leaf.signature[leaf.signature.startIndex] ^= 1
        tampered.nodes[4] = .leaf(leaf)
        #expect(throws: TreeError.invalidLeafSignature(LeafIndex(2))) {
            try tampered.verifyLeafSignatures(groupID: TreeTestGroup.groupID)
        }
    }

    @Test func badUpdatePathsAreRejectedAndLeaveTheTreeUnchanged() throws {
        var group = try committedGroup()
        let before = group.tree
        let sender = LeafIndex(1)
        let signer = try #require(group.members[sender]).signer
        let context = group.nextContext
        let created = try before.createUpdatePath(
            from: sender, leaf: LeafNodeTemplate(try #require(before.leafNode(at: sender))), signer: signer,
            groupContext: context)
        let receiverKeys = try #require(group.keys[LeafIndex(3)])
        func apply(_ path: UpdatePath, context: GroupContext = context, keys: TreePrivateKeys? = nil) throws {
            _ = try before.applyUpdatePath(path, from: sender, groupContext: context, privateKeys: keys ?? receiverKeys)
        }

        // Leaf signature.
        var badSignature = created.updatePath
        badSignature.leafNode.signature[badSignature.leafNode.signature.startIndex] ^= 1
        #expect(throws: TreeError.invalidLeafSignature(sender)) { try apply(badSignature) }

        // A validly re-signed leaf whose parent hash does not match the path.
        var badParentHash = created.updatePath
        badParentHash.leafNode.source = .commit(parentHash: Data(repeating: 1, count: 32))
        try provider.signLeafNode(&badParentHash.leafNode, with: signer, groupID: TreeTestGroup.groupID, leafIndex: sender)
        #expect(throws: TreeError.leafParentHashMismatch(sender)) { try apply(badParentHash) }

        // A path node key changed: the parent hash chain no longer matches.
        var badKey = created.updatePath
        badKey.nodes[badKey.nodes.count - 1].encryptionKey = HPKEPrivateKey.generate().publicKey
        #expect(throws: TreeError.leafParentHashMismatch(sender)) { try apply(badKey) }

        // Wrong number of nodes or ciphertexts.
        var shortPath = created.updatePath
        shortPath.nodes.removeLast()
        #expect(throws: TreeError.pathLengthMismatch(expected: created.updatePath.nodes.count, actual: shortPath.nodes.count)) {
            try apply(shortPath)
        }
        let steps = before.filteredDirectPath(of: sender)
        let position = try #require(steps.firstIndex { before.isInSubtree(LeafIndex(3).nodeIndex, of: $0.copathChild) })
        var fewerCiphertexts = created.updatePath
        fewerCiphertexts.nodes[position].encryptedPathSecret.removeLast()
        #expect(throws: TreeError.self) { try apply(fewerCiphertexts) }

        // Tampered ciphertext, or a context other than the sender's.
        var badCiphertext = created.updatePath
        for i in badCiphertext.nodes[position].encryptedPathSecret.indices {
            badCiphertext.nodes[position].encryptedPathSecret[i].ciphertext[0] ^= 1
        }
        #expect(throws: TreeError.pathSecretDecryptionFailed(steps[position].node)) { try apply(badCiphertext) }
        var otherEpoch = context
        otherEpoch.epoch += 1
        #expect(throws: TreeError.pathSecretDecryptionFailed(steps[position].node)) {
            try apply(created.updatePath, context: otherEpoch)
        }

        // The sender cannot process its own path; a receiver without usable keys finds nothing.
        let senderKeys = try #require(group.keys[sender])
        #expect(throws: TreeError.senderIsReceiver) { try apply(created.updatePath, keys: senderKeys) }
        let stranger = TreePrivateKeys(leafIndex: LeafIndex(3), leafKey: .generate())
        #expect(throws: TreeError.noDecryptableNode) { try apply(created.updatePath, keys: stranger) }

        // The untouched path still applies, and nothing above changed the tree.
        #expect(group.tree == before)
        _ = try before.applyUpdatePath(created.updatePath, from: sender, groupContext: context, privateKeys: receiverKeys)

        // Reusing the old leaf key is refused.
        var reused = created.updatePath
        reused.leafNode.encryptionKey = try #require(before.leafNode(at: sender)).encryptionKey
        try provider.signLeafNode(&reused.leafNode, with: signer, groupID: TreeTestGroup.groupID, leafIndex: sender)
        #expect(throws: TreeError.encryptionKeyNotRefreshed(sender)) { try apply(reused) }

        group.tree = before
        #expect(throws: TreeError.signerMismatch) {
            _ = try before.createUpdatePath(
                from: sender, leaf: LeafNodeTemplate(try #require(before.leafNode(at: sender))),
                signer: .generate(), groupContext: context)
        }
    }

    @Test func failedOperationsLeaveTheTreeUnchanged() throws {
        var tree = try plainTree(members(3))
        try tree.remove(LeafIndex(1))
        let before = tree
        #expect(throws: TreeError.blankLeaf(LeafIndex(1))) { try tree.remove(LeafIndex(1)) }
        #expect(throws: TreeError.leafOutOfRange(LeafIndex(9))) { try tree.remove(LeafIndex(9)) }
        #expect(throws: TreeError.blankLeaf(LeafIndex(1))) { try tree.update(try TreeTestMember("x").leaf, at: LeafIndex(1)) }
        #expect(throws: TreeError.blankLeaf(LeafIndex(3))) { try tree.update(try TreeTestMember("y").leaf, at: LeafIndex(3)) }
        #expect(tree == before)
    }

    @Test func joinerWithWrongPathSecretIsRejected() throws {
        let people = try members(3)
        var group = TreeTestGroup(creator: people[0])
        try group.commit(by: LeafIndex(0), adding: [people[1]])
        var proposed = group.tree
        let joiner = try proposed.add(people[2].leaf)
        let created = try proposed.createUpdatePath(
            from: LeafIndex(0), leaf: LeafNodeTemplate(try #require(proposed.leafNode(at: LeafIndex(0)))),
            signer: people[0].signer, groupContext: group.nextContext, excluding: [joiner])
        let right = try #require(created.pathSecret(commonWith: joiner))
        let keys = try created.tree.joinerPrivateKeys(
            leaf: joiner, leafKey: people[2].encryptionKey, committer: LeafIndex(0), pathSecret: right)
        #expect(keys.pathKeys.keys.sorted() == [created.tree.root])
        #expect(throws: TreeError.publicKeyMismatch(created.tree.root)) {
            _ = try created.tree.joinerPrivateKeys(
                leaf: joiner, leafKey: people[2].encryptionKey, committer: LeafIndex(0),
                pathSecret: Data(repeating: 9, count: 32))
        }
        #expect(throws: TreeError.privateKeyMismatch(joiner.nodeIndex)) {
            _ = try created.tree.joinerPrivateKeys(leaf: joiner, leafKey: .generate(), committer: LeafIndex(0), pathSecret: nil)
        }
    }

    @Test func secretsPrintRedacted() throws {
        let group = try committedGroup()
        let keys = try #require(group.keys[LeafIndex(0)])
        #expect(String(describing: keys).contains("redacted"))
        #expect(!String(describing: keys).contains(keys.leafKey.rawBytesForStorage.testHexString))
        let created = try group.tree.createUpdatePath(
            from: LeafIndex(0), leaf: LeafNodeTemplate(try #require(group.tree.leafNode(at: LeafIndex(0)))),
            signer: try #require(group.members[LeafIndex(0)]).signer, groupContext: group.nextContext)
        #expect(String(describing: created).contains("redacted"))
        #expect(!String(describing: created).contains(created.commitSecret.testHexString))
    }
}

extension Data {
    fileprivate var testHexString: String { map { String(format: "%02x", $0) }.joined() }
}
