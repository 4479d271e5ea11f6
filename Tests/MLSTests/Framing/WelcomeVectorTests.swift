import Foundation
import Testing
import TestSupport
@testable import MLS

/// `welcome.json`: join from the Welcome with init_priv and key_package, verifying the GroupInfo
/// signature under signer_pub and its confirmation tag.
struct WelcomeVector: Decodable, Sendable, CustomTestStringConvertible {
    let cipher_suite: UInt16
    let init_priv: String
    let signer_pub: String
    let key_package: String
    let welcome: String

    var testDescription: String { "suite \(cipher_suite)" }

    static let suite1: [WelcomeVector] = {
        let cases = (try? SharedFixtures.loadJSON([WelcomeVector].self, "mls/welcome.json")) ?? nil
        let mine = (cases ?? []).filter { $0.cipher_suite == 1 }
        SharedFixtures.report(
            "mls/welcome.json (join: GroupSecrets, GroupInfo signature, confirmation tag)", ran: mine.count,
            skipped: (cases?.count ?? 0) - mine.count, reason: "other cipher suites")
        return mine
    }()

    /// The decoded inputs.
    func inputs() throws -> (welcome: Welcome, keyPackage: KeyPackage, initKey: HPKEPrivateKey, signer: SignaturePublicKey) {
        guard case .welcome(let welcome) = try MLSMessage(tlsSerialized: try hex(welcome)).body,
              case .keyPackage(let keyPackage) = try MLSMessage(tlsSerialized: try hex(key_package)).body
        else { throw FixtureError.malformed("welcome / key_package wire formats") }
        return (welcome, keyPackage, try HPKEPrivateKey(rawBytes: try hex(init_priv)), SignaturePublicKey(try hex(signer_pub)))
    }
}

struct WelcomeVectorTests {
    let provider = CipherSuiteProvider.mls128X25519

    @Test func vectorFileHasSuite1() {
        guard SharedFixtures.shouldRun else { return }
        #expect(WelcomeVector.suite1.count == 1)
    }

    @Test(arguments: WelcomeVector.suite1)
    func joins(_ v: WelcomeVector) throws {
        let (welcome, keyPackage, initKey, signer) = try v.inputs()
        let joined = try welcome.join(keyPackage: keyPackage, initPrivateKey: initKey, signerKey: signer)
        #expect(joined.keyPackageRef == provider.keyPackageRef(encodedKeyPackage: keyPackage.tlsSerialized))
        #expect(joined.groupContext.cipherSuite == keyPackage.cipherSuite)
        #expect(joined.groupSecrets.psks.isEmpty)
        // The confirmation tag was checked inside join; recompute it here from the returned secrets.
        #expect(TranscriptHashes.confirmationTag(
            confirmationKey: joined.epochSecrets.confirmationKey,
            confirmed: joined.groupContext.confirmedTranscriptHash, suite: provider) == joined.groupInfo.confirmationTag)
        #expect(joined.transcriptHashes.confirmed == joined.groupContext.confirmedTranscriptHash)
        #expect(joined.groupInfo.verifySignature(signer, provider: provider))
    }

    /// The staged API (decryptGroupSecrets, decryptGroupInfo) gives the same GroupInfo.
    @Test(arguments: WelcomeVector.suite1)
    func stagedSteps(_ v: WelcomeVector) throws {
        let (welcome, keyPackage, initKey, signer) = try v.inputs()
        let ref = provider.keyPackageRef(encodedKeyPackage: keyPackage.tlsSerialized)
        let secrets = try welcome.decryptGroupSecrets(ref: ref, initPrivateKey: initKey, provider: provider)
        let info = try welcome.decryptGroupInfo(joinerSecret: secrets.joinerSecret, pskSecret: nil, provider: provider)
        let joined = try welcome.join(keyPackage: keyPackage, initPrivateKey: initKey, signerKey: signer)
        #expect(info == joined.groupInfo)
        #expect(secrets == joined.groupSecrets)
    }

    @Test(arguments: WelcomeVector.suite1)
    func rejectsWrongSignerKey(_ v: WelcomeVector) throws {
        let (welcome, keyPackage, initKey, _) = try v.inputs()
        #expect(throws: WelcomeError.badGroupInfoSignature) {
            try welcome.join(keyPackage: keyPackage, initPrivateKey: initKey, signerKey: provider.generateSignatureKey().publicKey)
        }
        #expect(throws: WelcomeError.unknownSigner(try welcome.decryptGroupInfo(
            joinerSecret: try welcome.decryptGroupSecrets(
                ref: provider.keyPackageRef(encodedKeyPackage: keyPackage.tlsSerialized), initPrivateKey: initKey,
                provider: provider).joinerSecret,
            pskSecret: nil, provider: provider).signer)) {
            try welcome.join(keyPackage: keyPackage, initPrivateKey: initKey, signatureKey: { _ in nil })
        }
    }

    @Test(arguments: WelcomeVector.suite1)
    func rejectsWrongInitKey(_ v: WelcomeVector) throws {
        let (welcome, keyPackage, _, signer) = try v.inputs()
        #expect(throws: WelcomeError.groupSecretsDecryptionFailed) {
            try welcome.join(keyPackage: keyPackage, initPrivateKey: provider.generateKeyPair(), signerKey: signer)
        }
    }

    /// encrypted_group_info is the HPKE context of the GroupSecrets, so tampering with it already
    /// fails there; a GroupInfo opened with the wrong joiner secret fails the AEAD.
    @Test(arguments: WelcomeVector.suite1)
    func rejectsTamperedGroupInfo(_ v: WelcomeVector) throws {
        let (welcome, keyPackage, initKey, signer) = try v.inputs()
        var tampered = welcome
        tampered.encryptedGroupInfo[tampered.encryptedGroupInfo.count - 1] ^= 0x01
        #expect(throws: WelcomeError.groupSecretsDecryptionFailed) {
            try tampered.join(keyPackage: keyPackage, initPrivateKey: initKey, signerKey: signer)
        }
        #expect(throws: WelcomeError.groupInfoDecryptionFailed) {
            try welcome.decryptGroupInfo(joinerSecret: provider.randomBytes(32), pskSecret: nil, provider: provider)
        }
    }

    @Test(arguments: WelcomeVector.suite1)
    func rejectsForeignKeyPackage(_ v: WelcomeVector) throws {
        let (welcome, keyPackage, initKey, signer) = try v.inputs()
        var other = keyPackage
        other.extensions.append(Extension(type: ExtensionType(rawValue: 0xff00), data: Data([1])))
        let ref = provider.keyPackageRef(encodedKeyPackage: other.tlsSerialized)
        #expect(throws: WelcomeError.noSecretsForKeyPackage(ref)) {
            try welcome.join(keyPackage: other, initPrivateKey: initKey, signerKey: signer)
        }
    }
}
