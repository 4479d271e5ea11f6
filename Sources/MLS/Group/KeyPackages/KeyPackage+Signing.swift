import Foundation

extension CipherSuiteProvider {
    /// The label of KeyPackage signatures (RFC 9420 §10).
    public static let keyPackageSignatureLabel = "KeyPackageTBS"

    /// Signs a KeyPackage in place over its KeyPackageTBS with the leaf's signing key (§10). The leaf
    /// itself must already be signed, since the leaf signature is part of the signed content.
    public func signKeyPackage(_ keyPackage: inout KeyPackage, with key: SignaturePrivateKey) throws(MLSCryptoError) {
        guard key.publicKey == keyPackage.leafNode.signatureKey else { throw .invalidPrivateKey }
        keyPackage.signature = try signWithLabel(
            key, label: Self.keyPackageSignatureLabel, content: keyPackage.tbs.tlsSerialized)
    }

    /// Checks a KeyPackage's signature under its leaf's signature key (§10.1).
    public func verifyKeyPackageSignature(_ keyPackage: KeyPackage) -> Bool {
        verifyWithLabel(
            keyPackage.leafNode.signatureKey, label: Self.keyPackageSignatureLabel,
            content: keyPackage.tbs.tlsSerialized, signature: keyPackage.signature)
    }
}

extension KeyPackage {
    /// This KeyPackage's reference, the RefHash that identifies it in Welcomes and Marmot `i` tags (§5.2).
    public func reference(provider: CipherSuiteProvider = .mls128X25519) -> KeyPackageRef {
        provider.keyPackageRef(encodedKeyPackage: tlsSerialized)
    }

    /// True when the KeyPackage carries the last_resort extension and so may be used more than once
    /// (RFC 9420 §16.8, marmot-wire §2.6).
    public var isLastResort: Bool { extensions.contains { $0.type == .lastResort } }
}

extension Extension {
    /// The last_resort KeyPackage extension (0x000a, empty data) that MDK puts in every KeyPackage.
    public static var lastResort: Extension { Extension(LastResortExtension()) }
}
