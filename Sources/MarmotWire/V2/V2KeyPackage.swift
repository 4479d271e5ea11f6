import Foundation
import MLS
import Nostr

/// Making a v2 KeyPackage as MDK 0.9 does: capabilities extensions [0x0006, 0xf2d1] and proposals
/// [0x0008, 0x000a] (no RFC default types, which MDK ≥ 0.9.19 rejects), a leaf `app_data_dictionary`
/// with 0x0001, 0x0002 and the 0x8009 proof, and the KeyPackage last-resort component 0x0004
/// (MDK cgka-engine `capabilities.rs`, `key_package.rs`, `account_identity_proof.rs`).
public enum V2KeyPackage {
    /// White Noise's member-role extension, which 0x8006 requires of members.
    public static let roleExtension = ExtensionType(rawValue: 0xf2d1)

    public static var capabilities: Capabilities {
        Capabilities(
            versions: [.mls10], cipherSuites: [.mls128X25519AES128GCMSHA256Ed25519],
            extensions: [.appDataDictionary, roleExtension], proposals: [.appDataUpdate, .selfRemove],
            credentials: [.basic])
    }

    /// Creates a KeyPackage for `keys`' account with a fresh leaf signing key bound by a 0x8009 proof.
    /// `supportedComponents` are listed in the leaf's 0x0001 besides 0x0001, 0x0002 and 0x8009.
    public static func create(
        keys: Keys, proofCreatedAt: UInt64 = UInt64(max(1, UnsignedEvent.now())),
        supportedComponents: [UInt16] = defaultSupportedComponents, lifetime: Lifetime = .keyPackageDefault(),
        capabilities: Capabilities = V2KeyPackage.capabilities
    ) throws -> (keyPackage: KeyPackage, privateMaterial: KeyPackagePrivateMaterial) {
        let provider = CipherSuiteProvider.mls128X25519
        let signer = provider.generateSignatureKey()
        let proof = try AccountIdentityProof.sign(keys: keys, mlsSignatureKey: signer.publicKey.bytes, createdAt: proofCreatedAt)
        return try KeyPackage.create(
            identity: Data(keys.publicKey.bytes), capabilities: capabilities, lifetime: lifetime,
            keyPackageExtensions: [LastResortComponent.keyPackageExtension],
            leafExtensions: [proof.leafExtension(supported: supportedComponents)], signer: signer, provider: provider)
    }

    /// The components our leaves advertise: profile, admin policy, routing, retention, 0x8006,
    /// 0x800b and lifecycle (with 0x0001, 0x0002, 0x8009 added by the proof's leaf extension).
    public static let defaultSupportedComponents: [UInt16] = [
        MarmotComponentID.groupProfile, MarmotComponentID.blossomImage, MarmotComponentID.adminPolicy, MarmotComponentID.nostrRouting,
        MarmotComponentID.messageRetention, MarmotComponentID.agentTextStream, MarmotComponentID.encryptedMediaV2,
        MarmotComponentID.avatarURL, MarmotComponentID.lifecycle,
    ]
}
