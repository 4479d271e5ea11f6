import Foundation
import Testing
@testable import Nostr

@Suite("NIP-01 events")
struct EventTests {
    let keys = Keys.generate()

    func sample(_ content: String = "hello 🌍\n\"quoted\"", tags: [Tag] = [["p", "abc"], ["e", "def", "wss://r"]]) throws -> Event {
        try UnsignedEvent(pubkey: keys.publicKey, createdAt: 1_700_000_000, kind: .textNote, tags: tags, content: content).signed(with: keys)
    }

    /// Replaces one member of an event's JSON text.
    func replacing(_ event: Event, _ key: String, with raw: String) throws -> String {
        guard case .object(var o) = try JSONValue.parse(event.jsonString) else { throw EventError.malformed("not an object") }
        o[key] = try JSONValue.parse(raw)
        return JSONValue.object(o).jsonString
    }

    @Test func signVerifyAndJSONRoundTrip() throws {
        let e = try sample()
        try e.verify()
        #expect(e.isValid)
        #expect(try Event(json: e.jsonString) == e)
        #expect(try Event(jsonData: e.jsonBytes) == e)
        #expect(e.jsonString.hasPrefix(#"{"id":"\#(e.id.hex)","pubkey":"#))
        // Codable round trip.
        let data = try JSONEncoder().encode(e)
        #expect(try JSONDecoder().decode(Event.self, from: data) == e)
    }

    @Test func signingWithOtherKeysIsRefused() {
        let draft = UnsignedEvent(pubkey: keys.publicKey, kind: .textNote, content: "x")
        #expect(throws: EventError.self) { try draft.signed(with: Keys.generate()) }
    }

    @Test func tamperedContentIsInvalidID() throws {
        let e = try sample()
        let json = try replacing(e, "content", with: "\"changed\"")
        #expect(throws: EventError.invalidID) { try Event(json: json) }
        // Without verification it parses, and verify() then reports the problem.
        #expect(throws: EventError.invalidID) { try Event(json: json, verify: false).verify() }
    }

    @Test func badSignatureIsRejected() throws {
        let e = try sample()
        var sig = e.sig.bytes
        sig[63] ^= 1
        #expect(throws: EventError.invalidSignature) { try Event(json: replacing(e, "sig", with: "\"\(Hex.encode(sig))\"")) }
        // A valid signature by another key over the same id.
        let other = Schnorr.sign(message: e.id.bytes, secretKey: SecretKey.generate())
        #expect(throws: EventError.invalidSignature) { try Event(json: replacing(e, "sig", with: "\"\(other.hex)\"")) }
    }

    @Test func uppercaseHexIsRejected() throws {
        let e = try sample()
        for (key, value) in [("id", e.id.hex), ("pubkey", e.pubkey.hex), ("sig", e.sig.hex)] {
            let json = try replacing(e, key, with: "\"\(value.uppercased())\"")
            #expect(throws: EventError.self) { try Event(json: json, verify: false) }
        }
    }

    @Test func wrongLengthsAreMalformed() throws {
        let e = try sample()
        let cases = [("id", String(e.id.hex.dropLast(2))), ("id", e.id.hex + "00"),
                     ("pubkey", String(e.pubkey.hex.dropLast(2))), ("sig", String(e.sig.hex.dropLast(2))),
                     ("sig", e.sig.hex + "00")]
        for (key, value) in cases {
            let json = try replacing(e, key, with: "\"\(value)\"")
            #expect(throws: EventError.self, "\(key)") { try Event(json: json, verify: false) }
        }
    }

    @Test func wrongTypesAndMissingFields() throws {
        let e = try sample()
        let bad: [(String, String)] = [
            ("created_at", "\"1\""), ("created_at", "1.5"), ("created_at", "-1"), ("created_at", "1e9"),
            ("kind", "65536"), ("kind", "-1"), ("kind", "\"1\""), ("tags", "{}"), ("tags", "[\"p\"]"),
            ("tags", "[[1]]"), ("content", "null"), ("content", "1"), ("id", "1"), ("pubkey", "null"),
        ]
        for (key, raw) in bad {
            let json = try replacing(e, key, with: raw)
            #expect(throws: EventError.self, "\(key)=\(raw)") { try Event(json: json, verify: false) }
        }
        for key in ["id", "pubkey", "created_at", "kind", "tags", "content", "sig"] {
            guard case .object(var o) = try JSONValue.parse(e.jsonString) else { return }
            o[key] = nil
            #expect(throws: EventError.malformed("missing \(key)")) { try Event(json: JSONValue.object(o).jsonString) }
        }
    }

    @Test(arguments: ["", "[]", "null", "{", "{\"id\":}", "not json", "{\"id\":\"a\",\"id\":\"b\"}"])
    func malformedJSON(_ text: String) {
        #expect(throws: EventError.self) { try Event(json: text) }
    }

    @Test func unknownFieldsAreIgnored() throws {
        let e = try sample()
        #expect(try Event(json: replacing(e, "extra", with: "[1,{\"x\":null}]")) == e)
    }

    @Test func rumorJSONCarriesIDWithoutSig() throws {
        let rumor = UnsignedEvent(pubkey: keys.publicKey, createdAt: 42, kind: .chatMessage, tags: [["h", "group"]], content: "hi")
        let json = rumor.jsonString
        #expect(json.contains("\"id\":\"\(rumor.id.hex)\""))
        #expect(!json.contains("\"sig\""))
        #expect(try UnsignedEvent(json: json) == rumor)
        let tampered = json.replacingOccurrences(of: "\"hi\"", with: "\"ho\"")
        #expect(throws: EventError.invalidID) { try UnsignedEvent(json: tampered) }
        // A rumor without id is accepted (the id is derived).
        let noID = json.replacingOccurrences(of: "\"id\":\"\(rumor.id.hex)\",", with: "")
        #expect(try UnsignedEvent(json: noID).id == rumor.id)
    }

    /// A rumor read for an expected author takes that key when the text names it, and otherwise
    /// parses and checks its `pubkey` as any rumor: another member's key comes back as that key, a
    /// value off the curve is malformed.
    @Test func rumorReadForAnExpectedAuthor() throws {
        let rumor = UnsignedEvent(pubkey: keys.publicKey, createdAt: 42, kind: .chatMessage, tags: [], content: "hi")
        let value = try JSONValue.parse(rumor.jsonString)
        #expect(try UnsignedEvent(jsonValue: value, expectedAuthor: keys.publicKey) == rumor)
        let other = Keys.generate().publicKey
        #expect(try UnsignedEvent(jsonValue: value, expectedAuthor: other).pubkey == keys.publicKey)
        let offCurve = String(repeating: "f", count: 64)
        let noID = rumor.jsonString
            .replacingOccurrences(of: "\"id\":\"\(rumor.id.hex)\",", with: "")
            .replacingOccurrences(of: keys.publicKey.hex, with: offCurve)
        #expect(throws: EventError.self) { try UnsignedEvent(jsonValue: try JSONValue.parse(noID), expectedAuthor: other) }
        #expect(throws: EventError.self) { try UnsignedEvent(jsonValue: try JSONValue.parse(noID), expectedAuthor: keys.publicKey) }
    }

    @Test func kindsAndTags() throws {
        #expect(Kind.giftWrap.rawValue == 1059 && Kind.seal.rawValue == 13 && Kind.keyPackage.rawValue == 443)
        #expect(Kind.welcome.rawValue == 444 && Kind.groupMessage.rawValue == 445 && Kind.keyPackageRelays.rawValue == 10051)
        #expect(Kind.metadata.isReplaceable && Kind.relayList.isReplaceable && !Kind.textNote.isReplaceable)
        #expect(Kind(20001).isEphemeral && !Kind(19999).isEphemeral)
        #expect(Kind.addressableKeyPackage.isAddressable && !Kind(40000).isAddressable)
        #expect(Kind.textNote.isRegular && Kind.groupMessage.isRegular && !Kind.metadata.isRegular)
        let e = try sample(tags: [["p", "a"], ["e", "x"], ["p", "b", "relay"], ["p"], []])
        #expect(e.firstTagValue("p") == "a")
        #expect(e.tagValues("p") == ["a", "b"])
        #expect(e.tags.tags(named: "p").count == 3)
        #expect(e.firstTagValue("q") == nil)
        #expect(e.identifier == "")
        #expect(Tag.pubkey(keys.publicKey, relay: "wss://r").fields == ["p", keys.publicKey.hex, "wss://r"])
    }
}
