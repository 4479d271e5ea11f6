import Testing
import TestSupport
@testable import Nostr

@Suite("BIP-340 vectors")
struct BIP340VectorTests {
    @Test("all rows: derivation, exact signature, verification")
    func allRows() throws {
        let rows = try TestVectors.bip340Rows()
        var signed = 0
        for row in rows {
            let message = try #require(TestVectors.bytes(row.message), "\(row)")
            let sig = try #require(TestVectors.bytes(row.signature), "\(row)")
            let pub = try #require(TestVectors.bytes(row.publicKey), "\(row)")
            if !row.secretKey.isEmpty {
                let sk = try SecretKey(hex: row.secretKey)
                #expect(sk.publicKey.hex == row.publicKey, "\(row) derivation")
                let aux = try #require(TestVectors.bytes(row.auxRand))
                let produced = Schnorr.sign(message: message, secretKey: sk, auxRand: aux)
                #expect(produced.hex == row.signature, "\(row) signature")
                // A signature with fresh randomness differs but still verifies.
                let fresh = Schnorr.sign(message: message, secretKey: sk)
                #expect(Schnorr.verify(signature: fresh, message: message, publicKey: sk.publicKey), "\(row)")
                signed += 1
            }
            let ok = Schnorr.verify(signature: sig, message: message, publicKeyBytes: pub)
            #expect(ok == row.expected, "\(row): \(row.comment)")
            // Through the typed API, an invalid key (rows 5 and 14) is rejected at construction.
            if let key = try? PublicKey(bytes: pub), let typedSig = try? Signature(bytes: sig) {
                #expect(Schnorr.verify(signature: typedSig, message: message, publicKey: key) == row.expected, "\(row)")
            } else {
                #expect(row.expected == false, "\(row) key rejected but expected valid")
            }
        }
        if SharedFixtures.shouldRun {
            #expect(rows.count == 19)
            #expect(signed == 8)
            // Rows 15–18 exercise messages that are not 32 bytes long.
            #expect(Set(rows.filter { $0.index >= 15 }.map { $0.message.count / 2 }) == [0, 1, 17, 100])
        }
        SharedFixtures.report("bip340-test-vectors.csv", ran: rows.count, skipped: 0,
                              reason: "none; \(signed) rows also signed with the given aux_rand")
    }
}
