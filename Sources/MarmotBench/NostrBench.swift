import Nostr

/// Speed of the Nostr primitives: signing, verification, NIP-44 and NIP-59.
enum NostrBench {
    static func run() {
        Bench.section("Nostr")
        let alice = Keys.generate()
        let bob = Keys.generate()
        let draft = UnsignedEvent(pubkey: alice.publicKey, createdAt: 1_700_000_000, kind: .textNote,
                                  tags: [["p", bob.publicKey.hex]], content: String(repeating: "hello ", count: 40))
        guard let event = try? draft.signed(with: alice) else {
            print("NostrBench: signing failed")
            return
        }
        Bench.measure("event sign (id + BIP-340)", iterations: 2_000) { _ = try? draft.signed(with: alice) }
        Bench.measure("event verify (id + BIP-340)", iterations: 2_000) { _ = event.isValid }
        let json = event.jsonString
        Bench.measure("event JSON parse + verify", iterations: 2_000) { _ = try? Event(json: json) }

        let key = NIP44.ConversationKey(secretKey: alice.secretKey, publicKey: bob.publicKey)
        Bench.measure("NIP-44 conversation key (ECDH + HKDF)", iterations: 2_000) {
            _ = NIP44.ConversationKey(secretKey: alice.secretKey, publicKey: bob.publicKey)
        }
        let kilobyte = String(repeating: "x", count: 1024)
        Bench.measure("NIP-44 encrypt + decrypt 1 KB", iterations: 2_000) {
            if let payload = try? NIP44.encrypt(kilobyte, conversationKey: key) {
                _ = try? NIP44.decrypt(payload, conversationKey: key)
            }
        }

        let rumor = UnsignedEvent(pubkey: alice.publicKey, kind: .welcome, content: kilobyte)
        Bench.measure("NIP-59 gift wrap + unwrap (1 KB rumor)", iterations: 300) {
            if let wrap = try? GiftWrap.wrap(rumor, author: alice, recipient: bob.publicKey) {
                _ = try? GiftWrap.unwrap(wrap, recipient: bob.secretKey)
            }
        }
    }
}
