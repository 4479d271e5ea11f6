import Testing
@testable import Nostr

@Suite("NIP-01 filters")
struct FilterTests {
    let alice = Keys.generate()
    let bob = Keys.generate()

    func event(_ keys: Keys, kind: Kind = .textNote, at: Int64 = 100, tags: [Tag] = []) throws -> Event {
        try UnsignedEvent(pubkey: keys.publicKey, createdAt: at, kind: kind, tags: tags, content: "").signed(with: keys)
    }

    @Test func matching() throws {
        let e = try event(alice, kind: .groupMessage, at: 100, tags: [["h", "g1"], ["p", bob.publicKey.hex], ["t", "x", "y"]])
        #expect(Filter().matches(e))
        #expect(Filter(ids: [e.id]).matches(e))
        #expect(!Filter(ids: []).matches(e))
        #expect(Filter(authors: [bob.publicKey, alice.publicKey]).matches(e))
        #expect(!Filter(authors: [bob.publicKey]).matches(e))
        #expect(Filter(kinds: [.groupMessage]).matches(e))
        #expect(!Filter(kinds: [.textNote]).matches(e))
        #expect(Filter(since: 100, until: 100).matches(e))
        #expect(!Filter(since: 101).matches(e))
        #expect(!Filter(until: 99).matches(e))
        #expect(Filter(tags: ["h": ["g0", "g1"]]).matches(e))
        #expect(!Filter(tags: ["h": ["g0"]]).matches(e))
        #expect(Filter(tags: ["h": ["g1"], "p": [bob.publicKey.hex]]).matches(e))
        #expect(!Filter(tags: ["h": ["g1"], "e": ["zz"]]).matches(e))
        // Only the first value after the name counts.
        #expect(!Filter(tags: ["t": ["y"]]).matches(e))
        // Tag names are case-sensitive.
        #expect(!Filter(tags: ["H": ["g1"]]).matches(e))
        // limit does not affect matching.
        #expect(Filter(kinds: [.groupMessage], limit: 0).matches(e))
        #expect(!Filter(kinds: [.groupMessage], limit: 0).canMatch)
        #expect(!Filter(since: 5, until: 4).canMatch)
    }

    @Test func jsonRoundTrip() throws {
        let f = Filter(ids: [try EventID(bytes: [UInt8](repeating: 1, count: 32))], authors: [alice.publicKey],
                       kinds: [.giftWrap, .welcome], tags: ["p": [bob.publicKey.hex], "A": ["x"]],
                       since: 10, until: 20, limit: 5, search: "q")
        let json = f.jsonString
        #expect(json == ##"{"ids":["\##(f.ids![0].hex)"],"authors":["\##(alice.publicKey.hex)"],"kinds":[1059,444],"#A":["x"],"#p":["\##(bob.publicKey.hex)"],"since":10,"until":20,"limit":5,"search":"q"}"##)
        #expect(try Filter(json: json) == f)
        #expect(try Filter(json: "{}") == Filter())
    }

    @Test func unknownMembersAreIgnoredButBadValuesRejected() throws {
        #expect(try Filter(json: ##"{"kinds":[1],"foo":3,"#ab":["x"],"#1":["y"]}"##) == Filter(kinds: [.textNote]))
        let bad = [
            #"{"ids":["ABCD"]}"#, #"{"ids":"x"}"#, #"{"authors":["\#(alice.publicKey.hex.uppercased())"]}"#,
            #"{"kinds":[70000]}"#, #"{"kinds":["1"]}"#, #"{"since":"1"}"#, #"{"limit":-1}"#, ##"{"#e":[1]}"##,
            ##"{"#e":"x"}"##, "[]", "{", #"{"until":1.5}"#,
        ]
        for text in bad {
            #expect(throws: RelayMessageError.self, "\(text)") { try Filter(json: text) }
        }
    }
}
