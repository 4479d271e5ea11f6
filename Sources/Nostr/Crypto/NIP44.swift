import Crypto
import _CryptoExtras
import Foundation

/// NIP-44 version 2: padded ChaCha20 + HMAC-SHA256 payload encryption between two Nostr keys.
///
/// Plaintexts are limited to 1…65535 bytes, the rule the official vector file was published with;
/// the later extended-length amendment of 44.md is not implemented.
public enum NIP44 {
    /// The payload version byte.
    public static let version: UInt8 = 2
    /// Largest plaintext accepted, in bytes.
    public static let maxPlaintextLength = 65535

    /// Encrypts UTF-8 text with a fresh random 32-byte nonce; returns the base64 payload.
    public static func encrypt(_ plaintext: String, conversationKey: ConversationKey) throws -> String {
        try encrypt(bytes: Array(plaintext.utf8), conversationKey: conversationKey, nonce: SecureRandom.bytes(32))
    }

    /// Encrypts from `sender` to `recipient` with a fresh random nonce.
    public static func encrypt(_ plaintext: String, from sender: SecretKey, to recipient: PublicKey) throws -> String {
        try encrypt(plaintext, conversationKey: ConversationKey(secretKey: sender, publicKey: recipient))
    }

    /// Decrypts a base64 payload to UTF-8 text.
    public static func decrypt(_ payload: String, conversationKey: ConversationKey) throws -> String {
        guard let text = UTF8Validation.string(try decryptBytes(payload, conversationKey: conversationKey)) else {
            throw NIP44Error.invalidUTF8
        }
        return text
    }

    /// Decrypts a payload that `sender` encrypted to the owner of `recipient`.
    public static func decrypt(_ payload: String, recipient: SecretKey, sender: PublicKey) throws -> String {
        try decrypt(payload, conversationKey: ConversationKey(secretKey: recipient, publicKey: sender))
    }

    /// Encrypts with a caller-chosen nonce. Deterministic, so only for test vectors: reusing a nonce
    /// under one conversation key breaks confidentiality.
    static func encrypt(bytes plaintext: [UInt8], conversationKey: ConversationKey, nonce: [UInt8]) throws -> String {
        guard nonce.count == 32 else { throw NIP44Error.invalidKeyMaterial("nonce must be 32 bytes") }
        let keys = MessageKeys(conversationKey: conversationKey, nonce: nonce)
        let padded = try pad(plaintext)
        let ciphertext = try chacha20(padded, keys)
        let mac = hmac(keys.hmacKey, nonce: nonce, ciphertext: ciphertext)
        return Data([version] + nonce + ciphertext + mac).base64EncodedString()
    }

    /// Decrypts to raw bytes, checking sizes, version and MAC before anything else.
    public static func decryptBytes(_ payload: String, conversationKey: ConversationKey) throws -> [UInt8] {
        let plen = payload.utf8.count
        if payload.utf8.first == UInt8(ascii: "#") { throw NIP44Error.unsupportedVersion(nil) }
        guard (132...87472).contains(plen) else { throw NIP44Error.invalidPayloadLength(plen) }
        guard let decoded = Data(base64Encoded: payload) else { throw NIP44Error.invalidBase64 }
        let data = Array(decoded)
        guard (99...65603).contains(data.count) else { throw NIP44Error.invalidPayloadLength(data.count) }
        guard data[0] == version else { throw NIP44Error.unsupportedVersion(data[0]) }
        let nonce = Array(data[1..<33])
        let ciphertext = Array(data[33..<(data.count - 32)])
        let mac = Array(data[(data.count - 32)...])
        let keys = MessageKeys(conversationKey: conversationKey, nonce: nonce)
        guard constantTimeEqual(hmac(keys.hmacKey, nonce: nonce, ciphertext: ciphertext), mac) else {
            throw NIP44Error.invalidMAC
        }
        return try unpad(try chacha20(ciphertext, keys))
    }

    /// `calc_padded_len`: 32 bytes minimum, then chunks of 32 up to 256 and of next-power/8 above.
    public static func paddedLength(_ unpaddedLength: Int) -> Int {
        guard unpaddedLength > 32 else { return 32 }
        let nextPower = 1 << (Int.bitWidth - (unpaddedLength - 1).leadingZeroBitCount)
        let chunk = nextPower <= 256 ? 32 : nextPower / 8
        return chunk * ((unpaddedLength - 1) / chunk + 1)
    }

    static func pad(_ plaintext: [UInt8]) throws -> [UInt8] {
        let n = plaintext.count
        guard (1...maxPlaintextLength).contains(n) else { throw NIP44Error.invalidPlaintextLength(n) }
        var out = [UInt8(n >> 8), UInt8(n & 0xff)]
        out.reserveCapacity(2 + paddedLength(n))
        out += plaintext
        out += [UInt8](repeating: 0, count: paddedLength(n) - n)
        return out
    }

    static func unpad(_ padded: [UInt8]) throws -> [UInt8] {
        guard padded.count >= 2 else { throw NIP44Error.invalidPadding }
        let n = Int(padded[0]) << 8 | Int(padded[1])
        guard n >= 1, padded.count == 2 + paddedLength(n) else { throw NIP44Error.invalidPadding }
        return Array(padded[2..<(2 + n)])
    }

    private static func chacha20(_ input: [UInt8], _ keys: MessageKeys) throws -> [UInt8] {
        let nonce = try Insecure.ChaCha20CTR.Nonce(data: keys.chachaNonce)
        return Array(try Insecure.ChaCha20CTR.encrypt(input, using: SymmetricKey(data: keys.chachaKey), nonce: nonce))
    }

    private static func hmac(_ key: [UInt8], nonce: [UInt8], ciphertext: [UInt8]) -> [UInt8] {
        var h = HMAC<SHA256>(key: SymmetricKey(data: key))
        h.update(data: nonce)
        h.update(data: ciphertext)
        return Array(h.finalize())
    }
}
