import Foundation
import Testing
@testable import Nostr

@Suite("Keys")
struct KeyTests {
    @Test func generatedKeysDifferAndDerive() {
        let a = Keys.generate(), b = Keys.generate()
        #expect(a.publicKey != b.publicKey)
        #expect(a.secretKey != b.secretKey)
        #expect(a.secretKey.publicKey == a.publicKey)
        #expect(a.publicKey.bytes.count == 32)
    }

    @Test func secretKeyIsRedacted() {
        let keys = Keys.generate()
        let secretHex = keys.secretKey.hexEncodedSecret()
        #expect("\(keys.secretKey)" == "SecretKey(redacted)")
        #expect(String(reflecting: keys.secretKey) == "SecretKey(redacted)")
        var dumped = ""
        dump(keys, to: &dumped)
        #expect(!dumped.contains(secretHex))
        #expect(!"\(keys)".contains(secretHex))
        #expect("\(keys)".contains(keys.publicKey.hex))
    }

    @Test func secretKeyRoundTripsThroughExplicitExports() throws {
        let sk = SecretKey.generate()
        #expect(try SecretKey(hex: sk.hexEncodedSecret()) == sk)
        #expect(try SecretKey(nsec: sk.nsecEncoded()) == sk)
        #expect(try SecretKey(hex: sk.hexEncodedSecret().uppercased()) == sk)
        #expect(try Keys(importing: "  \(sk.nsecEncoded())\n").secretKey == sk)
        #expect(try Keys(importing: sk.hexEncodedSecret()).secretKey == sk)
    }

    @Test func secretKeyRejectsOutOfRange() {
        #expect(throws: KeyError.invalidSecretKey) { try SecretKey(hex: String(repeating: "0", count: 64)) }
        // The curve order n itself.
        #expect(throws: KeyError.invalidSecretKey) {
            try SecretKey(hex: "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141")
        }
        #expect(throws: KeyError.invalidLength(expected: 32, actual: 31)) { try SecretKey(bytes: [UInt8](repeating: 1, count: 31)) }
        #expect(throws: KeyError.invalidHex) { try SecretKey(hex: "zz") }
    }

    @Test func publicKeyParsingIsStrict() throws {
        let pk = Keys.generate().publicKey
        #expect(try PublicKey(hex: pk.hex) == pk)
        #expect(try PublicKey(npub: pk.npub) == pk)
        #expect(throws: KeyError.invalidHex) { try PublicKey(hex: pk.hex.uppercased()) }
        #expect(throws: KeyError.invalidLength(expected: 32, actual: 31)) { try PublicKey(hex: String(pk.hex.dropLast(2))) }
        // BIP-340 vector 5: an x with no point on secp256k1.
        #expect(throws: KeyError.invalidPublicKey) { try PublicKey(hex: "eefdea4cdb677750a420fee807eacf21eb9898ae79b9768766e4faa04a2d4a34") }
        #expect(throws: KeyError.nip19(.wrongPrefix(expected: "npub", actual: "nsec"))) {
            try PublicKey(npub: SecretKey.generate().nsecEncoded())
        }
    }

    @Test func publicKeyCodableAsHexString() throws {
        let pk = Keys.generate().publicKey
        let data = try JSONEncoder().encode([pk])
        #expect(String(decoding: data, as: UTF8.self) == "[\"\(pk.hex)\"]")
        #expect(try JSONDecoder().decode([PublicKey].self, from: data) == [pk])
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([PublicKey].self, from: Data("[\"\(pk.hex.uppercased())\"]".utf8))
        }
    }

    @Test func signAndVerifyArbitraryLengths() {
        let keys = Keys.generate()
        for length in [0, 1, 31, 32, 33, 1000] {
            let msg = [UInt8](repeating: 0xab, count: length)
            let sig = keys.sign(msg)
            #expect(Schnorr.verify(signature: sig, message: msg, publicKey: keys.publicKey))
            #expect(!Schnorr.verify(signature: sig, message: msg + [0], publicKey: keys.publicKey))
        }
    }

    @Test func concurrentSigningIsSafe() async {
        let keys = Keys.generate()
        let ok = await withTaskGroup(of: Bool.self) { group in
            for i in 0..<64 {
                group.addTask {
                    let msg = [UInt8](repeating: UInt8(i), count: 32)
                    return Schnorr.verify(signature: keys.sign(msg), message: msg, publicKey: keys.publicKey)
                }
            }
            return await group.reduce(true) { $0 && $1 }
        }
        #expect(ok)
    }
}
