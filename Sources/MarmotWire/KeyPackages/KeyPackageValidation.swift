import Foundation
import MLS

/// The checks OpenMLS applies to a received KeyPackage before MDK accepts it (RFC 9420 §10.1,
/// §7.3; marmot-wire §2.5 rule 10): protocol version, cipher suite, key-package leaf with a lifetime
/// that holds now, both signatures, `init_key != encryption_key`, and every extension listed in the
/// leaf's capabilities.
public enum KeyPackageValidation {
    /// Extension types every client supports, which capabilities need not list (RFC 9420 §7.2).
    static let defaultExtensionTypes: Set<UInt16> = [0x0001, 0x0002, 0x0003, 0x0004, 0x0005]

    /// Throws the first failed check; `now` is Unix seconds.
    public static func validate(_ keyPackage: KeyPackage, now: Int64) throws(KeyPackageValidationError) {
        guard keyPackage.version == .mls10 else { throw .unsupportedVersion(keyPackage.version.rawValue) }
        guard keyPackage.cipherSuite == .mls128X25519AES128GCMSHA256Ed25519 else {
            throw .unsupportedCipherSuite(keyPackage.cipherSuite.rawValue)
        }
        let provider = CipherSuiteProvider.mls128X25519
        let leaf = keyPackage.leafNode
        guard case .keyPackage(let lifetime) = leaf.source else { throw .notKeyPackageLeaf }
        guard now >= 0, lifetime.notBefore < UInt64(now), UInt64(now) < lifetime.notAfter else {
            throw .lifetimeNotValid(notBefore: lifetime.notBefore, notAfter: lifetime.notAfter, now: now)
        }
        guard let leafTBS = try? LeafNodeTBS(leafNode: leaf),
              provider.verifyWithLabel(leaf.signatureKey, label: "LeafNodeTBS", content: leafTBS.tlsSerialized,
                                       signature: leaf.signature)
        else { throw .invalidLeafSignature }
        guard provider.verifyWithLabel(leaf.signatureKey, label: "KeyPackageTBS", content: keyPackage.tbs.tlsSerialized,
                                       signature: keyPackage.signature)
        else { throw .invalidSignature }
        guard keyPackage.initKey != leaf.encryptionKey else { throw .initKeyEqualsEncryptionKey }
        let supported = Set(leaf.capabilities.extensions.map(\.rawValue)).union(defaultExtensionTypes)
        for ext in keyPackage.extensions + leaf.extensions where !supported.contains(ext.type.rawValue) {
            throw .extensionNotInCapabilities(ext.type)
        }
    }
}

/// Why a KeyPackage failed MLS validation.
public enum KeyPackageValidationError: Error, Sendable, Equatable, CustomStringConvertible {
    case unsupportedVersion(UInt16)
    case unsupportedCipherSuite(UInt16)
    /// The leaf's source is update or commit, not key_package.
    case notKeyPackageLeaf
    /// now is not strictly inside (not_before, not_after).
    case lifetimeNotValid(notBefore: UInt64, notAfter: UInt64, now: Int64)
    case invalidLeafSignature
    case invalidSignature
    case initKeyEqualsEncryptionKey
    /// An extension of the KeyPackage or its leaf is not listed in the leaf's capabilities.
    case extensionNotInCapabilities(ExtensionType)

    public var description: String {
        switch self {
        case .unsupportedVersion(let v): "KeyPackage: protocol version \(v) is not mls10"
        case .unsupportedCipherSuite(let s): "KeyPackage: cipher suite \(s) is not 0x0001"
        case .notKeyPackageLeaf: "KeyPackage: leaf source is not key_package"
        case .lifetimeNotValid(let b, let a, let n): "KeyPackage: lifetime \(b)..\(a) does not contain \(n)"
        case .invalidLeafSignature: "KeyPackage: leaf signature does not verify"
        case .invalidSignature: "KeyPackage: signature does not verify"
        case .initKeyEqualsEncryptionKey: "KeyPackage: init_key equals the leaf encryption_key"
        case .extensionNotInCapabilities(let t): "KeyPackage: extension \(t) is not in the leaf capabilities"
        }
    }
}
