import Crypto
import Foundation
import Testing
@testable import MLS

/// Behaviour of the suite-0x0001 primitives beyond the vectors: bounds, errors, redaction.
struct CipherSuiteProviderTests {
    let provider = CipherSuiteProvider.mls128X25519

    @Test func onlySuiteOneIsSupported() throws {
        #expect(try CipherSuiteProvider(.mls128X25519AES128GCMSHA256Ed25519) == provider)
        #expect(throws: MLSCryptoError.unsupportedCipherSuite(CipherSuite(rawValue: 2))) {
            try CipherSuiteProvider(CipherSuite(rawValue: 2))
        }
    }

    @Test func expandLengthsAreBounded() throws {
        let secret = Data(repeating: 1, count: 32)
        #expect(try provider.expandWithLabel(secret: secret, label: "l", context: Data(), length: 0).isEmpty)
        #expect(try provider.expandWithLabel(secret: secret, label: "l", context: Data(), length: 8160).count == 8160)
        #expect(throws: MLSCryptoError.invalidOutputLength(8161)) {
            try provider.expandWithLabel(secret: secret, label: "l", context: Data(), length: 8161)
        }
        #expect(throws: MLSCryptoError.invalidOutputLength(-1)) {
            try provider.expand(prk: secret, info: Data(), length: -1)
        }
    }

    /// RFC 5869 Appendix A.1 (test case 1): the Expand step from its PRK and info.
    @Test func expandMatchesRFC5869() throws {
        let prk = try hex("077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5")
        let info = try hex("f0f1f2f3f4f5f6f7f8f9")
        let okm = try hex("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
        #expect(try provider.expand(prk: prk, info: info, length: 42) == okm)
    }

    /// The Expand built on SHA-256 gives swift-crypto's HKDF output for every key length (up to a
    /// block, and beyond, where the key is hashed first), info length and output length.
    @Test func expandMatchesSwiftCryptoHKDF() throws {
        for keyLength in [0, 1, 31, 32, 33, 63, 64, 65, 100] {
            for infoLength in [0, 1, 55, 200] {
                for length in [1, 12, 16, 31, 32, 33, 64, 65, 100] {
                    let prk = provider.randomBytes(keyLength), info = provider.randomBytes(infoLength)
                    let reference = HKDF<SHA256>.expand(pseudoRandomKey: prk, info: info, outputByteCount: length)
                        .withUnsafeBytes { Data($0) }
                    #expect(try provider.expand(prk: prk, info: info, length: length) == reference,
                            "key \(keyLength), info \(infoLength), length \(length)")
                }
            }
        }
    }

    @Test func aeadRoundTripsAndRejectsTampering() throws {
        let key = provider.randomBytes(16), nonce = provider.randomBytes(12)
        let sealed = try provider.seal(key: key, nonce: nonce, aad: Data("aad".utf8), plaintext: Data("hello".utf8))
        #expect(sealed.count == 5 + 16)
        #expect(sealed.startIndex == 0)
        #expect(try provider.open(key: key, nonce: nonce, aad: Data("aad".utf8), ciphertext: sealed) == Data("hello".utf8))
        var tampered = sealed
        tampered[0] ^= 1
        #expect(throws: MLSCryptoError.decryptionFailed) {
            try provider.open(key: key, nonce: nonce, aad: Data("aad".utf8), ciphertext: tampered)
        }
        #expect(throws: MLSCryptoError.decryptionFailed) {
            try provider.open(key: key, nonce: nonce, aad: Data(), ciphertext: Data([1, 2, 3]))
        }
        #expect(throws: MLSCryptoError.invalidLength(what: "AEAD key", expected: 16, actual: 15)) {
            try provider.seal(key: Data(count: 15), nonce: nonce, aad: Data(), plaintext: Data())
        }
    }

    @Test func macVerifies() {
        let tag = provider.mac(key: Data("k".utf8), data: Data("d".utf8))
        #expect(tag.count == 32)
        #expect(provider.verifyMAC(key: Data("k".utf8), data: Data("d".utf8), tag: tag))
        #expect(!provider.verifyMAC(key: Data("k".utf8), data: Data("e".utf8), tag: tag))
    }

    @Test func malformedKeysAreErrorsNotCrashes() throws {
        #expect(throws: MLSCryptoError.invalidLength(what: "Ed25519 seed", expected: 32, actual: 31)) {
            try SignaturePrivateKey(seed: Data(count: 31))
        }
        #expect(throws: MLSCryptoError.invalidLength(what: "X25519 private key", expected: 32, actual: 33)) {
            try HPKEPrivateKey(rawBytes: Data(count: 33))
        }
        #expect(!provider.verifyWithLabel(SignaturePublicKey(Data([1, 2])), label: "x", content: Data(), signature: Data()))
        #expect(throws: MLSCryptoError.invalidPublicKey) {
            try provider.encryptWithLabel(HPKEPublicKey(Data([1])), label: "x", context: Data(), plaintext: Data())
        }
        let key = provider.generateKeyPair()
        #expect(throws: MLSCryptoError.decryptionFailed) {
            try provider.decryptWithLabel(key, label: "x", context: Data(), kemOutput: Data([1, 2]), ciphertext: Data())
        }
    }

    @Test func privateKeysAreRedacted() throws {
        let signing = provider.generateSignatureKey()
        let hpke = provider.generateKeyPair()
        #expect("\(signing)" == "SignaturePrivateKey(redacted)")
        #expect(String(reflecting: signing) == "SignaturePrivateKey(redacted)")
        #expect("\(hpke)" == "HPKEPrivateKey(redacted)")
        #expect(String(reflecting: hpke) == "HPKEPrivateKey(redacted)")
        let reloaded = try SignaturePrivateKey(seed: signing.rawBytesForStorage)
        #expect(reloaded.publicKey == signing.publicKey)
        #expect(try HPKEPrivateKey(rawBytes: hpke.rawBytesForStorage).publicKey == hpke.publicKey)
    }

    @Test func referencesUseRFCLabels() {
        let value = Data([1, 2, 3])
        #expect(provider.keyPackageRef(encodedKeyPackage: value).bytes
            == provider.refHash(label: "MLS 1.0 KeyPackage Reference", value: value))
        #expect(provider.proposalRef(encodedAuthenticatedContent: value).bytes
            == provider.refHash(label: "MLS 1.0 Proposal Reference", value: value))
    }

    @Test func publicKeysRoundTripTheCodec() throws {
        let key = provider.generateKeyPair().publicKey
        #expect(try HPKEPublicKey(tlsSerialized: key.tlsSerialized) == key)
        let sig = provider.generateSignatureKey().publicKey
        #expect(try SignaturePublicKey(tlsSerialized: sig.tlsSerialized) == sig)
    }
}
