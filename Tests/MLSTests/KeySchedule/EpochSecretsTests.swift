import Foundation
import Testing
import TestSupport
@testable import MLS

/// Key-schedule behaviour outside the vectors: redaction, external init, Welcome keys, exporter bounds.
struct EpochSecretsTests {
    let provider = CipherSuiteProvider.mls128X25519

    func sampleSecrets() -> EpochSecrets {
        let context = GroupContext(
            cipherSuite: .mls128X25519AES128GCMSHA256Ed25519, groupID: GroupID(Data([7])), epoch: 1,
            treeHash: Data(count: 32), confirmedTranscriptHash: Data(count: 32), extensions: [])
        return EpochSecrets(
            provider: provider, initSecret: provider.randomBytes(32), commitSecret: provider.zeroSecret,
            pskSecret: nil, groupContext: context)
    }

    @Test func descriptionsAreRedacted() {
        let secrets = sampleSecrets()
        #expect("\(secrets)" == "EpochSecrets(redacted)")
        #expect(String(reflecting: secrets) == "EpochSecrets(redacted)")
        #expect("\(secrets.welcomeKey)" == "WelcomeKey(redacted)")
        #expect(!"\(secrets)".contains(secrets.initSecret.testHex))
    }

    @Test func welcomeKeyHasSuiteSizes() {
        let key = sampleSecrets().welcomeKey
        #expect(key.key.count == 16 && key.nonce.count == 12)
    }

    @Test func externalInitAgreesOnBothSides() throws {
        let secrets = sampleSecrets()
        let external = try secrets.externalKeyPair()
        let schedule = KeySchedule(provider)
        let joiner = try schedule.externalInit(externalPub: external.publicKey)
        let member = try schedule.externalInit(externalPriv: external, kemOutput: joiner.kemOutput)
        #expect(joiner.initSecret == member)
        #expect(member.count == 32)
    }

    @Test func exporterLengthIsBounded() throws {
        let secrets = sampleSecrets()
        #expect(try secrets.exporter(label: "marmot", context: Data(), length: 64).count == 64)
        #expect(throws: MLSCryptoError.invalidOutputLength(70_000)) {
            try secrets.exporter(label: "marmot", context: Data(), length: 70_000)
        }
    }

    @Test func restoringKeepsEverySecret() {
        let s = sampleSecrets()
        let r = EpochSecrets(
            restoring: s.provider, joinerSecret: s.joinerSecret, welcomeSecret: s.welcomeSecret,
            senderDataSecret: s.senderDataSecret, encryptionSecret: s.encryptionSecret, exporterSecret: s.exporterSecret,
            externalSecret: s.externalSecret, confirmationKey: s.confirmationKey, membershipKey: s.membershipKey,
            resumptionPSK: s.resumptionPSK, epochAuthenticator: s.epochAuthenticator, initSecret: s.initSecret)
        #expect(r.exporterSecret == s.exporterSecret && r.initSecret == s.initSecret)
    }
}
