import Foundation

/// Signing and verifying GroupInfo with SignWithLabel(., "GroupInfoTBS", GroupInfoTBS) (RFC 9420 §12.4.3).
extension GroupInfo {
    static let signatureLabel = "GroupInfoTBS"

    /// A GroupInfo signed by the member at `signer` with that leaf's signature key.
    public static func signed(
        groupContext: GroupContext, extensions: [Extension], confirmationTag: Data, signer: LeafIndex,
        signingKey: SignaturePrivateKey, provider: CipherSuiteProvider
    ) throws(MLSCryptoError) -> GroupInfo {
        var info = GroupInfo(
            groupContext: groupContext, extensions: extensions, confirmationTag: confirmationTag, signer: signer,
            signature: Data())
        info.signature = try provider.signWithLabel(signingKey, label: signatureLabel, content: info.tbs.tlsSerialized)
        return info
    }

    /// Whether the signature verifies under `key`, the signer leaf's signature key.
    public func verifySignature(_ key: SignaturePublicKey, provider: CipherSuiteProvider) -> Bool {
        provider.verifyWithLabel(key, label: Self.signatureLabel, content: tbs.tlsSerialized, signature: signature)
    }
}
