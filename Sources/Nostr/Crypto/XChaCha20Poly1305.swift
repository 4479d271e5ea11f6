import Crypto

/// XChaCha20-Poly1305: ChaCha20-Poly1305 with a 24-byte nonce, safe to draw at random.
///
/// The AEAD of NIP-49 ("Encrypting a private key"), built as draft-irtf-cfrg-xchacha-03 section 2.3
/// describes: HChaCha20 of the key and the nonce's first 16 bytes is the subkey, and swift-crypto's
/// ChaCha20-Poly1305 (RFC 8439) runs under it with the nonce 0x00000000 ‖ the nonce's last 8 bytes.
/// The output is the ciphertext followed by the 16-byte Poly1305 tag.
enum XChaCha20Poly1305 {
    /// Nonce length in bytes.
    static let nonceLength = 24
    /// Tag length in bytes.
    static let tagLength = 16

    /// Encrypts and authenticates `plaintext` and `associatedData`; returns ciphertext ‖ tag.
    static func seal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8], associatedData: [UInt8]) throws -> [UInt8] {
        let (subkey, innerNonce) = try derive(key: key, nonce: nonce)
        let box = try ChaChaPoly.seal(plaintext, using: subkey, nonce: innerNonce, authenticating: associatedData)
        return Array(box.ciphertext) + Array(box.tag)
    }

    /// Checks the tag and decrypts ciphertext ‖ tag; throws when the key, nonce, data or tag differ.
    static func open(_ sealed: [UInt8], key: [UInt8], nonce: [UInt8], associatedData: [UInt8]) throws -> [UInt8] {
        guard sealed.count >= tagLength else { throw CryptoKitError.incorrectParameterSize }
        let (subkey, innerNonce) = try derive(key: key, nonce: nonce)
        let box = try ChaChaPoly.SealedBox(
            nonce: innerNonce, ciphertext: sealed.dropLast(tagLength), tag: sealed.suffix(tagLength))
        return Array(try ChaChaPoly.open(box, using: subkey, authenticating: associatedData))
    }

    private static func derive(key: [UInt8], nonce: [UInt8]) throws -> (SymmetricKey, ChaChaPoly.Nonce) {
        guard key.count == 32 else { throw CryptoKitError.incorrectKeySize }
        guard nonce.count == nonceLength else { throw CryptoKitError.incorrectParameterSize }
        let subkey = SymmetricKey(data: HChaCha20.subkey(key: key, nonce: Array(nonce[0..<16])))
        return (subkey, try ChaChaPoly.Nonce(data: [0, 0, 0, 0] + nonce[16..<24]))
    }
}
