import Crypto
import Foundation
import Testing
import TestSupport
@testable import Nostr

/// Shape of nip59-gift-wrap-example.json.
struct NIP59File: Decodable, Sendable {
    struct KeySet: Decodable, Sendable {
        let author_sk, author_pk, recipient_sk, recipient_pk, ephemeral_sk, ephemeral_pk, author_nsec, recipient_nsec: String
    }
    struct Derived: Decodable, Sendable {
        let rumor_id_preimage, seal_id_preimage, wrap_id_preimage: String
        let seal_conversation_key, wrap_conversation_key, seal_payload_nonce, wrap_payload_nonce: String
        let seal_content_plaintext, wrap_content_plaintext: String
    }
    let keys: KeySet
    let rumor: JSONValue
    let seal: JSONValue
    let wrap: JSONValue
    let derived: Derived
}

@Suite("NIP-59 worked example")
struct NIP59VectorTests {
    @Test func workedExample() throws {
        guard let f = try SharedFixtures.loadJSON(NIP59File.self, "nostr/nip59-gift-wrap-example.json") else { return }
        let author = try Keys(importing: f.keys.author_sk)
        let recipient = try Keys(importing: f.keys.recipient_sk)
        let ephemeral = try Keys(importing: f.keys.ephemeral_sk)
        #expect(author.publicKey.hex == f.keys.author_pk)
        #expect(recipient.publicKey.hex == f.keys.recipient_pk)
        #expect(ephemeral.publicKey.hex == f.keys.ephemeral_pk)
        #expect(try SecretKey(nsec: f.keys.author_nsec) == author.secretKey)
        #expect(try SecretKey(nsec: f.keys.recipient_nsec) == recipient.secretKey)

        // Ids are sha256 of the given NIP-01 preimages, which our serializer reproduces byte for byte.
        let rumor = try UnsignedEvent(jsonValue: f.rumor)
        let seal = try Event(jsonValue: f.seal)  // verifies id and signature
        let wrap = try Event(jsonValue: f.wrap)
        let cases: [(String, [UInt8], EventID, String)] = [
            ("rumor", rumor.canonicalSerialization(), rumor.id, f.derived.rumor_id_preimage),
            ("seal", seal.unsigned.canonicalSerialization(), seal.id, f.derived.seal_id_preimage),
            ("wrap", wrap.unsigned.canonicalSerialization(), wrap.id, f.derived.wrap_id_preimage),
        ]
        for (name, serialized, id, preimage) in cases {
            #expect(serialized == Array(preimage.utf8), "\(name) preimage")
            #expect(id.bytes == Array(SHA256.hash(data: Array(preimage.utf8))), "\(name) id")
        }
        #expect(rumor.id.hex == f.rumor.objectValue?["id"]?.stringValue)
        try seal.verify()
        try wrap.verify()

        // Conversation keys.
        let sealKey = NIP44.ConversationKey(secretKey: author.secretKey, publicKey: recipient.publicKey)
        let wrapKey = NIP44.ConversationKey(secretKey: ephemeral.secretKey, publicKey: recipient.publicKey)
        #expect(Hex.encode(sealKey.rawBytes()) == f.derived.seal_conversation_key)
        #expect(Hex.encode(wrapKey.rawBytes()) == f.derived.wrap_conversation_key)
        #expect(NIP44.ConversationKey(secretKey: recipient.secretKey, publicKey: author.publicKey) == sealKey)

        // Deterministic re-encryption of the given plaintexts with the given nonces reproduces the content.
        let sealNonce = try #require(TestVectors.bytes(f.derived.seal_payload_nonce))
        let wrapNonce = try #require(TestVectors.bytes(f.derived.wrap_payload_nonce))
        #expect(try NIP44.encrypt(bytes: Array(f.derived.seal_content_plaintext.utf8), conversationKey: sealKey, nonce: sealNonce) == seal.content)
        #expect(try NIP44.encrypt(bytes: Array(f.derived.wrap_content_plaintext.utf8), conversationKey: wrapKey, nonce: wrapNonce) == wrap.content)

        // Unwrapping with the recipient's key yields the original rumor and the authenticated sender.
        let opened = try GiftWrap.unwrap(wrap, recipient: recipient.secretKey)
        #expect(opened.rumor == rumor)
        #expect(opened.rumor.id == rumor.id)
        #expect(opened.rumor.content == "Are you going to the party tonight?")
        #expect(opened.seal == seal)
        #expect(opened.sender == author.publicKey)

        // Re-wrapping with the example's ephemeral key, timestamps and nonces: the layers carry the same
        // keys, times and nonces; the ciphertexts differ only because our rumor/seal JSON uses another
        // (equally valid) key order than the spec's listing, so compare fields after unwrapping.
        let rewrapped = try GiftWrap.wrap(rumor, author: author, recipient: recipient.publicKey, overrides: .init(
            ephemeralKeys: ephemeral, sealCreatedAt: seal.createdAt, wrapCreatedAt: wrap.createdAt,
            sealNonce: sealNonce, wrapNonce: wrapNonce))
        #expect(rewrapped.pubkey == wrap.pubkey)
        #expect(rewrapped.tags == wrap.tags)
        let reopened = try GiftWrap.unwrap(rewrapped, recipient: recipient.secretKey)
        #expect(reopened.rumor == rumor)
        #expect(reopened.seal.createdAt == seal.createdAt && reopened.seal.pubkey == seal.pubkey)
        #expect(rewrapped.createdAt == wrap.createdAt)
        #expect(Array(try #require(Data(base64Encoded: reopened.seal.content)))[1..<33] == sealNonce[...])
        #expect(Array(try #require(Data(base64Encoded: rewrapped.content)))[1..<33] == wrapNonce[...])

        SharedFixtures.report("nip59-gift-wrap-example.json", ran: 1, skipped: 0,
                              reason: "none; 3 ids, 2 signatures, 2 conversation keys, 2 re-encryptions, unwrap")
    }
}
