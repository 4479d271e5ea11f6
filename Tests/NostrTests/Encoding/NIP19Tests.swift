import Testing
@testable import Nostr

@Suite("NIP-19 and bech32")
struct NIP19Tests {
    let npub = "npub180cvv07tjdrrgpa0j7j7tmnyl2yr6yr7l8j4s3evf6u64th6gkwsyjh6w6"

    @Test func noteRoundTrip() throws {
        let id = try EventID(bytes: (0..<32).map { UInt8($0) })
        #expect(id.note.hasPrefix("note1"))
        #expect(try EventID(note: id.note) == id)
        #expect(try NIP19.decode(id.note) == .note(id))
    }

    @Test func uppercaseIsAcceptedButMixedCaseIsNot() throws {
        let pk = try PublicKey(npub: npub)
        #expect(try PublicKey(npub: npub.uppercased()) == pk)
        var mixed = npub
        mixed.replaceSubrange(mixed.startIndex...mixed.startIndex, with: "N")
        #expect(throws: Bech32Error.mixedCase) { try Bech32.decode(mixed) }
    }

    @Test func checksumErrorsAreDetected() {
        var chars = Array(npub)
        chars[10] = chars[10] == "q" ? "p" : "q"
        #expect(throws: Bech32Error.invalidChecksum) { try Bech32.decode(String(chars)) }
        #expect(throws: NIP19Error.bech32(.invalidChecksum)) { try NIP19.decode(String(chars)) }
    }

    @Test func malformedStrings() {
        #expect(throws: Bech32Error.missingSeparator) { try Bech32.decode("npubqqqqqq") }
        #expect(throws: Bech32Error.missingSeparator) { try Bech32.decode("1qqqqqqqq") }
        #expect(throws: Bech32Error.invalidCharacter("b")) { try Bech32.decode("npub1bqqqqqqq") }
        #expect(throws: Bech32Error.invalidCharacter("é")) { try Bech32.decode("npub1é") }
        #expect(throws: Bech32Error.tooLong(91)) { try Bech32.decode(String(repeating: "q", count: 91), maxLength: 90) }
    }

    @Test func bech32mChecksumIsRejected() {
        // A valid BIP-350 (bech32m) string must fail the BIP-173 checksum NIP-19 uses.
        #expect(throws: Bech32Error.invalidChecksum) { try Bech32.decode("a1lqfn3a") }
        // A valid BIP-173 string decodes.
        #expect(throws: Never.self) { try Bech32.decode("a12uel5l") }
    }

    @Test func wrongPrefixAndLength() throws {
        let pk = try PublicKey(npub: npub)
        #expect(throws: KeyError.nip19(.wrongPrefix(expected: "nsec", actual: "npub"))) { try SecretKey(nsec: npub) }
        let short = Bech32.encode(hrp: "npub", data: Array(pk.bytes.prefix(31)))
        #expect(throws: KeyError.nip19(.invalidLength(expected: 32, actual: 31))) { try PublicKey(npub: short) }
        #expect(throws: NIP19Error.unknownPrefix("nfoo")) { try NIP19.decode(Bech32.encode(hrp: "nfoo", data: pk.bytes)) }
    }

    @Test func neventAndNaddrRoundTrip() throws {
        let author = Keys.generate().publicKey
        let id = try EventID(bytes: [UInt8](repeating: 7, count: 32))
        let pointer = NIP19.EventPointer(id: id, relays: ["wss://relay.example"], author: author, kind: .textNote)
        #expect(try NIP19.decode(NIP19.encode(pointer)) == .nevent(pointer))
        let bare = NIP19.EventPointer(id: id)
        #expect(try NIP19.decode(NIP19.encode(bare)) == .nevent(bare))
        let addr = NIP19.AddressPointer(identifier: "chat ☕", author: author, kind: .addressableKeyPackage, relays: ["wss://a"])
        #expect(try NIP19.decode(NIP19.encode(addr)) == .naddr(addr))
    }

    @Test func malformedTLV() throws {
        let pk = Keys.generate().publicKey
        // Truncated value.
        let truncated = Bech32.encode(hrp: "nprofile", data: [0, 32] + Array(pk.bytes.prefix(10)))
        #expect(throws: NIP19Error.malformedTLV("value overruns data")) { try NIP19.decode(truncated) }
        // Only a relay, no pubkey.
        let noKey = Bech32.encode(hrp: "nprofile", data: [1, 3] + Array("wss".utf8))
        #expect(throws: NIP19Error.missingTLV(type: 0)) { try NIP19.decode(noKey) }
        // Unknown TLV types are ignored.
        let extra = Bech32.encode(hrp: "nprofile", data: [0, 32] + pk.bytes + [9, 2, 0xaa, 0xbb])
        #expect(try NIP19.decode(extra) == .nprofile(.init(publicKey: pk)))
        // Kind must be 4 bytes.
        let badKind = Bech32.encode(hrp: "nevent", data: [0, 32] + pk.bytes + [3, 2, 0, 1])
        #expect(throws: NIP19Error.malformedTLV("kind must be 4 bytes")) { try NIP19.decode(badKind) }
    }
}
