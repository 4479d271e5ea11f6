import Foundation
import MLS
import Nostr

/// Component 0x8009 `marmot.member.account-identity-proof.v2`, leaf-only: `account key[32] ‖
/// created_at u64 BE ‖ BIP-340 signature[64]` binding the Nostr account to the leaf's Ed25519 MLS
/// signature key (app-components/account-identity-proof; MDK `account_identity_proof.rs`).
///
/// The signature is over the NIP-01 id of an unpublished kind-450 event whose tags name the
/// component, suite 0x0001, scheme 0x0807 and the leaf key; there is no age limit, only the NIP-01
/// range 1 … 2^53 − 1 for `created_at`.
public struct AccountIdentityProof: Hashable, Sendable {
    public static let length = 104
    public static let eventKind = Kind(450)
    public static let content = "Authorize this MLS leaf key for my Marmot account"
    public static let domain = "marmot.account-identity-proof.v2"
    public static let maxCreatedAt: UInt64 = (1 << 53) - 1

    public let account: PublicKey
    public let createdAt: UInt64
    public let signature: Signature

    /// The kind-450 event whose id is signed (tags in MDK's order).
    public static func proofEvent(account: PublicKey, mlsSignatureKey: Data, createdAt: UInt64) throws(V2ProofError) -> UnsignedEvent {
        guard (1...maxCreatedAt).contains(createdAt) else { throw .createdAtOutOfRange(createdAt) }
        return UnsignedEvent(
            pubkey: account, createdAt: Int64(createdAt), kind: eventKind,
            tags: [
                Tag(["d", domain]),
                Tag(["component", "0x8009"]),
                Tag(["ciphersuite", "0x0001"]),
                Tag(["signature_scheme", "0x0807"]),
                Tag(["mls_signature_key", Hex.encode(mlsSignatureKey)]),
            ],
            content: content)
    }

    /// Signs a proof for `mlsSignatureKey` with the account's keys.
    public static func sign(keys: Keys, mlsSignatureKey: Data, createdAt: UInt64) throws(V2ProofError) -> AccountIdentityProof {
        let event = try proofEvent(account: keys.publicKey, mlsSignatureKey: mlsSignatureKey, createdAt: createdAt)
        return AccountIdentityProof(account: keys.publicKey, createdAt: createdAt, signature: keys.sign(event.id.bytes))
    }

    public init(account: PublicKey, createdAt: UInt64, signature: Signature) {
        self.account = account
        self.createdAt = createdAt
        self.signature = signature
    }

    public var bytes: [UInt8] {
        account.bytes + (0..<8).reversed().map { UInt8(truncatingIfNeeded: createdAt >> (8 * UInt64($0))) } + signature.bytes
    }

    /// Parses the 104 bytes (the signature is not checked here; see `verify`).
    public init(bytes: [UInt8]) throws(V2ProofError) {
        guard bytes.count == Self.length else { throw .wrongLength(bytes.count) }
        guard let account = try? PublicKey(bytes: bytes[0..<32]) else { throw .invalidAccountKey }
        let createdAt = bytes[32..<40].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard (1...Self.maxCreatedAt).contains(createdAt) else { throw .createdAtOutOfRange(createdAt) }
        guard let signature = try? Signature(bytes: bytes[40..<104]) else { throw .badSignature }
        self.init(account: account, createdAt: createdAt, signature: signature)
    }

    /// Checks the proof binds `credentialIdentity` to `mlsSignatureKey` (MDK `validate_current_proof`).
    public func verify(credentialIdentity: Data, mlsSignatureKey: Data) throws(V2ProofError) {
        guard Data(account.bytes) == credentialIdentity else { throw .accountMismatch }
        let event = try Self.proofEvent(account: account, mlsSignatureKey: mlsSignatureKey, createdAt: createdAt)
        guard Schnorr.verify(signature: signature, message: event.id.bytes, publicKey: account) else { throw .badSignature }
    }

    /// The leaf components a v2 leaf carries: 0x0001 listing `supported` (0x0001 and 0x8009 always
    /// added), 0x0002 empty, 0x8009 this proof — as one `app_data_dictionary` leaf extension.
    public func leafExtension(supported: [UInt16] = []) -> Extension {
        let list = ComponentsList(supported + [MarmotComponentID.appComponents, MarmotComponentID.safeAAD, MarmotComponentID.accountIdentityProof])
        // Three distinct ids in ascending order: a valid dictionary, written directly.
        var writer = TLSWriter()
        writer.writeVector([
            ComponentData(componentID: MarmotComponentID.appComponents, data: Data(list.bytes)),
            ComponentData(componentID: MarmotComponentID.safeAAD, data: Data([0x00])),
            ComponentData(componentID: MarmotComponentID.accountIdentityProof, data: Data(bytes)),
        ])
        return Extension(type: .appDataDictionary, data: writer.data)
    }

    /// Verifies a leaf as MDK does on key packages, Adds, Updates, UpdatePath leaves and at join:
    /// basic credential, 0x8009 present and listed in 0x0001, proof over the leaf's signature key.
    public static func verify(leaf: LeafNode) throws(V2ProofError) {
        guard case .basic(let identity) = leaf.credential else { throw .notBasicCredential }
        let dictionary: AppDataDictionary?
        do { dictionary = try leaf.extensions.payload(AppDataDictionary.self) } catch { throw .malformedLeafDictionary }
        guard let dictionary, let raw = dictionary[MarmotComponentID.accountIdentityProof] else { throw .missingProof }
        guard let listRaw = dictionary[MarmotComponentID.appComponents],
              let list = try? ComponentsList(bytes: Array(listRaw)), list.contains(MarmotComponentID.accountIdentityProof)
        else { throw .proofNotAdvertised }
        let proof = try AccountIdentityProof(bytes: Array(raw))
        try proof.verify(credentialIdentity: identity, mlsSignatureKey: leaf.signatureKey.bytes)
    }
}

/// Why an account identity proof is refused.
public enum V2ProofError: Error, Sendable, Equatable, CustomStringConvertible {
    case wrongLength(Int)
    case invalidAccountKey
    case createdAtOutOfRange(UInt64)
    case accountMismatch
    case badSignature
    case notBasicCredential
    case malformedLeafDictionary
    case missingProof
    case proofNotAdvertised

    public var description: String {
        switch self {
        case .wrongLength(let n): "proof must be 104 bytes, got \(n)"
        case .invalidAccountKey: "proof account key is not an x-only key"
        case .createdAtOutOfRange(let t): "proof created_at \(t) outside 1…2^53−1"
        case .accountMismatch: "proof account differs from the credential identity"
        case .badSignature: "proof signature does not verify"
        case .notBasicCredential: "leaf credential is not basic"
        case .malformedLeafDictionary: "leaf app_data_dictionary is malformed"
        case .missingProof: "leaf carries no 0x8009 proof"
        case .proofNotAdvertised: "leaf app_components does not list 0x8009"
        }
    }
}
