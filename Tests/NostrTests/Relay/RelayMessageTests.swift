import TestSupport
import Testing
@testable import Nostr

@Suite("NIP-01 relay wire messages")
struct RelayMessageTests {
    let keys = Keys.generate()

    func event(_ content: String = "hi") throws -> Event {
        try UnsignedEvent(pubkey: keys.publicKey, createdAt: 7, kind: .textNote, content: content).signed(with: keys)
    }

    @Test func clientMessagesRoundTrip() throws {
        let e = try event()
        let messages: [ClientMessage] = [
            .event(e),
            .req("sub1", [Filter(kinds: [.giftWrap], tags: ["p": [keys.publicKey.hex]]), Filter(authors: [keys.publicKey], limit: 10)]),
            .close("sub1"),
            .auth(e),
        ]
        for m in messages {
            #expect(try ClientMessage(json: m.jsonString) == m)
        }
        #expect(ClientMessage.close("s").jsonString == #"["CLOSE","s"]"#)
        #expect(ClientMessage.event(e).jsonString == "[\"EVENT\",\(e.jsonString)]")
        #expect(ClientMessage.req("s", [Filter(kinds: [1])]).jsonString == #"["REQ","s",{"kinds":[1]}]"#)
    }

    @Test func relayMessagesRoundTrip() throws {
        let e = try event()
        let messages: [RelayMessage] = [
            .event("sub", e),
            .ok(e.id, accepted: true, message: ""),
            .ok(e.id, accepted: false, message: RelayReason.invalid.message("bad signature")),
            .eose("sub"),
            .closed("sub", message: "auth-required: please"),
            .notice("hello \"world\"\n"),
            .auth(challenge: "challenge-123"),
        ]
        for m in messages {
            #expect(try RelayMessage(json: m.jsonString) == m)
        }
        #expect(RelayMessage.ok(e.id, accepted: false, message: "duplicate: x").jsonString == #"["OK","\#(e.id.hex)",false,"duplicate: x"]"#)
        #expect(RelayMessage.eose("s").jsonString == #"["EOSE","s"]"#)
        #expect(RelayReason.parse("rate-limited: slow down") == .rateLimited)
        #expect(RelayReason.parse("no prefix here") == nil)
    }

    @Test func lenientOptionalMessages() throws {
        let id = try event().id
        #expect(try RelayMessage(json: #"["OK","\#(id.hex)",true]"#) == .ok(id, accepted: true, message: ""))
        #expect(try RelayMessage(json: #"["CLOSED","s"]"#) == .closed("s", message: ""))
        #expect(try RelayMessage(json: " [ \"EOSE\" , \"s\" ] ") == .eose("s"))
    }

    @Test func eventVerificationPolicy() throws {
        let e = try event()
        let forged = e.jsonString.replacingOccurrences(of: "\"hi\"", with: "\"ho\"")
        // A relay parses structurally so it can answer OK false with the id.
        guard case .event(let parsed) = try ClientMessage(json: "[\"EVENT\",\(forged)]") else { Issue.record("not EVENT"); return }
        #expect(parsed.id == e.id)
        #expect(throws: EventError.invalidID) { try parsed.verify() }
        #expect(throws: RelayMessageError.invalidEvent(.invalidID)) { try ClientMessage(json: "[\"EVENT\",\(forged)]", verifyEvents: true) }
        // A client verifies by default.
        #expect(throws: RelayMessageError.invalidEvent(.invalidID)) { try RelayMessage(json: "[\"EVENT\",\"s\",\(forged)]") }
        #expect(throws: Never.self) { try RelayMessage(json: "[\"EVENT\",\"s\",\(forged)]", verifyEvents: false) }
    }

    @Test(arguments: [
        "", "{}", "[]", "[1]", "[\"EVENT\"]", "[\"EVENT\",{}]", "[\"REQ\",\"s\"]", "[\"REQ\",1,{}]", "[\"REQ\",\"s\",[]]",
        "[\"REQ\",\"\",{}]", "[\"REQ\",\"\(String(repeating: "x", count: 65))\",{}]", "[\"CLOSE\"]", "[\"CLOSE\",null]",
        "[\"AUTH\",\"challenge\"]", "[\"COUNT\",\"s\",{}]", "[\"EVENT\",{\"id\":1}]", "[\"REQ\",\"s\",{\"kinds\":[\"x\"]}]",
        "[\"CLOSE\",\"s\"", "[\"event\",{}]",
    ])
    func malformedClientMessages(_ text: String) {
        #expect(throws: RelayMessageError.self) { try ClientMessage(json: text) }
    }

    @Test(arguments: [
        "", "[]", "[\"OK\",\"ab\",true,\"\"]", "[\"OK\",\"\(String(repeating: "A", count: 64))\",true,\"\"]",
        "[\"OK\",\"\(String(repeating: "a", count: 64))\",\"true\",\"\"]", "[\"OK\",\"\(String(repeating: "a", count: 64))\",true,5]",
        "[\"EOSE\"]", "[\"EOSE\",5]", "[\"NOTICE\"]", "[\"NOTICE\",null]", "[\"AUTH\",{}]", "[\"EVENT\",\"s\"]",
        "[\"EVENT\",\"s\",\"{}\"]", "[\"CLOSED\",\"s\",false]", "[\"HELLO\"]", "[\"EVENT\",\"s\",{}]",
    ])
    func malformedRelayMessages(_ text: String) {
        #expect(throws: RelayMessageError.self) { try RelayMessage(json: text) }
    }

    @Test func unknownTypeIsReportedByName() {
        #expect(throws: RelayMessageError.unknownType("COUNT")) { try ClientMessage(json: #"["COUNT","s",{}]"#) }
    }
}

@Suite("NIP-42 authentication")
struct AuthenticationTests {
    @Test func authenticationEvent() throws {
        let keys = Keys.generate()
        let event = try UnsignedEvent.authentication(pubkey: keys.publicKey, relay: "wss://r", challenge: "c1", createdAt: 1000)
            .signed(with: keys)
        #expect(event.kind == .clientAuthentication)
        #expect(event.isAuthentication(challenge: "c1", relay: "wss://r", now: 1100))
        #expect(!event.isAuthentication(challenge: "c2", relay: "wss://r", now: 1100))
        #expect(!event.isAuthentication(challenge: "c1", relay: "wss://other", now: 1100))
        #expect(!event.isAuthentication(challenge: "c1", relay: "wss://r", now: 5000))
        #expect(try ClientMessage(json: ClientMessage.auth(event).jsonString) == .auth(event))
    }
}

@Suite("Wire robustness")
struct WireRobustnessTests {
    @Test func truncatedAndMutatedMessagesNeverCrash() throws {
        let keys = Keys.generate()
        let event = try UnsignedEvent(pubkey: keys.publicKey, createdAt: 1, kind: .textNote,
                                      tags: [["p", keys.publicKey.hex]], content: "é\n\"x\"").signed(with: keys)
        let samples = [
            ClientMessage.event(event).jsonString,
            ClientMessage.req("s", [Filter(authors: [keys.publicKey], tags: ["p": ["a"]], since: 1)]).jsonString,
            RelayMessage.event("s", event).jsonString,
            RelayMessage.ok(event.id, accepted: false, message: "invalid: x").jsonString,
        ]
        var rng = SplitMix(state: 42)
        var parsed = 0, rejected = 0
        for sample in samples {
            let bytes = Array(sample.utf8)
            // Every proper prefix is invalid JSON and must be rejected.
            for n in 0..<bytes.count {
                let text = String(decoding: bytes[..<n], as: UTF8.self)
                #expect(throws: RelayMessageError.self) { try ClientMessage(json: text) }
                #expect(throws: RelayMessageError.self) { try RelayMessage(json: text) }
            }
            // Random byte substitutions must throw or parse, never trap.
            for _ in 0..<300 {
                var mutated = bytes
                for _ in 0..<Int.random(in: 1...3, using: &rng) {
                    mutated[Int.random(in: 0..<mutated.count, using: &rng)] = UInt8.random(in: 0...127, using: &rng)
                }
                let text = String(decoding: mutated, as: UTF8.self)
                if (try? ClientMessage(json: text)) != nil { parsed += 1 } else { rejected += 1 }
                if (try? RelayMessage(json: text)) != nil { parsed += 1 } else { rejected += 1 }
            }
        }
        #expect(parsed + rejected == samples.count * 600)
        #expect(rejected > 0)
    }
}
