import Foundation
import Testing
@testable import MLS

/// A client for tree tests: keys and a key-package-sourced leaf signed with them.
struct TreeTestMember {
    static let provider = CipherSuiteProvider.mls128X25519
    static let capabilities = Capabilities(
        versions: [.mls10], cipherSuites: [.mls128X25519AES128GCMSHA256Ed25519], extensions: [], proposals: [],
        credentials: [.basic])

    let signer: SignaturePrivateKey
    let encryptionKey: HPKEPrivateKey
    let leaf: LeafNode

    init(_ name: String) throws {
        signer = .generate()
        encryptionKey = .generate()
        var leaf = LeafNode(
            encryptionKey: encryptionKey.publicKey, signatureKey: signer.publicKey,
            credential: .basic(identity: Data(name.utf8)), capabilities: Self.capabilities,
            source: .keyPackage(lifetime: Lifetime(notBefore: 0, notAfter: .max)), extensions: [], signature: Data())
        try Self.provider.signLeafNode(&leaf, with: signer, groupID: GroupID(Data()), leafIndex: LeafIndex(0))
        self.leaf = leaf
    }
}

/// Every member's view of one group's tree, driven through commits with UpdatePaths the way the group
/// layer will drive it; each step checks that all members end with the same tree and commit secret.
struct TreeTestGroup {
    static let provider = CipherSuiteProvider.mls128X25519
    static let groupID = GroupID(Data("tree test group".utf8))

    var tree: RatchetTree
    var epoch: UInt64 = 0
    var members: [LeafIndex: TreeTestMember] = [:]
    var keys: [LeafIndex: TreePrivateKeys] = [:]

    init(creator: TreeTestMember) {
        tree = RatchetTree(provider: Self.provider, firstLeaf: creator.leaf)
        members[LeafIndex(0)] = creator
        keys[LeafIndex(0)] = TreePrivateKeys(leafIndex: LeafIndex(0), leafKey: creator.encryptionKey)
    }

    /// The context an UpdatePath of the next epoch is encrypted under (tree_hash filled in by the tree).
    var nextContext: GroupContext {
        GroupContext(
            cipherSuite: .mls128X25519AES128GCMSHA256Ed25519, groupID: Self.groupID, epoch: epoch + 1,
            treeHash: Data(), confirmedTranscriptHash: Data(repeating: 7, count: 32), extensions: [])
    }

    /// A commit by `committer` that adds `added` and removes `removed`, with an UpdatePath.
    @discardableResult
    mutating func commit(
        by committer: LeafIndex, adding added: [TreeTestMember] = [], removing removed: [LeafIndex] = []
    ) throws -> CreatedUpdatePath {
        var proposed = tree
        for leaf in removed { try proposed.remove(leaf) }
        var newLeaves: [LeafIndex] = []
        for member in added { newLeaves.append(try proposed.add(member.leaf)) }
        let context = nextContext
        let committerMember = try #require(members[committer])
        let created = try proposed.createUpdatePath(
            from: committer, leaf: LeafNodeTemplate(try #require(proposed.leafNode(at: committer))),
            signer: committerMember.signer, groupContext: context, excluding: Set(newLeaves))

        // No ciphertext goes to a member added by this commit.
        let ciphertexts = created.updatePath.nodes.reduce(0) { $0 + $1.encryptedPathSecret.count }
        let expected = proposed.filteredDirectPath(of: committer).reduce(0) {
            $0 + proposed.resolution(of: $1.copathChild, excluding: Set(newLeaves)).count
        }
        #expect(ciphertexts == expected)

        for leaf in removed {
            members[leaf] = nil
            keys[leaf] = nil
        }
        for (leaf, state) in keys where leaf != committer {
            let applied = try proposed.applyUpdatePath(
                created.updatePath, from: committer, groupContext: context, privateKeys: state,
                excluding: Set(newLeaves))
            #expect(applied.commitSecret == created.commitSecret, "\(leaf) commit secret")
            #expect(applied.tree == created.tree, "\(leaf) tree")
            #expect(applied.pathSecret == created.pathSecret(commonWith: leaf))
            keys[leaf] = applied.privateKeys
        }
        keys[committer] = created.privateKeys
        for (member, leaf) in zip(added, newLeaves) {
            members[leaf] = member
            keys[leaf] = try created.tree.joinerPrivateKeys(
                leaf: leaf, leafKey: member.encryptionKey, committer: committer,
                pathSecret: created.pathSecret(commonWith: leaf))
        }
        tree = created.tree
        epoch += 1
        try tree.validate(groupID: Self.groupID)
        for state in keys.values { try tree.verifyPrivateKeys(state) }
        return created
    }
}
