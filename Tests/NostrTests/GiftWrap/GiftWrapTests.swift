import Testing
@testable import Nostr

@Suite("NIP-59 gift wrap")
struct GiftWrapTests {
    let alice = Keys.generate()
    let bob = Keys.generate()

    func rumor(by keys: Keys? = nil) -> UnsignedEvent {
        UnsignedEvent(pubkey: (keys ?? alice).publicKey, createdAt: 1_700_000_000, kind: .welcome,
                      tags: [["e", "kp"], ["relays", "wss://a"]], content: "welcome ✉️")
    }

    @Test func wrapAndUnwrap() throws {
        let now: Int64 = 1_800_000_000
        let wrap = try GiftWrap.wrap(rumor(), author: alice, recipient: bob.publicKey, overrides: .init(now: now))
        #expect(wrap.kind == .giftWrap)
        #expect(wrap.pubkey != alice.publicKey)
        #expect(wrap.tags == [["p", bob.publicKey.hex]])
        #expect((now - GiftWrap.maxBackdate...now).contains(wrap.createdAt))
        try wrap.verify()
        let opened = try GiftWrap.unwrap(wrap, recipient: bob.secretKey)
        #expect(opened.rumor == rumor())
        #expect(opened.sender == alice.publicKey)
        #expect(opened.seal.kind == .seal && opened.seal.tags.isEmpty)
        #expect((now - GiftWrap.maxBackdate...now).contains(opened.seal.createdAt))
        // Each wrap uses a fresh throwaway key.
        let again = try GiftWrap.wrap(rumor(), author: alice, recipient: bob.publicKey)
        #expect(again.pubkey != wrap.pubkey)
        #expect(try GiftWrap.unwrap(again, recipient: bob.secretKey).rumor == rumor())
        // Extra wrap tags follow the p tag.
        let tagged = try GiftWrap.wrap(rumor(), author: alice, recipient: bob.publicKey, wrapTags: [["expiration", "9"]])
        #expect(tagged.tags == [["p", bob.publicKey.hex], ["expiration", "9"]])
    }

    @Test func wrongRecipientCannotOpen() throws {
        let wrap = try GiftWrap.wrap(rumor(), author: alice, recipient: bob.publicKey)
        #expect(throws: GiftWrapError.wrapDecryption(.invalidMAC)) { try GiftWrap.unwrap(wrap, recipient: Keys.generate().secretKey) }
    }

    @Test func rumorMustBeByAuthor() {
        #expect(throws: GiftWrapError.rumorNotByAuthor) {
            try GiftWrap.wrap(rumor(by: bob), author: alice, recipient: bob.publicKey)
        }
    }

    @Test func rejectsNonWrapAndTamperedWrap() throws {
        let note = try rumor().signed(with: alice)
        #expect(throws: GiftWrapError.notGiftWrap(.welcome)) { try GiftWrap.unwrap(note, recipient: bob.secretKey) }
        let wrap = try GiftWrap.wrap(rumor(), author: alice, recipient: bob.publicKey)
        let forged = Event(id: wrap.id, pubkey: wrap.pubkey, createdAt: wrap.createdAt + 1, kind: wrap.kind,
                           tags: wrap.tags, content: wrap.content, sig: wrap.sig)
        #expect(throws: GiftWrapError.invalidWrap(.invalidID)) { try GiftWrap.unwrap(forged, recipient: bob.secretKey) }
    }

    @Test func impersonationIsDetected() throws {
        // Mallory seals a rumor that claims Alice as author.
        let mallory = Keys.generate()
        let lie = rumor(by: alice)
        let sealContent = try NIP44.encrypt(lie.jsonString, from: mallory.secretKey, to: bob.publicKey)
        let seal = try UnsignedEvent(pubkey: mallory.publicKey, createdAt: 1, kind: .seal, content: sealContent).signed(with: mallory)
        let wrap = try GiftWrap.wrap(seal: seal, recipient: bob.publicKey, wrapTags: [], overrides: .init())
        #expect(throws: GiftWrapError.authorMismatch(seal: mallory.publicKey, rumor: alice.publicKey)) {
            try GiftWrap.unwrap(wrap, recipient: bob.secretKey)
        }
    }

    @Test func sealMustBeKind13WithoutTags() throws {
        let content = try NIP44.encrypt(rumor().jsonString, from: alice.secretKey, to: bob.publicKey)
        let wrongKind = try UnsignedEvent(pubkey: alice.publicKey, createdAt: 1, kind: .textNote, content: content).signed(with: alice)
        #expect(throws: GiftWrapError.malformedSeal("kind 1 is not 13")) {
            try GiftWrap.unwrap(GiftWrap.wrap(seal: wrongKind, recipient: bob.publicKey, wrapTags: [], overrides: .init()), recipient: bob.secretKey)
        }
        let tagged = try UnsignedEvent(pubkey: alice.publicKey, createdAt: 1, kind: .seal, tags: [["p", "x"]], content: content).signed(with: alice)
        #expect(throws: GiftWrapError.malformedSeal("seal tags must be empty")) {
            try GiftWrap.unwrap(GiftWrap.wrap(seal: tagged, recipient: bob.publicKey, wrapTags: [], overrides: .init()), recipient: bob.secretKey)
        }
    }
}
