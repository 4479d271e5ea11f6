import Foundation

/// Errors from key-schedule inputs (RFC 9420 §8).
public enum KeyScheduleError: Error, Equatable, Sendable {
    /// PSKLabel counts PSKs in a `uint16`.
    case tooManyPSKs(Int)
}

/// The steps of the epoch key schedule that are used on their own (RFC 9420 §8, §8.3, §8.4); the
/// whole chain for one epoch is `EpochSecrets`.
public struct KeySchedule: Sendable {
    public let provider: CipherSuiteProvider
    public init(_ provider: CipherSuiteProvider) { self.provider = provider }

    /// joiner_secret = ExpandWithLabel(Extract(init_secret, commit_secret), "joiner", GroupContext, Nh).
    /// A commit without a path uses Nh zero bytes as commit_secret.
    public func joinerSecret(initSecret: Data, commitSecret: Data, groupContext: GroupContext) -> Data {
        let prk = provider.extract(salt: initSecret, ikm: commitSecret)
        return provider.expandWithLabelUnchecked(
            secret: prk, label: "joiner", context: groupContext.tlsSerialized, length: provider.hashLength)
    }

    /// Extract(joiner_secret, psk_secret or 0): the value welcome_secret and epoch_secret derive from.
    func memberSecret(joinerSecret: Data, pskSecret: Data?) -> Data {
        provider.extract(salt: joinerSecret, ikm: pskSecret ?? provider.zeroSecret)
    }

    /// welcome_secret = DeriveSecret(Extract(joiner_secret, psk_secret), "welcome"): what a joiner needs
    /// to open the GroupInfo before it knows the GroupContext.
    public func welcomeSecret(joinerSecret: Data, pskSecret: Data?) -> Data {
        provider.deriveSecret(secret: memberSecret(joinerSecret: joinerSecret, pskSecret: pskSecret), label: "welcome")
    }

    /// psk_secret over the PSKs in proposal order (§8.4): each psk is extracted, expanded with
    /// PSKLabel{id, index, count} under "derived psk", and chained with Extract; no PSKs gives zeros.
    public func pskSecret(_ psks: [(id: PreSharedKeyID, psk: Data)]) throws(KeyScheduleError) -> Data {
        guard psks.count <= Int(UInt16.max) else { throw .tooManyPSKs(psks.count) }
        var secret = provider.zeroSecret
        for (index, entry) in psks.enumerated() {
            let extracted = provider.extract(salt: provider.zeroSecret, ikm: entry.psk)
            var label = TLSWriter()
            label.write(entry.id)
            label.write(UInt16(index))
            label.write(UInt16(psks.count))
            let input = provider.expandWithLabelUnchecked(
                secret: extracted, label: "derived psk", context: label.bytes, length: provider.hashLength)
            secret = provider.extract(salt: input, ikm: secret)
        }
        return secret
    }

    static let externalInitLabel = Data("MLS 1.0 external init secret".utf8)

    /// The joiner's side of external initialization (§8.3): a kem_output for the ExternalInit proposal
    /// and the init_secret it stands for, from the group's external_pub.
    public func externalInit(externalPub: HPKEPublicKey) throws(MLSCryptoError) -> (kemOutput: Data, initSecret: Data) {
        let result = try provider.hpkeSenderExport(
            externalPub, info: Data(), exporterContext: Self.externalInitLabel, length: provider.hashLength)
        return (result.kemOutput, result.secret)
    }

    /// The members' side of external initialization (§8.3): init_secret from an ExternalInit kem_output.
    public func externalInit(externalPriv: HPKEPrivateKey, kemOutput: Data) throws(MLSCryptoError) -> Data {
        try provider.hpkeRecipientExport(
            externalPriv, kemOutput: kemOutput, info: Data(), exporterContext: Self.externalInitLabel,
            length: provider.hashLength)
    }
}
