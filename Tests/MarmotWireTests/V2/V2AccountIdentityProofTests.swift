import Foundation
import MLS
import Nostr
import Testing
@testable import MarmotWire

/// The adopted signing vector of MDK v0.9.14 crates/cgka-engine/src/account_identity_proof.rs
/// (test `current_proof_matches_the_adopted_signing_vector`, near line 829).
@Suite struct V2AccountIdentityProofTests {
    static let account = "f9308a019258c31049344f85f89d5229b531c845836f99b08601f113bce036f9"
    static let mlsSignatureKey = Data(0..<32)
    static let createdAt: UInt64 = 1_700_000_000
    static let eventID = "b7e9a15dd85990fb0f49c33db3cc9875f73986207b038404ceb6b7fec4e0af6b"
    static let signature = "c5315d3c85b9d4907cb03395a2a97b3ba2eab393f8e45b13a5d5233acedac60a"
        + "51d2a295e1b1b5ee372d18a49bdb8041a7dba9dedce722c7c6f712f78bbdfb5d"
    static let component = account + "000000006553f100" + signature

    @Test func proofEventIDMatchesVector() throws {
        let event = try AccountIdentityProof.proofEvent(
            account: PublicKey(hex: Self.account), mlsSignatureKey: Self.mlsSignatureKey, createdAt: Self.createdAt)
        #expect(event.id.hex == Self.eventID)
        // Shape from MDK's current_proof_event_is_the_exact_kind_450_spec_shape.
        #expect(event.kind == Kind(450))
        #expect(event.content == "Authorize this MLS leaf key for my Marmot account")
        #expect(event.tags.map(\.fields) == [
            ["d", "marmot.account-identity-proof.v2"], ["component", "0x8009"], ["ciphersuite", "0x0001"],
            ["signature_scheme", "0x0807"], ["mls_signature_key", Hex.encode(Self.mlsSignatureKey)],
        ])
    }

    @Test func componentBytesMatchVectorAndVerify() throws {
        let proof = AccountIdentityProof(
            account: try PublicKey(hex: Self.account), createdAt: Self.createdAt, signature: try Signature(hex: Self.signature))
        #expect(Hex.encode(proof.bytes) == Self.component)
        let parsed = try AccountIdentityProof(bytes: Hex.decode(Self.component) ?? [])
        #expect(parsed == proof)
        try parsed.verify(credentialIdentity: Data(Hex.decode(Self.account) ?? []), mlsSignatureKey: Self.mlsSignatureKey)
    }

    @Test func proofForAnotherLeafKeyDoesNotVerify() throws {
        let proof = try AccountIdentityProof(bytes: Hex.decode(Self.component) ?? [])
        #expect(throws: V2ProofError.badSignature) {
            try proof.verify(credentialIdentity: Data(Hex.decode(Self.account) ?? []), mlsSignatureKey: Data(repeating: 0xab, count: 32))
        }
        #expect(throws: V2ProofError.accountMismatch) {
            try proof.verify(credentialIdentity: Data(Keys.generate().publicKey.bytes), mlsSignatureKey: Self.mlsSignatureKey)
        }
    }

    @Test func rejectsLengthAndTimestampRange() throws {
        #expect(throws: V2ProofError.wrongLength(103)) { try AccountIdentityProof(bytes: [UInt8](repeating: 0, count: 103)) }
        var zeroTime = Hex.decode(Self.component) ?? []
        for i in 32..<40 { zeroTime[i] = 0 }
        #expect(throws: V2ProofError.createdAtOutOfRange(0)) { try AccountIdentityProof(bytes: zeroTime) }
        let keys = Keys.generate()
        #expect(throws: V2ProofError.createdAtOutOfRange(1 << 53)) {
            try AccountIdentityProof.sign(keys: keys, mlsSignatureKey: Self.mlsSignatureKey, createdAt: 1 << 53)
        }
    }

    @Test func signedProofVerifiesOnAV2Leaf() throws {
        let keys = Keys.generate()
        let made = try V2KeyPackage.create(keys: keys)
        try AccountIdentityProof.verify(leaf: made.keyPackage.leafNode)
    }

    /// A hostile member copies Alice's proof into a leaf for its own signing key: refused.
    @Test func proofCopiedOntoAnotherLeafIsRefused() throws {
        let alice = Keys.generate()
        let aliceLeaf = try V2KeyPackage.create(keys: alice).keyPackage.leafNode
        let dictionary = try #require(try aliceLeaf.extensions.payload(AppDataDictionary.self))
        let stolen = try #require(dictionary[MarmotComponentID.accountIdentityProof])
        let proof = try AccountIdentityProof(bytes: Array(stolen))
        // Mallory builds a KeyPackage claiming Alice's identity with her own leaf key and the stolen proof.
        let forged = try KeyPackage.create(
            identity: Data(alice.publicKey.bytes), capabilities: V2KeyPackage.capabilities,
            keyPackageExtensions: [LastResortComponent.keyPackageExtension],
            leafExtensions: [proof.leafExtension(supported: V2KeyPackage.defaultSupportedComponents)])
        #expect(throws: V2ProofError.badSignature) { try AccountIdentityProof.verify(leaf: forged.keyPackage.leafNode) }
    }

    /// A leaf whose 0x0001 list omits 0x8009, or that has no proof at all, is refused.
    @Test func proofMustBePresentAndAdvertised() throws {
        let keys = Keys.generate()
        let signer = CipherSuiteProvider.mls128X25519.generateSignatureKey()
        let proof = try AccountIdentityProof.sign(keys: keys, mlsSignatureKey: signer.publicKey.bytes, createdAt: 1_800_000_000)
        func leaf(_ entries: [ComponentData]) throws -> LeafNode {
            try KeyPackage.create(
                identity: Data(keys.publicKey.bytes), capabilities: V2KeyPackage.capabilities,
                leafExtensions: [Extension(try AppDataDictionary(entries))], signer: signer).keyPackage.leafNode
        }
        let unlisted = try leaf([
            ComponentData(componentID: 0x0001, data: Data(ComponentsList([0x0001, 0x0002]).bytes)),
            ComponentData(componentID: 0x8009, data: Data(proof.bytes)),
        ])
        #expect(throws: V2ProofError.proofNotAdvertised) { try AccountIdentityProof.verify(leaf: unlisted) }
        let absent = try leaf([ComponentData(componentID: 0x0001, data: Data(ComponentsList([0x0001, 0x8009]).bytes))])
        #expect(throws: V2ProofError.missingProof) { try AccountIdentityProof.verify(leaf: absent) }
        let good = try leaf([
            ComponentData(componentID: 0x0001, data: Data(ComponentsList([0x0001, 0x8009]).bytes)),
            ComponentData(componentID: 0x8009, data: Data(proof.bytes)),
        ])
        try AccountIdentityProof.verify(leaf: good)
    }
}
