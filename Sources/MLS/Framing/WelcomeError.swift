import Foundation

/// Why joining by a Welcome (or building one) failed (RFC 9420 §12.4.3.1).
public enum WelcomeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The Welcome, KeyPackage or GroupInfo name a suite not implemented here, or disagree on it.
    case cipherSuiteMismatch(expected: CipherSuite, actual: CipherSuite)
    /// No entry of the Welcome is addressed to our KeyPackageRef.
    case noSecretsForKeyPackage(KeyPackageRef)
    /// The encrypted GroupSecrets do not open under our init key.
    case groupSecretsDecryptionFailed
    /// The decrypted GroupSecrets do not parse.
    case malformedGroupSecrets
    /// A PSK named in the GroupSecrets is not available to us.
    case missingPSK(PreSharedKeyID)
    /// A psk_nonce is not KDF.Nh bytes long (§8.4).
    case invalidPSKNonce(PreSharedKeyID)
    /// More than one resumption PSK with usage reinit or branch (§12.4.3.1).
    case multipleReinitOrBranchPSKs
    /// A reinit or branch resumption PSK was used but the GroupInfo epoch is not 1 (§12.4.3.1).
    case resumptionEpochNotOne(UInt64)
    /// The GroupInfo does not open under the welcome key and nonce.
    case groupInfoDecryptionFailed
    /// The decrypted GroupInfo does not parse.
    case malformedGroupInfo
    /// No signature key is known for the GroupInfo's signer leaf (blank or out of range).
    case unknownSigner(LeafIndex)
    /// The GroupInfo signature does not verify under the signer's key.
    case badGroupInfoSignature
    /// The GroupInfo's confirmation tag is not MAC(confirmation_key, confirmed_transcript_hash).
    case badConfirmationTag
    /// Too many PSKs to derive psk_secret (§8.4).
    case tooManyPSKs(Int)
    /// A cipher-suite primitive failed for a reason other than authentication.
    case crypto(MLSCryptoError)

    public var description: String {
        switch self {
        case .cipherSuiteMismatch(let expected, let actual): "cipher suite \(actual) where \(expected) was expected"
        case .noSecretsForKeyPackage(let ref): "Welcome has no secrets for \(ref)"
        case .groupSecretsDecryptionFailed: "GroupSecrets do not decrypt"
        case .malformedGroupSecrets: "GroupSecrets are malformed"
        case .missingPSK: "a PSK named by the Welcome is not available"
        case .invalidPSKNonce: "a psk_nonce has the wrong length"
        case .multipleReinitOrBranchPSKs: "more than one reinit/branch resumption PSK"
        case .resumptionEpochNotOne(let epoch): "reinit/branch join into epoch \(epoch), not 1"
        case .groupInfoDecryptionFailed: "GroupInfo does not decrypt"
        case .malformedGroupInfo: "GroupInfo is malformed"
        case .unknownSigner(let leaf): "no signature key for GroupInfo signer \(leaf)"
        case .badGroupInfoSignature: "GroupInfo signature does not verify"
        case .badConfirmationTag: "GroupInfo confirmation tag does not verify"
        case .tooManyPSKs(let count): "too many PSKs (\(count))"
        case .crypto(let error): "crypto failure: \(error)"
        }
    }
}
