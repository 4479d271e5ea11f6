import Foundation
import Testing
import TestSupport
@testable import MLS

/// One passive-client scenario (mls-implementations test-vectors.md, "Passive Client Scenarios").
struct PassiveClientVector: Decodable, Sendable, CustomTestStringConvertible {
    struct PSK: Decodable, Sendable {
        let psk_id: String
        let psk: String
    }

    struct Epoch: Decodable, Sendable {
        let proposals: [String]
        let commit: String
        let epoch_authenticator: String
    }

    let cipher_suite: UInt16
    let external_psks: [PSK]
    let key_package: String
    let signature_priv: String
    let encryption_priv: String
    let init_priv: String
    let welcome: String
    let ratchet_tree: String?
    let initial_epoch_authenticator: String
    let epochs: [Epoch]

    /// Set after loading: the file and position, for test names.
    var label = ""
    var testDescription: String { label }

    private enum CodingKeys: String, CodingKey {
        case cipher_suite, external_psks, key_package, signature_priv, encryption_priv, init_priv, welcome
        case ratchet_tree, initial_epoch_authenticator, epochs
    }

    /// The suite-1 cases of `file`, reporting ran and skipped counts.
    static func suite1(_ file: String) -> [PassiveClientVector] {
        let cases = (try? SharedFixtures.loadJSON([PassiveClientVector].self, "mls/\(file)")) ?? nil
        var mine: [PassiveClientVector] = []
        for (index, var vector) in (cases ?? []).enumerated() where vector.cipher_suite == 1 {
            vector.label = "\(file)#\(index) (\(vector.epochs.count) epochs)"
            mine.append(vector)
        }
        SharedFixtures.report(
            "mls/\(file) (join, then every proposal and commit, epoch authenticators)", ran: mine.count,
            skipped: (cases?.count ?? 0) - mine.count, reason: "other cipher suites")
        return mine
    }

    static let welcomeCases = suite1("passive-client-welcome.json")
    static let handlingCommitCases = suite1("passive-client-handling-commit.json")
    static let randomCases = suite1("passive-client-random.json")

    func bytes(_ string: String) throws -> Data {
        guard let data = Data(testHex: string) else { throw FixtureError.malformed("hex") }
        return data
    }

    /// The vectors' KeyPackages live from 0 to 2^64 - 1; §7.2 leaves the bound on a lifetime's span to
    /// the application, so these tests lift the OpenMLS-style bound the default configuration sets.
    static let configuration = GroupConfiguration(maxLeafLifetime: nil)

    /// Joins, then follows every epoch, checking each epoch authenticator.
    func run() throws {
        guard case .keyPackage(let keyPackage) = try MLSMessage(tlsSerialized: try bytes(key_package)).body else {
            throw FixtureError.malformed("key_package is not an MLSMessage KeyPackage")
        }
        let keys = KeyPackagePrivateMaterial(
            cipherSuite: keyPackage.cipherSuite, initPrivateKey: try HPKEPrivateKey(rawBytes: try bytes(init_priv)),
            encryptionPrivateKey: try HPKEPrivateKey(rawBytes: try bytes(encryption_priv)),
            signaturePrivateKey: try SignaturePrivateKey(seed: try bytes(signature_priv)))
        var psks: [Data: Data] = [:]
        for entry in external_psks { psks[try bytes(entry.psk_id)] = try bytes(entry.psk) }
        let tree = try ratchet_tree.map { try RatchetTreeNodes(tlsSerialized: try bytes($0)) }
        var group = try MLSGroup.join(
            welcomeMessage: try MLSMessage(tlsSerialized: try bytes(welcome)), keyPackage: keyPackage, privateMaterial: keys,
            ratchetTree: tree, externalPSKs: psks, configuration: Self.configuration)
        #expect(group.epochAuthenticator == (try bytes(initial_epoch_authenticator)))

        for (index, epoch) in epochs.enumerated() {
            for proposal in epoch.proposals {
                let result = try group.process(bytes: try bytes(proposal), externalPSKs: psks)
                guard case .proposal = result else {
                    Issue.record("epoch \(index): proposal gave \(result)")
                    return
                }
            }
            let result = try group.process(bytes: try bytes(epoch.commit), externalPSKs: psks)
            guard case .commit(let summary) = result else {
                Issue.record("epoch \(index): commit gave \(result)")
                return
            }
            #expect(summary.epoch == group.epoch)
            guard group.epochAuthenticator == (try bytes(epoch.epoch_authenticator)) else {
                Issue.record("epoch \(index): epoch_authenticator differs")
                return
            }
        }
        // The followed state survives a save and restore.
        let restored = try MLSGroup(serialized: group.serialized())
        #expect(restored.epochAuthenticator == group.epochAuthenticator)
    }
}

struct PassiveClientVectorTests {
    @Test func filesHaveSuite1Cases() {
        guard SharedFixtures.shouldRun else { return }
        #expect(PassiveClientVector.welcomeCases.count == 8)
        #expect(PassiveClientVector.handlingCommitCases.count == 13)
        #expect(PassiveClientVector.randomCases.count == 1)
    }

    @Test(arguments: PassiveClientVector.welcomeCases)
    func welcome(_ vector: PassiveClientVector) throws { try vector.run() }

    @Test(arguments: PassiveClientVector.handlingCommitCases)
    func handlingCommit(_ vector: PassiveClientVector) throws { try vector.run() }

    @Test(arguments: PassiveClientVector.randomCases)
    func random(_ vector: PassiveClientVector) throws { try vector.run() }
}
