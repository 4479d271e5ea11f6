import Crypto
import Foundation
import Testing
import TestSupport
@testable import MLS

/// RFC 9180 Appendix A.1 (DHKEM X25519 / HKDF-SHA256 / AES-128-GCM), the HPKE of MLS suite 0x0001.
struct HPKEVector: Decodable, Sendable, CustomTestStringConvertible {
    struct Encryption: Decodable, Sendable {
        let sequence_number: Int; let pt: String; let aad: String; let nonce: String; let ct: String
    }
    struct Export: Decodable, Sendable { let exporter_context: String; let L: Int; let exported_value: String }

    let setup: String
    let mode: Int
    let info: String
    let ikmE: String, pkEm: String, skEm: String
    let ikmR: String, pkRm: String, skRm: String
    let enc: String
    let key: String
    let base_nonce: String
    let encryptions: [Encryption]
    let exports: [Export]

    var testDescription: String { setup }

    private struct File: Decodable { let cases: [HPKEVector] }

    /// Base-mode cases; MLS uses only SealBase/OpenBase (RFC 9420 §5.1.3).
    static let baseMode: [HPKEVector] = {
        let file = (try? SharedFixtures.loadJSON(File.self, "hpke/rfc9180-x25519-sha256-aes128gcm.json")) ?? nil
        let all = file?.cases ?? []
        let base = all.filter { $0.mode == 0 }
        SharedFixtures.report(
            "hpke/rfc9180-x25519-sha256-aes128gcm.json", ran: base.count, skipped: all.count - base.count,
            reason: "psk/auth/auth_psk modes: MLS uses base mode only")
        return base
    }()
}

struct HPKEVectorTests {
    let provider = CipherSuiteProvider.mls128X25519

    @Test func vectorFileHasBaseMode() {
        guard SharedFixtures.shouldRun else { return }
        #expect(HPKEVector.baseMode.count == 1)
    }

    @Test(arguments: HPKEVector.baseMode)
    func deriveKeyPair(_ v: HPKEVector) throws {
        let ephemeral = try provider.deriveKeyPair(ikm: try hex(v.ikmE))
        #expect(ephemeral.rawBytesForStorage == (try hex(v.skEm)))
        #expect(ephemeral.publicKey.bytes == (try hex(v.pkEm)))
        let recipient = try provider.deriveKeyPair(ikm: try hex(v.ikmR))
        #expect(recipient.rawBytesForStorage == (try hex(v.skRm)))
        #expect(recipient.publicKey.bytes == (try hex(v.pkRm)))
        #expect(try hex(v.enc) == (try hex(v.pkEm)))
    }

    /// swift-crypto cannot take a fixed ephemeral key, so each encryption is checked by opening it in
    /// sequence. Sequence numbers the vector leaves out are filled with messages sealed under the
    /// vector's key and base_nonce, which also proves the recipient derived that key schedule.
    @Test(arguments: HPKEVector.baseMode)
    func openEveryEncryption(_ v: HPKEVector) throws {
        let skR = try HPKEPrivateKey(rawBytes: try hex(v.skRm))
        var recipient = try HPKE.Recipient(
            privateKey: skR.key, ciphersuite: CipherSuiteProvider.hpkeSuite, info: try hex(v.info),
            encapsulatedKey: try hex(v.enc))
        let key = try hex(v.key), baseNonce = try hex(v.base_nonce)
        var sequence = 0
        for encryption in v.encryptions {
            while sequence < encryption.sequence_number {
                let filler = try provider.seal(
                    key: key, nonce: nonce(baseNonce, sequence), aad: Data(), plaintext: Data("filler".utf8))
                #expect(try recipient.open(filler, authenticating: Data()) == Data("filler".utf8))
                sequence += 1
            }
            #expect(nonce(baseNonce, sequence) == (try hex(encryption.nonce)))
            let opened = try recipient.open(try hex(encryption.ct), authenticating: try hex(encryption.aad))
            #expect(opened == (try hex(encryption.pt)), "sequence \(sequence)")
            sequence += 1
        }
        for export in v.exports {
            let value = try recipient.exportSecret(context: try hex(export.exporter_context), outputByteCount: export.L)
            #expect(value.withUnsafeBytes { Data($0) } == (try hex(export.exported_value)))
            let viaProvider = try provider.hpkeRecipientExport(
                skR, kemOutput: try hex(v.enc), info: try hex(v.info), exporterContext: try hex(export.exporter_context),
                length: export.L)
            #expect(viaProvider == (try hex(export.exported_value)))
        }
    }

    private func nonce(_ base: Data, _ sequence: Int) -> Data {
        var bytes = [UInt8](base)
        var seq = UInt64(sequence)
        for i in stride(from: bytes.count - 1, through: bytes.count - 8, by: -1) {
            bytes[i] ^= UInt8(truncatingIfNeeded: seq)
            seq >>= 8
        }
        return Data(bytes)
    }

    @Test func senderAndRecipientExportAgree() throws {
        let key = provider.generateKeyPair()
        let sent = try provider.hpkeSenderExport(key.publicKey, info: Data(), exporterContext: Data("ctx".utf8), length: 32)
        let received = try provider.hpkeRecipientExport(
            key, kemOutput: sent.kemOutput, info: Data(), exporterContext: Data("ctx".utf8), length: 32)
        #expect(sent.secret == received)
        #expect(sent.secret.count == 32)
    }
}
