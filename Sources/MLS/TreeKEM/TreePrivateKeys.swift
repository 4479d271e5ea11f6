import Foundation

/// The HPKE private keys one member holds in the ratchet tree: its leaf's and those of the nodes on
/// its direct path it has received or derived (RFC 9420 §4.2, §7.4).
///
/// Not `Codable` and redacted when printed; persist it through the keys' `rawBytesForStorage`.
public struct TreePrivateKeys: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The member's own leaf.
    public let leafIndex: LeafIndex
    /// The private key of the leaf's encryption_key; replaced when the member's own Update is
    /// committed by someone else.
    public var leafKey: HPKEPrivateKey
    /// Private keys of parent nodes on the member's direct path.
    public var pathKeys: [NodeIndex: HPKEPrivateKey]

    public init(leafIndex: LeafIndex, leafKey: HPKEPrivateKey, pathKeys: [NodeIndex: HPKEPrivateKey] = [:]) {
        self.leafIndex = leafIndex
        self.leafKey = leafKey
        self.pathKeys = pathKeys
    }

    /// The private key held for a node: the leaf's own or a path node's.
    public func privateKey(for node: NodeIndex) -> HPKEPrivateKey? {
        node == leafIndex.nodeIndex ? leafKey : pathKeys[node]
    }

    /// Stores the key a path secret yields for `node` (§7.4); returns its public half.
    @discardableResult
    public mutating func setPathSecret(
        _ pathSecret: Data, at node: NodeIndex, provider: CipherSuiteProvider
    ) throws(TreeError) -> HPKEPublicKey {
        let key = try provider.nodeKey(fromPathSecret: pathSecret)
        pathKeys[node] = key
        return key.publicKey
    }

    /// Drops path keys whose node in `tree` is blank or holds another public key: the nodes that
    /// Updates, Removes and UpdatePaths replaced (the deletion rule of RFC 9420 §7.5).
    public mutating func prune(against tree: RatchetTree) {
        pathKeys = pathKeys.filter { node, key in tree.encryptionKey(at: node) == key.publicKey }
    }

    public var description: String { "TreePrivateKeys(\(leafIndex), \(pathKeys.count) path keys, redacted)" }
    public var debugDescription: String { description }
}

extension CipherSuiteProvider {
    /// path_secret[n+1] = DeriveSecret(path_secret[n], "path") (RFC 9420 §7.4); also the
    /// commit_secret after the last node of an UpdatePath (§12.4.1).
    public func nextPathSecret(_ pathSecret: Data) -> Data { deriveSecret(secret: pathSecret, label: "path") }

    /// node_priv = DeriveKeyPair(DeriveSecret(path_secret, "node")) (§7.4); the committer's leaf key
    /// comes from its leaf_secret the same way.
    public func nodeKey(fromPathSecret pathSecret: Data) throws(TreeError) -> HPKEPrivateKey {
        do {
            return try deriveKeyPair(ikm: deriveSecret(secret: pathSecret, label: "node"))
        } catch {
            throw .crypto(error)
        }
    }
}

extension RatchetTree {
    /// A joiner's private keys (§12.4.3.1): its leaf key, and, when the Welcome carried a path
    /// secret, the keys of the common ancestor with the committer and of every non-blank node above
    /// it, each derived from the one below. Every derived key must match the tree.
    public func joinerPrivateKeys(
        leaf: LeafIndex, leafKey: HPKEPrivateKey, committer: LeafIndex, pathSecret: Data?
    ) throws(TreeError) -> TreePrivateKeys {
        _ = try requireLeaf(leaf)
        guard encryptionKey(at: leaf.nodeIndex) == leafKey.publicKey else { throw .privateKeyMismatch(leaf.nodeIndex) }
        var keys = TreePrivateKeys(leafIndex: leaf, leafKey: leafKey)
        guard let pathSecret else { return keys }
        try checkInRange(committer)
        guard committer != leaf else { throw .senderIsReceiver }
        let ancestor = size.commonAncestor(leaf.nodeIndex, committer.nodeIndex)
        guard !isBlank(ancestor) else { throw .publicKeyMismatch(ancestor) }
        var secret = pathSecret
        var node: NodeIndex? = ancestor
        while let current = node {
            if let expected = encryptionKey(at: current) {
                let key = try provider.nodeKey(fromPathSecret: secret)
                guard key.publicKey == expected else { throw .publicKeyMismatch(current) }
                keys.pathKeys[current] = key
                secret = provider.nextPathSecret(secret)
            }
            node = size.parent(of: current)
        }
        return keys
    }
}
