import Foundation

extension KeyPackage {
    /// Creates a KeyPackage for a basic credential (RFC 9420 §10) with fresh, distinct HPKE init and
    /// leaf encryption keys, a key_package-sourced leaf signed over its LeafNodeTBS, and the package
    /// signed with label "KeyPackageTBS".
    ///
    /// The defaults match what MDK 0.8.0 publishes (marmot-wire §2.6): Marmot capabilities with GREASE
    /// and a `now - 1 h ... now + 84 days` lifetime; add `Extension.lastResort` to
    /// `keyPackageExtensions` for a reusable package as MDK does. A fresh Ed25519 signing key is made
    /// when `signer` is nil. Inputs are checked so the result passes `KeyPackageValidator` except for
    /// a lifetime the caller chose outside the current time.
    public static func create(
        identity: Data,
        capabilities: Capabilities = .marmotDefault(),
        lifetime: Lifetime = .keyPackageDefault(),
        keyPackageExtensions: [Extension] = [],
        leafExtensions: [Extension] = [],
        signer: SignaturePrivateKey? = nil,
        provider: CipherSuiteProvider = .mls128X25519
    ) throws(KeyPackageCreationError) -> (keyPackage: KeyPackage, privateMaterial: KeyPackagePrivateMaterial) {
        try create(
            credential: .basic(identity: identity), capabilities: capabilities, lifetime: lifetime,
            keyPackageExtensions: keyPackageExtensions, leafExtensions: leafExtensions, signer: signer,
            provider: provider)
    }

    /// `create(identity:…)` for any credential.
    public static func create(
        credential: Credential,
        capabilities: Capabilities = .marmotDefault(),
        lifetime: Lifetime = .keyPackageDefault(),
        keyPackageExtensions: [Extension] = [],
        leafExtensions: [Extension] = [],
        signer: SignaturePrivateKey? = nil,
        provider: CipherSuiteProvider = .mls128X25519
    ) throws(KeyPackageCreationError) -> (keyPackage: KeyPackage, privateMaterial: KeyPackagePrivateMaterial) {
        try checkInputs(
            credential: credential, capabilities: capabilities, lifetime: lifetime,
            keyPackageExtensions: keyPackageExtensions, leafExtensions: leafExtensions, suite: provider.suite)

        let signer = signer ?? provider.generateSignatureKey()
        let encryptionKey = provider.generateKeyPair()
        var initKey = provider.generateKeyPair()
        while initKey.publicKey == encryptionKey.publicKey { initKey = provider.generateKeyPair() }

        var leaf = LeafNode(
            encryptionKey: encryptionKey.publicKey, signatureKey: signer.publicKey, credential: credential,
            capabilities: capabilities, source: .keyPackage(lifetime: lifetime), extensions: leafExtensions,
            signature: Data())
        do {
            try provider.signLeafNode(&leaf, with: signer, groupID: GroupID(Data()), leafIndex: LeafIndex(0))
        } catch {
            throw .signingFailed(error.description)
        }
        var keyPackage = KeyPackage(
            version: .mls10, cipherSuite: provider.suite, initKey: initKey.publicKey, leafNode: leaf,
            extensions: keyPackageExtensions, signature: Data())
        do {
            try provider.signKeyPackage(&keyPackage, with: signer)
        } catch {
            throw .signingFailed(error.description)
        }
        let material = KeyPackagePrivateMaterial(
            cipherSuite: provider.suite, initPrivateKey: initKey, encryptionPrivateKey: encryptionKey,
            signaturePrivateKey: signer)
        return (keyPackage, material)
    }

    /// The structural rules a receiver applies (§7.2, §10, §13.4), checked before any key is made.
    private static func checkInputs(
        credential: Credential, capabilities: Capabilities, lifetime: Lifetime, keyPackageExtensions: [Extension],
        leafExtensions: [Extension], suite: CipherSuite
    ) throws(KeyPackageCreationError) {
        guard capabilities.versions.contains(.mls10) else { throw .versionNotInCapabilities(.mls10) }
        guard capabilities.cipherSuites.contains(suite) else { throw .cipherSuiteNotInCapabilities(suite) }
        guard capabilities.credentials.contains(credential.type) else {
            throw .credentialTypeNotInCapabilities(credential.type)
        }
        if let listed = capabilities.extensions.first(where: \.isDefault) { throw .defaultExtensionListed(listed) }
        if let listed = capabilities.proposals.first(where: \.isDefault) { throw .defaultProposalListed(listed) }
        guard lifetime.notBefore <= lifetime.notAfter else { throw .invalidLifetime(lifetime) }
        for list in [keyPackageExtensions, leafExtensions] {
            var seen = Set<ExtensionType>()
            for ext in list {
                guard seen.insert(ext.type).inserted else { throw .duplicateExtension(ext.type) }
                guard ext.type.isDefault || ext.type.isGrease || capabilities.extensions.contains(ext.type) else {
                    throw .extensionNotInCapabilities(ext.type)
                }
            }
        }
    }
}

/// Why a KeyPackage could not be created from the given inputs.
public enum KeyPackageCreationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The capabilities do not list the version the package is made for (§10).
    case versionNotInCapabilities(ProtocolVersion)
    /// The capabilities do not list the provider's cipher suite (§10).
    case cipherSuiteNotInCapabilities(CipherSuite)
    /// The capabilities do not list the credential's own type (§7.2).
    case credentialTypeNotInCapabilities(CredentialType)
    /// A default extension type (0x0001–0x0005) is listed, which §7.2 forbids.
    case defaultExtensionListed(ExtensionType)
    /// A default proposal type (0x0001–0x0007) is listed, which §7.2 forbids.
    case defaultProposalListed(ProposalType)
    /// not_before lies after not_after.
    case invalidLifetime(Lifetime)
    /// Two extensions of one type in the same list (§13.4).
    case duplicateExtension(ExtensionType)
    /// A non-default extension that the capabilities do not list (§10).
    case extensionNotInCapabilities(ExtensionType)
    /// Signing the leaf or the package failed.
    case signingFailed(String)

    public var description: String {
        switch self {
        case .versionNotInCapabilities(let v): "capabilities do not list protocol version \(v.rawValue)"
        case .cipherSuiteNotInCapabilities(let s): "capabilities do not list cipher suite \(s)"
        case .credentialTypeNotInCapabilities(let t): "capabilities do not list credential type \(t)"
        case .defaultExtensionListed(let t): "default extension type \(t) must not be listed in capabilities"
        case .defaultProposalListed(let t): "default proposal type \(t) must not be listed in capabilities"
        case .invalidLifetime(let l): "lifetime \(l.notBefore)...\(l.notAfter) is inverted"
        case .duplicateExtension(let t): "extension \(t) appears twice"
        case .extensionNotInCapabilities(let t): "extension \(t) is not listed in capabilities"
        case .signingFailed(let why): "signing failed: \(why)"
        }
    }
}
