import Crypto
import Foundation
import Testing
import TestSupport
@testable import Nostr

/// Shape of nip44.vectors.json (v2 only).
struct NIP44File: Decodable, Sendable {
    struct ConversationKeyCase: Decodable, Sendable { let sec1, pub2: String; let conversation_key: String? }
    struct MessageKeys: Decodable, Sendable {
        struct Entry: Decodable, Sendable { let nonce, chacha_key, chacha_nonce, hmac_key: String }
        let conversation_key: String
        let keys: [Entry]
    }
    struct EncryptDecrypt: Decodable, Sendable { let sec1, sec2, conversation_key, nonce, plaintext, payload: String }
    struct LongMessage: Decodable, Sendable {
        let conversation_key, nonce, pattern: String
        let `repeat`: Int
        let plaintext_sha256, payload_sha256: String
    }
    struct InvalidDecrypt: Decodable, Sendable { let conversation_key, nonce, plaintext, payload, note: String }
    struct Valid: Decodable, Sendable {
        let get_conversation_key: [ConversationKeyCase]
        let get_message_keys: MessageKeys
        let calc_padded_len: [[Int]]
        let encrypt_decrypt: [EncryptDecrypt]
        let encrypt_decrypt_long_msg: [LongMessage]
    }
    struct Invalid: Decodable, Sendable {
        let encrypt_msg_lengths: [Int]
        let get_conversation_key: [ConversationKeyCase]
        let decrypt: [InvalidDecrypt]
    }
    struct V2: Decodable, Sendable { let valid: Valid; let invalid: Invalid }
    let v2: V2
}

@Suite("NIP-44 vectors")
struct NIP44VectorTests {
    static let file = "nip44.vectors.json"

    func load() throws -> NIP44File.V2? { try SharedFixtures.loadJSON(NIP44File.self, "nostr/\(Self.file)")?.v2 }

    func bytes(_ hex: String) throws -> [UInt8] { try #require(TestVectors.bytes(hex), "hex \(hex)") }

    @Test func validConversationKeys() throws {
        guard let v = try load() else { return }
        for c in v.valid.get_conversation_key {
            let key = NIP44.ConversationKey(secretKey: try SecretKey(hex: c.sec1), publicKey: try PublicKey(hex: c.pub2))
            #expect(Hex.encode(key.rawBytes()) == c.conversation_key, "\(c.sec1)")
        }
        SharedFixtures.report("\(Self.file) valid.get_conversation_key", ran: v.valid.get_conversation_key.count, skipped: 0, reason: "none")
    }

    @Test func validMessageKeys() throws {
        guard let v = try load() else { return }
        let key = try NIP44.ConversationKey(bytes: bytes(v.valid.get_message_keys.conversation_key))
        for e in v.valid.get_message_keys.keys {
            let mk = NIP44.MessageKeys(conversationKey: key, nonce: try bytes(e.nonce))
            #expect(Hex.encode(mk.chachaKey) == e.chacha_key)
            #expect(Hex.encode(mk.chachaNonce) == e.chacha_nonce)
            #expect(Hex.encode(mk.hmacKey) == e.hmac_key)
        }
        SharedFixtures.report("\(Self.file) valid.get_message_keys", ran: v.valid.get_message_keys.keys.count, skipped: 0, reason: "none")
    }

    @Test func validPaddedLengths() throws {
        guard let v = try load() else { return }
        for pair in v.valid.calc_padded_len {
            #expect(pair.count == 2)
            #expect(NIP44.paddedLength(pair[0]) == pair[1], "len \(pair[0])")
        }
        SharedFixtures.report("\(Self.file) valid.calc_padded_len", ran: v.valid.calc_padded_len.count, skipped: 0, reason: "none")
    }

    @Test func validEncryptDecrypt() throws {
        guard let v = try load() else { return }
        for c in v.valid.encrypt_decrypt {
            let sk1 = try SecretKey(hex: c.sec1), sk2 = try SecretKey(hex: c.sec2)
            let forward = NIP44.ConversationKey(secretKey: sk1, publicKey: sk2.publicKey)
            let backward = NIP44.ConversationKey(secretKey: sk2, publicKey: sk1.publicKey)
            #expect(Hex.encode(forward.rawBytes()) == c.conversation_key)
            #expect(forward == backward)
            let payload = try NIP44.encrypt(bytes: Array(c.plaintext.utf8), conversationKey: forward, nonce: bytes(c.nonce))
            #expect(payload == c.payload)
            // Reverse direction: the recipient decrypts with its own secret key and the sender's public key.
            #expect(try NIP44.decrypt(c.payload, recipient: sk2, sender: sk1.publicKey) == c.plaintext)
            #expect(try NIP44.decrypt(c.payload, recipient: sk1, sender: sk2.publicKey) == c.plaintext)
        }
        SharedFixtures.report("\(Self.file) valid.encrypt_decrypt", ran: v.valid.encrypt_decrypt.count, skipped: 0, reason: "none")
    }

    @Test func validLongMessages() throws {
        guard let v = try load() else { return }
        for c in v.valid.encrypt_decrypt_long_msg {
            let plaintext = String(repeating: c.pattern, count: c.repeat)
            #expect(Hex.encode(SHA256.hash(data: Array(plaintext.utf8))) == c.plaintext_sha256)
            let key = try NIP44.ConversationKey(bytes: bytes(c.conversation_key))
            let payload = try NIP44.encrypt(bytes: Array(plaintext.utf8), conversationKey: key, nonce: bytes(c.nonce))
            #expect(Hex.encode(SHA256.hash(data: Array(payload.utf8))) == c.payload_sha256)
            #expect(try NIP44.decrypt(payload, conversationKey: key) == plaintext)
        }
        SharedFixtures.report("\(Self.file) valid.encrypt_decrypt_long_msg", ran: v.valid.encrypt_decrypt_long_msg.count, skipped: 0, reason: "none")
    }

    @Test func invalidMessageLengths() throws {
        guard let v = try load() else { return }
        let key = try NIP44.ConversationKey(bytes: [UInt8](repeating: 1, count: 32))
        for n in v.invalid.encrypt_msg_lengths {
            #expect(throws: NIP44Error.invalidPlaintextLength(n)) {
                try NIP44.encrypt(bytes: [UInt8](repeating: 0x61, count: n), conversationKey: key, nonce: [UInt8](repeating: 0, count: 32))
            }
        }
        SharedFixtures.report("\(Self.file) invalid.encrypt_msg_lengths", ran: v.invalid.encrypt_msg_lengths.count, skipped: 0,
                              reason: "none; original v2 limit 1...65535 adopted, extended-length rule not implemented")
    }

    @Test func invalidConversationKeys() throws {
        guard let v = try load() else { return }
        for c in v.invalid.get_conversation_key {
            // Either the secret key or the public key must be refused before any ECDH happens.
            var rejected = false
            do {
                _ = NIP44.ConversationKey(secretKey: try SecretKey(hex: c.sec1), publicKey: try PublicKey(hex: c.pub2))
            } catch let e as KeyError {
                rejected = e == .invalidSecretKey || e == .invalidPublicKey
            }
            #expect(rejected, "\(c.sec1) / \(c.pub2)")
        }
        SharedFixtures.report("\(Self.file) invalid.get_conversation_key", ran: v.invalid.get_conversation_key.count, skipped: 0, reason: "none")
    }

    @Test func invalidDecrypt() throws {
        guard let v = try load() else { return }
        for c in v.invalid.decrypt {
            let key = try NIP44.ConversationKey(bytes: bytes(c.conversation_key))
            #expect(throws: NIP44Error.self, "\(c.note)") { try NIP44.decrypt(c.payload, conversationKey: key) }
            do {
                _ = try NIP44.decrypt(c.payload, conversationKey: key)
            } catch let e as NIP44Error {
                let expectedCategory: Bool = switch e {
                case .unsupportedVersion: c.note.contains("version")
                case .invalidBase64: c.note.contains("base64")
                case .invalidMAC: c.note.contains("MAC")
                case .invalidPadding: c.note.contains("padding")
                case .invalidPayloadLength: c.note.contains("payload length")
                default: false
                }
                #expect(expectedCategory, "\(c.note): got \(e)")
            }
        }
        SharedFixtures.report("\(Self.file) invalid.decrypt", ran: v.invalid.decrypt.count, skipped: 0, reason: "none")
    }
}
