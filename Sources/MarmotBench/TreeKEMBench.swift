import Foundation
import MLS

/// Costs of the ratchet-tree work a commit does: tree hash, joiner validation, UpdatePath
/// creation and processing, for a group of 128 members.
enum TreeKEMBench {
    static func run() {
        Bench.section("MLS ratchet tree / TreeKEM (128 members)")
        let provider = CipherSuiteProvider.mls128X25519
        let groupID = GroupID(Data("bench".utf8))
        let capabilities = Capabilities(
            versions: [.mls10], cipherSuites: [.mls128X25519AES128GCMSHA256Ed25519], extensions: [], proposals: [],
            credentials: [.basic])
        do {
            var signers: [SignaturePrivateKey] = []
            var encryptionKeys: [HPKEPrivateKey] = []
            var leaves: [LeafNode] = []
            for i in 0..<128 {
                let signer = provider.generateSignatureKey()
                let key = provider.generateKeyPair()
                var leaf = LeafNode(
                    encryptionKey: key.publicKey, signatureKey: signer.publicKey,
                    credential: .basic(identity: Data("member \(i)".utf8)), capabilities: capabilities,
                    source: .keyPackage(lifetime: Lifetime(notBefore: 0, notAfter: .max)), extensions: [], signature: Data())
                try provider.signLeafNode(&leaf, with: signer, groupID: groupID, leafIndex: LeafIndex(0))
                signers.append(signer)
                encryptionKeys.append(key)
                leaves.append(leaf)
            }
            var tree = RatchetTree(provider: provider, firstLeaf: leaves[0])
            for leaf in leaves.dropFirst() { try tree.add(leaf) }
            let context = GroupContext(
                cipherSuite: provider.suite, groupID: groupID, epoch: 1, treeHash: Data(),
                confirmedTranscriptHash: Data(repeating: 0, count: 32), extensions: [])
            // The creator's commit adding everyone: only its path is set, so later paths encrypt to
            // long resolutions (the costly case right after a large Add).
            let first = try tree.createUpdatePath(
                from: LeafIndex(0), leaf: LeafNodeTemplate(leaves[0]), signer: signers[0], groupContext: context,
                excluding: Set((1..<128).map { LeafIndex(UInt32($0)) }))
            tree = first.tree

            Bench.measure("treeHash", iterations: 50) { _ = tree.treeHash() }
            try Bench.measure("validate (parent hashes, signatures, keys)", iterations: 5) {
                try tree.validate(groupID: groupID)
            }
            let sender = LeafIndex(77)
            let template = LeafNodeTemplate(try tree.requireLeaf(sender))
            var created: CreatedUpdatePath?
            try Bench.measure("createUpdatePath (sparse tree)", iterations: 5) {
                created = try tree.createUpdatePath(
                    from: sender, leaf: template, signer: signers[77], groupContext: context)
            }
            guard let created else { return }
            print("  (\(created.updatePath.nodes.reduce(0) { $0 + $1.encryptedPathSecret.count }) path-secret encryptions)")
            // Leaf 3 joined by the creator's Welcome: it holds the keys above its common ancestor with leaf 0.
            let receiver = try tree.joinerPrivateKeys(
                leaf: LeafIndex(3), leafKey: encryptionKeys[3], committer: LeafIndex(0),
                pathSecret: first.pathSecret(commonWith: LeafIndex(3)))
            try Bench.measure("applyUpdatePath (sparse tree)", iterations: 10) {
                _ = try tree.applyUpdatePath(
                    created.updatePath, from: sender, groupContext: context, privateKeys: receiver)
            }
        } catch {
            print("TreeKEM bench failed: \(error)")
        }
    }
}
