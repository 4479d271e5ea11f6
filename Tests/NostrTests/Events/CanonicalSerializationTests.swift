import Crypto
import Foundation
import Testing
@testable import Nostr

@Suite("NIP-01 canonical serialization")
struct CanonicalSerializationTests {
    let pk = try! PublicKey(hex: "611df01bfcf85c26ae65453b772d8f1dfd25c264621c0277e1fc1518686faef9")

    func preimage(_ content: String, tags: [Tag] = [], kind: Kind = .textNote, at: Int64 = 1) -> String {
        String(decoding: UnsignedEvent(pubkey: pk, createdAt: at, kind: kind, tags: tags, content: content).canonicalSerialization(), as: UTF8.self)
    }

    @Test func layout() {
        #expect(preimage("hi", tags: [["e", "x", ""], ["p"]], kind: 30443, at: 1_700_000_000)
            == #"[0,"\#(pk.hex)",1700000000,30443,[["e","x",""],["p"]],"hi"]"#)
        #expect(preimage("") == #"[0,"\#(pk.hex)",1,1,[],""]"#)
    }

    @Test func escapesOnlyWhatNIP01Lists() {
        #expect(preimage("line\nquote\"back\\cr\rtab\tbs\u{8}ff\u{c}")
            == #"[0,"\#(pk.hex)",1,1,[],"line\nquote\"back\\cr\rtab\tbs\bff\f"]"#)
        #expect(preimage("\u{0}\u{1}\u{b}\u{1f}") == #"[0,"\#(pk.hex)",1,1,[],"\u0000\u0001\u000b\u001f"]"#)
        // Slash, DEL, non-ASCII, emoji, U+2028 and combining marks stay verbatim.
        let verbatim = "a/b\u{7f}é😀\u{2028}e\u{301}"
        #expect(preimage(verbatim) == "[0,\"\(pk.hex)\",1,1,[],\"\(verbatim)\"]")
        // Escaping applies inside tags too.
        #expect(preimage("", tags: [["t", "a\"b\n"]]) == #"[0,"\#(pk.hex)",1,1,[["t","a\"b\n"]],""]"#)
    }

    @Test func idIsSha256OfPreimage() {
        let e = UnsignedEvent(pubkey: pk, createdAt: 5, kind: .textNote, content: "x")
        #expect(e.id.bytes == Array(SHA256.hash(data: e.canonicalSerialization())))
    }

    @Test func canonicallyEquivalentStringsKeepTheirBytes() {
        // "é" precomposed and decomposed compare equal as Swift Strings but must hash differently.
        let a = UnsignedEvent(pubkey: pk, createdAt: 1, kind: .textNote, content: "\u{e9}")
        let b = UnsignedEvent(pubkey: pk, createdAt: 1, kind: .textNote, content: "e\u{301}")
        #expect(a.id != b.id)
    }

    @Test func parsedEscapesRoundTripToTheSameID() throws {
        // A relay may send "\/" or "\u00e9"; the id uses the decoded string, re-escaped per NIP-01.
        let keys = Keys.generate()
        let event = try UnsignedEvent(pubkey: keys.publicKey, createdAt: 9, kind: .textNote, content: "a/é\u{1}").signed(with: keys)
        let json = #"{"id":"\#(event.id.hex)","pubkey":"\#(keys.publicKey.hex)","created_at":9,"kind":1,"tags":[],"content":"a\/\u00e9\u0001","sig":"\#(event.sig.hex)"}"#
        #expect(try Event(json: json) == event)
    }
}
