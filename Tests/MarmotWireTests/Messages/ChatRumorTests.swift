import Foundation
import Nostr
import Testing
@testable import MarmotWire

@Suite struct ChatRumorTests {
    let sender = try! PublicKey(hex: MarmotVectors.adminHex)

    @Test func parsesMDKRumorAndReserializesIdentically() throws {
        let rumor = try ChatRumor(plaintext: Data(MarmotVectors.rumorJSON.utf8), sender: sender)
        #expect(rumor.id.hex == "c5d45a7a33d87b0a5ebe7a5561efe0f09ce9fdcb89dca52a947d41d88e1d649f")
        #expect(rumor.kind == .chatMessage)
        #expect(rumor.content == "hello marmot")
        #expect(rumor.tags == [Tag(["t", "x"])])
        #expect(rumor.createdAt == 1_795_315_453)
        #expect(String(decoding: rumor.plaintext, as: UTF8.self) == MarmotVectors.rumorJSON)
        MarmotVectors.report("§12.4 application rumor", ran: 1)
    }

    @Test func buildsAndRoundTrips() throws {
        let keys = Keys.generate()
        let rumor = try ChatRumor(author: keys.publicKey, content: "hi \"there\"\n✓", tags: [Tag(["e", String(repeating: "a", count: 64)])],
                                  createdAt: 1_800_000_000)
        let json = String(decoding: rumor.plaintext, as: UTF8.self)
        #expect(json.hasPrefix("{\"id\":\"\(rumor.id.hex)\",\"pubkey\":\"\(keys.publicKey.hex)\",\"created_at\":1800000000,\"kind\":9,\"tags\":"))
        #expect(!json.contains("sig"))
        let back = try ChatRumor(plaintext: rumor.plaintext, sender: keys.publicKey)
        #expect(back == rumor)
        let reaction = try ChatRumor(author: keys.publicKey, content: "+", kind: .reaction)
        #expect(try ChatRumor(plaintext: reaction.plaintext, sender: keys.publicKey).kind == .reaction)
    }

    @Test func acceptsMissingID() throws {
        let json = MarmotVectors.rumorJSON.replacingOccurrences(
            of: #""id":"c5d45a7a33d87b0a5ebe7a5561efe0f09ce9fdcb89dca52a947d41d88e1d649f","#, with: "")
        let rumor = try ChatRumor(plaintext: Data(json.utf8), sender: sender)
        #expect(rumor.id.hex == "c5d45a7a33d87b0a5ebe7a5561efe0f09ce9fdcb89dca52a947d41d88e1d649f")
    }

    @Test func rejectsAuthorMismatch() {
        let other = Keys.generate().publicKey
        #expect(throws: ChatRumorError.authorMismatch(rumor: sender, sender: other)) {
            try ChatRumor(plaintext: Data(MarmotVectors.rumorJSON.utf8), sender: other)
        }
    }

    @Test func rejectsWrongID() {
        let json = MarmotVectors.rumorJSON.replacingOccurrences(of: "hello marmot", with: "hello marmoT")
        #expect(throws: ChatRumorError.invalidID) { try ChatRumor(plaintext: Data(json.utf8), sender: sender) }
    }

    @Test func rejectsSignatureAndGroupTag() throws {
        let signed = MarmotVectors.rumorJSON.dropLast() + #","sig":"\#(String(repeating: "0", count: 128))"}"#
        #expect(throws: ChatRumorError.signed) { try ChatRumor(plaintext: Data(signed.utf8), sender: sender) }
        let keys = Keys.generate()
        let withH = UnsignedEvent(pubkey: keys.publicKey, kind: .chatMessage, tags: [Tag(["h", "00"])], content: "x")
        #expect(throws: ChatRumorError.groupTagInside) {
            try ChatRumor(plaintext: Data(withH.jsonString.utf8), sender: keys.publicKey)
        }
        #expect(throws: ChatRumorError.groupTagInside) {
            try ChatRumor(author: keys.publicKey, content: "x", tags: [Tag(["h", "00"])])
        }
    }

    @Test func rejectsMalformed() {
        for text in ["", "[]", "{}", "{\"pubkey\":1}", "not json", "{\"id\":\"zz\"}"] {
            #expect(throws: ChatRumorError.self) { try ChatRumor(plaintext: Data(text.utf8), sender: sender) }
        }
        #expect(throws: ChatRumorError.self) { try ChatRumor(plaintext: Data([0xff, 0xfe]), sender: sender) }
    }
}
