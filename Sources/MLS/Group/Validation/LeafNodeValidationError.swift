import Foundation

/// Where a LeafNode being checked appears (RFC 9420 §7.3); this fixes the leaf_node_source it must
/// have, what its signature covers, and which existing leaf it replaces.
public enum LeafNodeUsage: Hashable, Sendable {
    /// Inside a KeyPackage (download, Add): source key_package, lifetime checked.
    case keyPackage
    /// In an Update proposal from the member at this leaf: source update, new encryption key.
    case update(LeafIndex)
    /// In the UpdatePath of a Commit by the member at this leaf (for an external Commit, the leaf the
    /// joiner takes): source commit, new encryption key.
    case commit(LeafIndex)
    /// Already at this leaf of a ratchet tree being checked, e.g. on join: any source.
    case treeMember(LeafIndex)
}

/// A leaf_node_source without its payload, for error reports.
public enum LeafNodeSourceKind: Hashable, Sendable {
    case keyPackage, update, commit
}

extension LeafNodeSource {
    public var kind: LeafNodeSourceKind {
        switch self {
        case .keyPackage: .keyPackage
        case .update: .update
        case .commit: .commit
        }
    }
}

/// Why a LeafNode is invalid where it appears (RFC 9420 §7.3).
public enum LeafNodeValidationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The application's credential policy refused the credential (§5.3.1).
    case credentialRejected(CredentialType)
    /// leaf_node_source does not fit where the leaf appears.
    case unexpectedSource(expected: LeafNodeSourceKind, actual: LeafNodeSourceKind)
    /// The signature does not verify over LeafNodeTBS (with group id and leaf index where required).
    case badSignature
    /// The leaf's own credential type is not in its capabilities (§7.2).
    case credentialTypeNotInCapabilities(CredentialType)
    /// The group needs something the leaf does not list: its version or suite (§11.1), a
    /// required_capabilities entry (§7.3), or a GroupContext extension type (§13.4).
    case missingRequiredCapability(Capability)
    /// A current member's capabilities do not list this leaf's credential type (§7.3).
    case credentialUnsupportedByMember(CredentialType, member: LeafIndex)
    /// This leaf's capabilities do not list the credential type a current member uses (§7.3).
    case memberCredentialUnsupported(CredentialType, member: LeafIndex)
    /// The lifetime ended before `now`.
    case expired(notAfter: UInt64, now: UInt64)
    /// The lifetime starts after `now`.
    case notYetValid(notBefore: UInt64, now: UInt64)
    /// The lifetime spans longer than the configured maximum (§7.2).
    case lifetimeTooLong(span: UInt64, maximum: UInt64)
    /// Two extensions of one type (§13.4).
    case duplicateExtension(ExtensionType)
    /// A non-default extension whose type the leaf's capabilities do not list (§7.2, §7.3).
    case unsupportedExtension(ExtensionType)
    /// An Update or Commit leaf keeps the encryption key of the leaf it replaces (§7.3, §12.4.2).
    case encryptionKeyNotRefreshed
    /// The encryption key already appears at this node of the tree (§7.3).
    case duplicateEncryptionKey(NodeIndex)
    /// The signature key is already used by the member at this leaf (§7.3).
    case duplicateSignatureKey(LeafIndex)
    /// An Update or UpdatePath leaf carries another credential than the leaf of this member it
    /// replaces, while credentials are immutable (MIP-00, §5.3.1).
    case credentialChanged(member: LeafIndex)
    /// The encryption_key is not an HPKE public key of the suite (its length is wrong, §5.1.1).
    case invalidEncryptionKeyLength(Int)

    public var description: String {
        switch self {
        case .credentialRejected(let t): "credential of type \(t) rejected by policy"
        case .unexpectedSource(let e, let a): "leaf_node_source is \(a), expected \(e)"
        case .badSignature: "leaf signature does not verify"
        case .credentialTypeNotInCapabilities(let t): "leaf capabilities do not list its own credential type \(t)"
        case .missingRequiredCapability(let c): "leaf does not support required \(c)"
        case .credentialUnsupportedByMember(let t, let m): "member at \(m) does not support credential type \(t)"
        case .memberCredentialUnsupported(let t, let m): "leaf does not support credential type \(t) of member at \(m)"
        case .expired(let end, let now): "lifetime ended at \(end), now \(now)"
        case .notYetValid(let start, let now): "lifetime starts at \(start), now \(now)"
        case .lifetimeTooLong(let span, let max): "lifetime spans \(span) s, more than \(max) s"
        case .duplicateExtension(let t): "extension \(t) appears twice"
        case .unsupportedExtension(let t): "extension \(t) is not listed in the leaf capabilities"
        case .encryptionKeyNotRefreshed: "leaf keeps the encryption key of the leaf it replaces"
        case .duplicateEncryptionKey(let n): "encryption key already used at \(n)"
        case .duplicateSignatureKey(let l): "signature key already used by the member at \(l)"
        case .credentialChanged(let l): "leaf changes the credential of the member at \(l)"
        case .invalidEncryptionKeyLength(let n): "encryption_key is \(n) bytes, not an HPKE public key of the suite"
        }
    }
}
