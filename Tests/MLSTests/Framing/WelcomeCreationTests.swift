import Foundation
import Testing
import TestSupport
@testable import MLS

/// `Welcome.make` output joins with `Welcome.join`; PSK, confirmation-tag and suite checks.
/// Uses the vector's KeyPackage because its init private key is known.
struct WelcomeCreationTests {
    let provider = CipherSuiteProvider.mls128X25519

    /// A signed GroupInfo for a fresh epoch and the epoch's secrets, optionally with a psk_secret.
    func epoch(
        pskSecret: Data? = nil, epochNumber: UInt64 = 7, corruptTag: Bool = false
    ) throws -> (GroupInfo, EpochSecrets, SignaturePrivateKey) {
        let context = GroupContext(
            cipherSuite: provider.suite, groupID: GroupID(provider.randomBytes(32)), epoch: epochNumber,
            treeHash: provider.randomBytes(32), confirmedTranscriptHash: provider.randomBytes(32), extensions: [])
        let secrets = EpochSecrets(
            provider: provider, joinerSecret: provider.randomBytes(32), pskSecret: pskSecret, groupContext: context)
        var tag = TranscriptHashes.confirmationTag(
            confirmationKey: secrets.confirmationKey, confirmed: context.confirmedTranscriptHash, suite: provider)
        if corruptTag { tag[0] ^= 0x80 }
        let signer = provider.generateSignatureKey()
        let info = try GroupInfo.signed(
            groupContext: context, extensions: [], confirmationTag: tag, signer: LeafIndex(0), signingKey: signer,
            provider: provider)
        return (info, secrets, signer)
    }

    func recipient() throws -> (KeyPackage, HPKEPrivateKey)? {
        guard let v = WelcomeVector.suite1.first else { return nil }
        let inputs = try v.inputs()
        return (inputs.keyPackage, inputs.initKey)
    }

    @Test func makeThenJoin() throws {
        guard let (keyPackage, initKey) = try recipient() else { return }
        let (info, secrets, signer) = try epoch()
        let pathSecret = provider.randomBytes(32)
        let other = provider.generateKeyPair()
        let welcome = try Welcome.make(
            groupInfo: info, epochSecrets: secrets,
            recipients: [
                WelcomeRecipient(keyPackageRef: KeyPackageRef(provider.randomBytes(32)), initKey: other.publicKey),
                WelcomeRecipient(keyPackage: keyPackage, pathSecret: pathSecret, provider: provider),
            ])
        #expect(welcome.secrets.count == 2)
        let reread = try Welcome(tlsSerialized: welcome.tlsSerialized)
        let joined = try reread.join(keyPackage: keyPackage, initPrivateKey: initKey, signerKey: signer.publicKey)
        #expect(joined.groupInfo == info)
        #expect(joined.pathSecret == pathSecret)
        #expect(joined.epochSecrets.epochAuthenticator == secrets.epochAuthenticator)
        #expect(joined.epochSecrets.encryptionSecret == secrets.encryptionSecret)
        #expect(joined.transcriptHashes == TranscriptHashes(
            confirmed: info.groupContext.confirmedTranscriptHash, confirmationTag: info.confirmationTag, suite: provider))
        #expect(String(describing: joined).contains("redacted"))
    }

    @Test func badConfirmationTagIsRejected() throws {
        guard let (keyPackage, initKey) = try recipient() else { return }
        let (info, secrets, signer) = try epoch(corruptTag: true)
        let welcome = try Welcome.make(
            groupInfo: info, epochSecrets: secrets, recipients: [WelcomeRecipient(keyPackage: keyPackage, provider: provider)])
        #expect(throws: WelcomeError.badConfirmationTag) {
            try welcome.join(keyPackage: keyPackage, initPrivateKey: initKey, signerKey: signer.publicKey)
        }
    }

    @Test func externalPSKIsRequired() throws {
        guard let (keyPackage, initKey) = try recipient() else { return }
        let pskID = PreSharedKeyID(kind: .external(pskID: Data("marmot-psk".utf8)), nonce: provider.randomBytes(32))
        let psk = provider.randomBytes(32)
        let pskSecret = try KeySchedule(provider).pskSecret([(pskID, psk)])
        let (info, secrets, signer) = try epoch(pskSecret: pskSecret)
        let welcome = try Welcome.make(
            groupInfo: info, epochSecrets: secrets, psks: [pskID],
            recipients: [WelcomeRecipient(keyPackage: keyPackage, provider: provider)])

        let joined = try welcome.join(
            keyPackage: keyPackage, initPrivateKey: initKey, externalPSKs: [Data("marmot-psk".utf8): psk],
            signerKey: signer.publicKey)
        #expect(joined.groupSecrets.psks == [pskID])
        #expect(joined.epochSecrets.epochAuthenticator == secrets.epochAuthenticator)

        #expect(throws: WelcomeError.missingPSK(pskID)) {
            try welcome.join(keyPackage: keyPackage, initPrivateKey: initKey, signerKey: signer.publicKey)
        }
        // The wrong PSK value gives another welcome_secret: the GroupInfo does not open.
        #expect(throws: WelcomeError.groupInfoDecryptionFailed) {
            try welcome.join(
                keyPackage: keyPackage, initPrivateKey: initKey,
                externalPSKs: [Data("marmot-psk".utf8): provider.randomBytes(32)], signerKey: signer.publicKey)
        }
    }

    @Test func pskRulesAreEnforced() throws {
        let nonce = provider.randomBytes(32)
        let reinit = PreSharedKeyID(kind: .resumption(usage: .reinit, groupID: GroupID(Data([1])), epoch: 3), nonce: nonce)
        let branch = PreSharedKeyID(kind: .resumption(usage: .branch, groupID: GroupID(Data([2])), epoch: 4), nonce: nonce)
        let shortNonce = PreSharedKeyID(kind: .external(pskID: Data([9])), nonce: Data([1, 2, 3]))
        let known: (PreSharedKeyID) -> Data? = { _ in Data(repeating: 7, count: 32) }
        #expect(throws: WelcomeError.multipleReinitOrBranchPSKs) {
            try Welcome.pskSecret(for: [reinit, branch], lookup: known, provider: provider)
        }
        #expect(throws: WelcomeError.invalidPSKNonce(shortNonce)) {
            try Welcome.pskSecret(for: [shortNonce], lookup: known, provider: provider)
        }
        #expect(try Welcome.pskSecret(for: [], lookup: known, provider: provider) == nil)
        #expect(try Welcome.pskSecret(for: [reinit], lookup: known, provider: provider)
            == (try KeySchedule(provider).pskSecret([(reinit, Data(repeating: 7, count: 32))])))
    }

    /// A reinit resumption PSK may only bring a member into epoch 1 of the new group (§12.4.3.1).
    @Test func reinitJoinMustBeEpochOne() throws {
        guard let (keyPackage, initKey) = try recipient() else { return }
        let pskID = PreSharedKeyID(
            kind: .resumption(usage: .reinit, groupID: GroupID(Data([1])), epoch: 9), nonce: provider.randomBytes(32))
        let psk = provider.randomBytes(32)
        let pskSecret = try KeySchedule(provider).pskSecret([(pskID, psk)])
        for epochNumber: UInt64 in [1, 2] {
            let (info, secrets, signer) = try epoch(pskSecret: pskSecret, epochNumber: epochNumber)
            let welcome = try Welcome.make(
                groupInfo: info, epochSecrets: secrets, psks: [pskID],
                recipients: [WelcomeRecipient(keyPackage: keyPackage, provider: provider)])
            let join = {
                try welcome.join(
                    keyPackage: keyPackage, initPrivateKey: initKey, psk: { $0 == pskID ? psk : nil },
                    signatureKey: { _ in signer.publicKey })
            }
            if epochNumber == 1 {
                #expect(try join().groupContext.epoch == 1)
            } else {
                #expect(throws: WelcomeError.resumptionEpochNotOne(2)) { try join() }
            }
        }
    }

    @Test func cipherSuiteMismatchIsRejected() throws {
        guard let (keyPackage, initKey) = try recipient() else { return }
        let (info, secrets, signer) = try epoch()
        var welcome = try Welcome.make(
            groupInfo: info, epochSecrets: secrets, recipients: [WelcomeRecipient(keyPackage: keyPackage, provider: provider)])
        welcome.cipherSuite = CipherSuite(rawValue: 3)
        #expect(throws: WelcomeError.cipherSuiteMismatch(expected: keyPackage.cipherSuite, actual: CipherSuite(rawValue: 3))) {
            try welcome.join(keyPackage: keyPackage, initPrivateKey: initKey, signerKey: signer.publicKey)
        }
    }
}
