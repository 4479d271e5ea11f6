import Foundation
import Testing
import TestSupport
@testable import MLS

/// `crypto-basics.json`: the labelled constructions of RFC 9420 §5 and §8 for one cipher suite.
struct CryptoBasicsVector: Decodable, Sendable, CustomTestStringConvertible {
    struct RefHash: Decodable, Sendable { let label: String; let value: String; let out: String }
    struct ExpandWithLabel: Decodable, Sendable {
        let secret: String; let label: String; let context: String; let length: Int; let out: String
    }
    struct DeriveSecret: Decodable, Sendable { let secret: String; let label: String; let out: String }
    struct DeriveTreeSecret: Decodable, Sendable {
        let secret: String; let label: String; let generation: UInt32; let length: Int; let out: String
    }
    struct SignWithLabel: Decodable, Sendable {
        let priv: String; let pub: String; let content: String; let label: String; let signature: String
    }
    struct EncryptWithLabel: Decodable, Sendable {
        let priv: String; let pub: String; let label: String; let context: String; let plaintext: String
        let kem_output: String; let ciphertext: String
    }

    let cipher_suite: UInt16
    let ref_hash: RefHash
    let expand_with_label: ExpandWithLabel
    let derive_secret: DeriveSecret
    let derive_tree_secret: DeriveTreeSecret
    let sign_with_label: SignWithLabel
    let encrypt_with_label: EncryptWithLabel

    var testDescription: String { "suite \(cipher_suite)" }

    static let suite1: [CryptoBasicsVector] = {
        let cases = (try? SharedFixtures.loadJSON([CryptoBasicsVector].self, "mls/crypto-basics.json")) ?? nil
        let mine = (cases ?? []).filter { $0.cipher_suite == 1 }
        SharedFixtures.report(
            "mls/crypto-basics.json", ran: mine.count, skipped: (cases?.count ?? 0) - mine.count,
            reason: "other cipher suites")
        return mine
    }()
}

func hex(_ string: String) throws -> Data { try #require(Data(testHex: string), "bad hex \(string)") }

struct CryptoBasicsVectorTests {
    let provider = CipherSuiteProvider.mls128X25519

    @Test func vectorFileHasSuite1() {
        guard SharedFixtures.shouldRun else { return }
        #expect(CryptoBasicsVector.suite1.count == 1)
    }

    @Test(arguments: CryptoBasicsVector.suite1)
    func refHash(_ v: CryptoBasicsVector) throws {
        let t = v.ref_hash
        #expect(provider.refHash(label: t.label, value: try hex(t.value)) == (try hex(t.out)))
    }

    @Test(arguments: CryptoBasicsVector.suite1)
    func expandWithLabel(_ v: CryptoBasicsVector) throws {
        let t = v.expand_with_label
        let out = try provider.expandWithLabel(
            secret: try hex(t.secret), label: t.label, context: try hex(t.context), length: t.length)
        #expect(out == (try hex(t.out)))
    }

    @Test(arguments: CryptoBasicsVector.suite1)
    func deriveSecret(_ v: CryptoBasicsVector) throws {
        let t = v.derive_secret
        #expect(provider.deriveSecret(secret: try hex(t.secret), label: t.label) == (try hex(t.out)))
    }

    @Test(arguments: CryptoBasicsVector.suite1)
    func deriveTreeSecret(_ v: CryptoBasicsVector) throws {
        let t = v.derive_tree_secret
        let out = try provider.deriveTreeSecret(
            secret: try hex(t.secret), label: t.label, generation: t.generation, length: t.length)
        #expect(out == (try hex(t.out)))
    }

    @Test(arguments: CryptoBasicsVector.suite1)
    func signWithLabel(_ v: CryptoBasicsVector) throws {
        let t = v.sign_with_label
        let key = try SignaturePrivateKey(seed: try hex(t.priv))
        let pub = SignaturePublicKey(try hex(t.pub))
        let content = try hex(t.content)
        #expect(key.publicKey == pub)
        #expect(provider.verifyWithLabel(pub, label: t.label, content: content, signature: try hex(t.signature)))
        let fresh = try provider.signWithLabel(key, label: t.label, content: content)
        #expect(provider.verifyWithLabel(pub, label: t.label, content: content, signature: fresh))
        #expect(!provider.verifyWithLabel(pub, label: t.label + "x", content: content, signature: fresh))
    }

    @Test(arguments: CryptoBasicsVector.suite1)
    func encryptWithLabel(_ v: CryptoBasicsVector) throws {
        let t = v.encrypt_with_label
        let key = try HPKEPrivateKey(rawBytes: try hex(t.priv))
        #expect(key.publicKey == HPKEPublicKey(try hex(t.pub)))
        let context = try hex(t.context), plaintext = try hex(t.plaintext)
        let opened = try provider.decryptWithLabel(
            key, label: t.label, context: context, kemOutput: try hex(t.kem_output), ciphertext: try hex(t.ciphertext))
        #expect(opened == plaintext)
        let sealed = try provider.encryptWithLabel(key.publicKey, label: t.label, context: context, plaintext: plaintext)
        #expect(sealed.kemOutput.startIndex == 0 && sealed.ciphertext.startIndex == 0)
        let reopened = try provider.decryptWithLabel(
            key, label: t.label, context: context, kemOutput: sealed.kemOutput, ciphertext: sealed.ciphertext)
        #expect(reopened == plaintext)
        #expect(throws: MLSCryptoError.decryptionFailed) {
            try provider.decryptWithLabel(
                key, label: t.label + "x", context: context, kemOutput: sealed.kemOutput, ciphertext: sealed.ciphertext)
        }
    }
}
