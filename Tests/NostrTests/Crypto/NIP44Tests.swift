import Foundation
import Testing
@testable import Nostr

@Suite("NIP-44")
struct NIP44Tests {
    let alice = Keys.generate()
    let bob = Keys.generate()

    @Test func roundTripWithRandomNonce() throws {
        for text in ["a", "hello 🌍", String(repeating: "x", count: 65535)] {
            let payload = try NIP44.encrypt(text, from: alice.secretKey, to: bob.publicKey)
            #expect(try NIP44.decrypt(payload, recipient: bob.secretKey, sender: alice.publicKey) == text)
            // Fresh nonce each time.
            #expect(try NIP44.encrypt(text, from: alice.secretKey, to: bob.publicKey) != payload)
        }
    }

    @Test func wrongKeyOrTamperingFailsMAC() throws {
        let payload = try NIP44.encrypt("secret", from: alice.secretKey, to: bob.publicKey)
        #expect(throws: NIP44Error.invalidMAC) {
            try NIP44.decrypt(payload, recipient: Keys.generate().secretKey, sender: alice.publicKey)
        }
        var data = Array(Data(base64Encoded: payload)!)
        data[40] ^= 1
        #expect(throws: NIP44Error.invalidMAC) {
            try NIP44.decrypt(Data(data).base64EncodedString(), recipient: bob.secretKey, sender: alice.publicKey)
        }
    }

    @Test func secretsAreRedacted() {
        let key = NIP44.ConversationKey(secretKey: alice.secretKey, publicKey: bob.publicKey)
        #expect("\(key)" == "ConversationKey(redacted)")
        var dumped = ""
        dump(key, to: &dumped)
        #expect(!dumped.contains(Hex.encode(key.rawBytes())))
    }

    @Test func paddingBoundaries() throws {
        #expect(NIP44.paddedLength(1) == 32 && NIP44.paddedLength(32) == 32 && NIP44.paddedLength(33) == 64)
        #expect(NIP44.paddedLength(257) == 320 && NIP44.paddedLength(65535) == 65536)
        #expect(try NIP44.unpad(NIP44.pad([7])) == [7])
        #expect(throws: NIP44Error.invalidPadding) { try NIP44.unpad([0, 0] + [UInt8](repeating: 0, count: 32)) }
        #expect(throws: NIP44Error.invalidPadding) { try NIP44.unpad([0, 1, 7]) }
    }

    @Test func nonUTF8PlaintextIsReported() throws {
        let key = NIP44.ConversationKey(secretKey: alice.secretKey, publicKey: bob.publicKey)
        let payload = try NIP44.encrypt(bytes: [0xff, 0xfe], conversationKey: key, nonce: [UInt8](repeating: 3, count: 32))
        #expect(try NIP44.decryptBytes(payload, conversationKey: key) == [0xff, 0xfe])
        #expect(throws: NIP44Error.invalidUTF8) { try NIP44.decrypt(payload, conversationKey: key) }
    }
}
