import Foundation

/// Why a ratchet tree, a change to it, or an UpdatePath was rejected (RFC 9420 §7, §12.1).
///
/// Every operation that can fail checks its input before touching the tree, so a thrown error always
/// leaves the caller's tree as it was.
public enum TreeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A tree with no nodes, or a node list whose last entry is blank (§12.4.3.3).
    case emptyOrTrailingBlank
    /// A leaf at an odd position or a parent at an even one.
    case nodeMisplaced(NodeIndex)
    /// More leaves than a `uint32` node index can address.
    case tooManyLeaves
    /// A leaf index outside the tree.
    case leafOutOfRange(LeafIndex)
    /// A node index outside the tree.
    case nodeOutOfRange(NodeIndex)
    /// An operation needs a member at this leaf, but it is blank.
    case blankLeaf(LeafIndex)
    /// A non-blank parent node that no descendant chains to by parent hash (§7.9.2).
    case invalidParentHash(NodeIndex)
    /// A committer's new leaf whose parent_hash differs from the recomputed chain (§7.5, §7.9.2).
    case leafParentHashMismatch(LeafIndex)
    /// A leaf signature that does not verify over its LeafNodeTBS (§7.3).
    case invalidLeafSignature(LeafIndex)
    /// A leaf whose leaf_node_source does not fit where it appears (§7.3).
    case invalidLeafSource(LeafIndex)
    /// An unmerged_leaves entry that is blank, not below the parent, out of order, or missing from an
    /// intermediate node (§7.1, §12.4.3.1).
    case invalidUnmergedLeaves(NodeIndex)
    /// An HPKE encryption key that appears in more than one node (§7.3, §12.4.3.1).
    case duplicateEncryptionKey(NodeIndex)
    /// A signature key used by two members (§7.3).
    case duplicateSignatureKey(LeafIndex)
    /// A committer's new leaf reuses the encryption key of the leaf it replaces (§12.4.2).
    case encryptionKeyNotRefreshed(LeafIndex)
    /// An UpdatePath key already present in the tree (§12.4.2).
    case updatePathKeyReused
    /// An UpdatePath with the wrong number of nodes for the sender's filtered direct path (§7.6).
    case pathLengthMismatch(expected: Int, actual: Int)
    /// An UpdatePathNode with the wrong number of ciphertexts for its copath resolution (§7.6).
    case ciphertextCountMismatch(node: NodeIndex, expected: Int, actual: Int)
    /// The receiver holds no private key for any node in the resolution it must decrypt from (§7.5).
    case noDecryptableNode
    /// A path secret that did not decrypt under the provisional GroupContext.
    case pathSecretDecryptionFailed(NodeIndex)
    /// A key derived from a path secret differs from the public key in the tree or UpdatePath (§7.5).
    case publicKeyMismatch(NodeIndex)
    /// A private key that does not belong to the node it is given for.
    case privateKeyMismatch(NodeIndex)
    /// A member tried to process its own UpdatePath.
    case senderIsReceiver
    /// The signing key does not match the signature_key of the leaf being signed.
    case signerMismatch
    /// A cipher-suite primitive failed.
    case crypto(MLSCryptoError)

    public var description: String {
        switch self {
        case .emptyOrTrailingBlank: "ratchet tree is empty or ends in a blank node"
        case .nodeMisplaced(let n): "\(n) holds the wrong kind of node for its position"
        case .tooManyLeaves: "ratchet tree would exceed 2^31 leaves"
        case .leafOutOfRange(let l): "\(l) is outside the tree"
        case .nodeOutOfRange(let n): "\(n) is outside the tree"
        case .blankLeaf(let l): "\(l) is blank"
        case .invalidParentHash(let n): "\(n) is not parent-hash valid"
        case .leafParentHashMismatch(let l): "parent_hash of the new leaf at \(l) does not match the tree"
        case .invalidLeafSignature(let l): "signature of \(l) does not verify"
        case .invalidLeafSource(let l): "leaf_node_source of \(l) is not allowed here"
        case .invalidUnmergedLeaves(let n): "unmerged_leaves of \(n) are invalid"
        case .duplicateEncryptionKey(let n): "encryption key of \(n) appears elsewhere in the tree"
        case .duplicateSignatureKey(let l): "signature key of \(l) is used by another member"
        case .encryptionKeyNotRefreshed(let l): "new leaf at \(l) reuses its old encryption key"
        case .updatePathKeyReused: "an UpdatePath key is already in the tree"
        case .pathLengthMismatch(let e, let a): "UpdatePath has \(a) nodes, filtered direct path has \(e)"
        case .ciphertextCountMismatch(let n, let e, let a): "\(n) carries \(a) ciphertexts for a resolution of \(e)"
        case .noDecryptableNode: "no private key for any node the path secret was encrypted to"
        case .pathSecretDecryptionFailed(let n): "path secret for \(n) did not decrypt"
        case .publicKeyMismatch(let n): "derived public key for \(n) differs from the UpdatePath"
        case .privateKeyMismatch(let n): "private key does not match the public key at \(n)"
        case .senderIsReceiver: "a member cannot process its own UpdatePath"
        case .signerMismatch: "signing key does not match the leaf's signature_key"
        case .crypto(let e): "crypto failure: \(e)"
        }
    }
}
