import Foundation

/// Why a KeyPackage is invalid (RFC 9420 §10.1). Leaf failures that have a KeyPackage-level meaning
/// (lifetime, extensions, capabilities) are reported under the same names here; the rest are
/// wrapped in `invalidLeafNode`.
public enum KeyPackageValidationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Not mls10, or not the group's version.
    case unsupportedVersion(ProtocolVersion)
    /// Not the group's (or, outside a group, the provider's) cipher suite.
    case cipherSuiteMismatch(expected: CipherSuite, actual: CipherSuite)
    /// The KeyPackage signature does not verify under the leaf's signature key.
    case badSignature
    /// init_key equals leaf_node.encryption_key.
    case initKeyEqualsEncryptionKey
    /// The init_key is not an HPKE public key of the suite (its length is wrong, §5.1.1).
    case invalidInitKeyLength(Int)
    /// A KeyPackage or leaf extension whose type the leaf's capabilities do not list (§10).
    case unsupportedExtension(ExtensionType)
    /// Two KeyPackage or leaf extensions of one type (§13.4).
    case duplicateExtension(ExtensionType)
    /// The leaf lifetime ended before `now`.
    case expired(notAfter: UInt64, now: UInt64)
    /// The leaf lifetime starts after `now`.
    case notYetValid(notBefore: UInt64, now: UInt64)
    /// The leaf lifetime spans more than the configured maximum (§7.2).
    case lifetimeTooLong(span: UInt64, maximum: UInt64)
    /// The leaf does not support something the group requires (§7.3, §11.1, §13.4).
    case missingRequiredCapability(Capability)
    /// Any other leaf failure (§7.3): signature, source, credential, key uniqueness.
    case invalidLeafNode(LeafNodeValidationError)

    /// Lifts a leaf failure, keeping the shared cases flat.
    public init(_ leafError: LeafNodeValidationError) {
        switch leafError {
        case .unsupportedExtension(let t): self = .unsupportedExtension(t)
        case .duplicateExtension(let t): self = .duplicateExtension(t)
        case .expired(let end, let now): self = .expired(notAfter: end, now: now)
        case .notYetValid(let start, let now): self = .notYetValid(notBefore: start, now: now)
        case .lifetimeTooLong(let span, let max): self = .lifetimeTooLong(span: span, maximum: max)
        case .missingRequiredCapability(let c): self = .missingRequiredCapability(c)
        default: self = .invalidLeafNode(leafError)
        }
    }

    public var description: String {
        switch self {
        case .unsupportedVersion(let v): "unsupported KeyPackage version \(v.rawValue)"
        case .cipherSuiteMismatch(let e, let a): "KeyPackage cipher suite \(a), expected \(e)"
        case .badSignature: "KeyPackage signature does not verify"
        case .initKeyEqualsEncryptionKey: "KeyPackage init_key equals its leaf encryption_key"
        case .invalidInitKeyLength(let n): "KeyPackage init_key is \(n) bytes, not an HPKE public key of the suite"
        case .unsupportedExtension(let t): "extension \(t) is not listed in the leaf capabilities"
        case .duplicateExtension(let t): "extension \(t) appears twice"
        case .expired(let end, let now): "KeyPackage expired at \(end), now \(now)"
        case .notYetValid(let start, let now): "KeyPackage valid from \(start), now \(now)"
        case .lifetimeTooLong(let span, let max): "KeyPackage lifetime spans \(span) s, more than \(max) s"
        case .missingRequiredCapability(let c): "KeyPackage does not support required \(c)"
        case .invalidLeafNode(let e): "KeyPackage leaf invalid: \(e)"
        }
    }
}

/// Checks a KeyPackage on receipt (RFC 9420 §10.1): before adding its owner, when it arrives in an
/// Add, or when fetched from a relay (Marmot, marmot-wire §2.5 rule 10).
public struct KeyPackageValidator: Sendable {
    public var leafValidator: LeafNodeValidator

    public init(
        provider: CipherSuiteProvider = .mls128X25519, configuration: ValidationConfiguration = .init(),
        now: UInt64 = UnixTime.now
    ) {
        leafValidator = LeafNodeValidator(provider: provider, configuration: configuration, now: now)
    }

    public var provider: CipherSuiteProvider { leafValidator.provider }

    /// Validates a KeyPackage for use in a group: version and suite equal the group's, the leaf is
    /// valid for a KeyPackage in this group (§7.3: required capabilities, credential compatibility,
    /// key uniqueness against the tree), plus the KeyPackage's own checks.
    public func validate(_ keyPackage: KeyPackage, in group: GroupValidationContext) throws(KeyPackageValidationError) {
        try checkHeader(keyPackage, version: group.groupContext.version, suite: group.groupContext.cipherSuite)
        do {
            try leafValidator.validate(keyPackage.leafNode, as: .keyPackage, in: group)
        } catch {
            throw KeyPackageValidationError(error)
        }
        try checkPackage(keyPackage)
    }

    /// `validate(_:in:)` for one of many Adds (`ProposalListValidator.checkAdds`): the caller checked
    /// the keys against the tree, and `compatibility` indexes the tree's members, so adding many
    /// members costs time linear in the group.
    func validateAdded(
        _ keyPackage: KeyPackage, in group: GroupValidationContext, compatibility: CredentialCompatibility
    ) throws(KeyPackageValidationError) {
        try checkHeader(keyPackage, version: group.groupContext.version, suite: group.groupContext.cipherSuite)
        do {
            try leafValidator.validateAdded(keyPackage.leafNode, in: group, keysChecked: true, compatibility: compatibility)
        } catch {
            throw KeyPackageValidationError(error)
        }
        try checkPackage(keyPackage)
    }

    /// Validates a KeyPackage outside any group (e.g. a fetched Marmot KeyPackage event): version mls10,
    /// the provider's suite, and every check that needs no group.
    public func validate(_ keyPackage: KeyPackage) throws(KeyPackageValidationError) {
        try checkHeader(keyPackage, version: .mls10, suite: provider.suite)
        do {
            try leafValidator.validateKeyPackageLeaf(keyPackage.leafNode)
        } catch {
            throw KeyPackageValidationError(error)
        }
        try checkPackage(keyPackage)
    }

    private func checkHeader(_ keyPackage: KeyPackage, version: ProtocolVersion, suite: CipherSuite) throws(KeyPackageValidationError) {
        guard keyPackage.version == .mls10, keyPackage.version == version else {
            throw .unsupportedVersion(keyPackage.version)
        }
        guard keyPackage.cipherSuite == suite, keyPackage.cipherSuite == provider.suite else {
            throw .cipherSuiteMismatch(expected: suite, actual: keyPackage.cipherSuite)
        }
    }

    private func checkPackage(_ keyPackage: KeyPackage) throws(KeyPackageValidationError) {
        guard provider.verifyKeyPackageSignature(keyPackage) else { throw .badSignature }
        guard keyPackage.initKey.bytes.count == provider.hpkePublicKeyLength else {
            throw .invalidInitKeyLength(keyPackage.initKey.bytes.count)
        }
        guard keyPackage.initKey != keyPackage.leafNode.encryptionKey else { throw .initKeyEqualsEncryptionKey }
        do {
            try LeafNodeValidator.checkExtensionList(keyPackage.extensions, listedIn: keyPackage.leafNode.capabilities)
        } catch {
            throw KeyPackageValidationError(error)
        }
    }
}
