import Testing
@testable import Nostr

@Suite("HChaCha20 and XChaCha20-Poly1305")
struct HChaCha20Tests {
    /// draft-irtf-cfrg-xchacha-03, section 2.2.1 (HChaCha20 test vector).
    @Test func draftVectorSubkey() throws {
        let key = (0..<32).map { UInt8($0) }
        let nonce = try #require(TestVectors.bytes("000000090000004a0000000031415927"))
        let expected = try #require(TestVectors.bytes("82413b4227b27bfed30e42508a877d73a0f9e4d58a74a853c12ec41326d3ecdc"))
        #expect(HChaCha20.subkey(key: key, nonce: nonce) == expected)
    }

    /// draft-irtf-cfrg-xchacha-03, appendix A.3.1 (AEAD_XChaCha20_Poly1305 test vector).
    @Test func draftVectorAEAD() throws {
        let key = (0x80..<0xa0).map { UInt8($0) }
        let nonce = (0x40..<0x58).map { UInt8($0) }
        let aad = try #require(TestVectors.bytes("50515253c0c1c2c3c4c5c6c7"))
        let plaintext = Array("Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.".utf8)
        let expected = try #require(TestVectors.bytes(
            "bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb"
                + "731c7f1b0b4aa6440bf3a82f4eda7e39ae64c6708c54c216cb96b72e1213b452"
                + "2f8c9ba40db5d945b11b69b982c1bb9e3f3fac2bc369488f76b2383565d3fff9"
                + "21f9664c97637da9768812f615c68b13b52e" + "c0875924c1c7987947deafd8780acf49"))
        let sealed = try XChaCha20Poly1305.seal(plaintext, key: key, nonce: nonce, associatedData: aad)
        #expect(sealed == expected)
        #expect(try XChaCha20Poly1305.open(sealed, key: key, nonce: nonce, associatedData: aad) == plaintext)

        var tampered = sealed
        tampered[0] ^= 1
        #expect(throws: (any Error).self) { try XChaCha20Poly1305.open(tampered, key: key, nonce: nonce, associatedData: aad) }
        #expect(throws: (any Error).self) { try XChaCha20Poly1305.open(sealed, key: key, nonce: nonce, associatedData: aad + [0]) }
    }
}
