import Foundation
import Testing
import TestSupport
@testable import MLS

/// `key-schedule.json`: GroupContext encoding and every epoch-derived secret over several epochs.
struct KeyScheduleVector: Decodable, Sendable, CustomTestStringConvertible {
    struct Exporter: Decodable, Sendable { let label: String; let context: String; let length: Int; let secret: String }
    struct Epoch: Decodable, Sendable {
        let tree_hash: String, commit_secret: String, psk_secret: String, confirmed_transcript_hash: String
        let group_context: String
        let joiner_secret: String, welcome_secret: String, init_secret: String
        let sender_data_secret: String, encryption_secret: String, exporter_secret: String
        let epoch_authenticator: String, external_secret: String, confirmation_key: String
        let membership_key: String, resumption_psk: String, external_pub: String
        let exporter: Exporter
    }

    let cipher_suite: UInt16
    let group_id: String
    let initial_init_secret: String
    let epochs: [Epoch]

    var testDescription: String { "suite \(cipher_suite), \(epochs.count) epochs" }

    static let suite1: [KeyScheduleVector] = {
        let cases = (try? SharedFixtures.loadJSON([KeyScheduleVector].self, "mls/key-schedule.json")) ?? nil
        let mine = (cases ?? []).filter { $0.cipher_suite == 1 }
        SharedFixtures.report(
            "mls/key-schedule.json", ran: mine.count, skipped: (cases?.count ?? 0) - mine.count,
            reason: "other cipher suites")
        return mine
    }()
}

struct KeyScheduleVectorTests {
    let provider = CipherSuiteProvider.mls128X25519

    @Test func vectorFileHasSuite1() {
        guard SharedFixtures.shouldRun else { return }
        #expect(KeyScheduleVector.suite1.count == 1)
        #expect(KeyScheduleVector.suite1.first?.epochs.count == 5)
    }

    @Test(arguments: KeyScheduleVector.suite1)
    func everyEpochMatches(_ v: KeyScheduleVector) throws {
        var initSecret = try hex(v.initial_init_secret)
        for (index, e) in v.epochs.enumerated() {
            let context = GroupContext(
                cipherSuite: .mls128X25519AES128GCMSHA256Ed25519, groupID: GroupID(try hex(v.group_id)),
                epoch: UInt64(index), treeHash: try hex(e.tree_hash),
                confirmedTranscriptHash: try hex(e.confirmed_transcript_hash), extensions: [])
            #expect(context.tlsSerialized == (try hex(e.group_context)), "epoch \(index) group_context")

            let secrets = EpochSecrets(
                provider: provider, initSecret: initSecret, commitSecret: try hex(e.commit_secret),
                pskSecret: try hex(e.psk_secret), groupContext: context)
            let checks: [(String, Data, String)] = [
                ("joiner_secret", secrets.joinerSecret, e.joiner_secret),
                ("welcome_secret", secrets.welcomeSecret, e.welcome_secret),
                ("init_secret", secrets.initSecret, e.init_secret),
                ("sender_data_secret", secrets.senderDataSecret, e.sender_data_secret),
                ("encryption_secret", secrets.encryptionSecret, e.encryption_secret),
                ("exporter_secret", secrets.exporterSecret, e.exporter_secret),
                ("epoch_authenticator", secrets.epochAuthenticator, e.epoch_authenticator),
                ("external_secret", secrets.externalSecret, e.external_secret),
                ("confirmation_key", secrets.confirmationKey, e.confirmation_key),
                ("membership_key", secrets.membershipKey, e.membership_key),
                ("resumption_psk", secrets.resumptionPSK, e.resumption_psk),
            ]
            for (name, actual, expected) in checks {
                #expect(actual == (try hex(expected)), "epoch \(index) \(name)")
            }
            #expect(try secrets.externalKeyPair().publicKey.bytes == (try hex(e.external_pub)), "epoch \(index) external_pub")
            // The exporter label is ASCII text, not hex (see vectors/README.md).
            let exported = try secrets.exporter(
                label: e.exporter.label, context: try hex(e.exporter.context), length: e.exporter.length)
            #expect(exported == (try hex(e.exporter.secret)), "epoch \(index) exporter")

            let schedule = KeySchedule(provider)
            #expect(schedule.welcomeSecret(joinerSecret: secrets.joinerSecret, pskSecret: try hex(e.psk_secret))
                == secrets.welcomeSecret)
            let joined = EpochSecrets(
                provider: provider, joinerSecret: secrets.joinerSecret, pskSecret: try hex(e.psk_secret),
                groupContext: context)
            #expect(joined.epochAuthenticator == secrets.epochAuthenticator)
            initSecret = secrets.initSecret
        }
    }
}
