import Foundation
import MLS
import Nostr
import Testing
@testable import MarmotWire

@Suite struct KeyPackageVectorTests {
    /// The §12.1 event as an unsigned rumor (the vector has no signature).
    func vectorEvent(tags: [[String]] = MarmotVectors.keyPackageTags, content: String = MarmotVectors.keyPackageContent,
                     kind: Kind = .addressableKeyPackage) throws -> UnsignedEvent {
        UnsignedEvent(pubkey: try PublicKey(hex: MarmotVectors.keyPackagePubkeyHex), createdAt: 1_795_315_453,
                      kind: kind, tags: tags.map { Tag($0) }, content: content)
    }

    let now: Int64 = 1_795_315_453

    @Test func acceptsMDKKeyPackageEvent() throws {
        let peer = try PeerKeyPackage(unsignedEvent: try vectorEvent(), now: now)
        #expect(peer.encodedKeyPackage.count == 317)
        #expect(peer.encodedKeyPackage.prefix(5).testHex == "0001000120")
        #expect(Hex.encode(peer.ref.bytes) == "54923be37b66d773933f22ad0b76f870c99d933c5cb81eba552530daa64265c7")
        #expect(peer.dTag?.value == "880a03451c87e53306a37d524559f3ae2c3c6d8494043da83d2b7dcae3e7fc40")
        #expect(peer.relays.map(\.string) == ["wss://relay.example.com", "wss://relay2.example.com/"])
        #expect(peer.author.hex == MarmotVectors.keyPackagePubkeyHex)
        #expect(peer.supportsSelfRemove)
        let caps = peer.keyPackage.leafNode.capabilities
        #expect(caps.cipherSuites.map(\.rawValue) == [0x0001, 0xcaca])
        #expect(caps.extensions.map(\.rawValue) == [0x000a, 0xf2ee, 0xaaaa])
        #expect(caps.proposals.map(\.rawValue) == [0x000a, 0x9a9a])
        #expect(caps.credentials.map(\.rawValue) == [0x0001, 0x3a3a])
        #expect(peer.keyPackage.leafNode.source == .keyPackage(lifetime: Lifetime(
            notBefore: MarmotVectors.keyPackageNotBefore, notAfter: MarmotVectors.keyPackageNotAfter)))
        #expect(peer.keyPackage.extensions == [Extension(type: .lastResort, data: Data())])
        #expect(peer.keyPackage.tlsSerialized == peer.encodedKeyPackage)
        MarmotVectors.report("§12.1 KeyPackage event", ran: 1)
    }

    @Test func acceptsLegacyKindWithoutDTag() throws {
        let tags = MarmotVectors.keyPackageTags.filter { $0[0] != "d" }
        let peer = try PeerKeyPackage(unsignedEvent: try vectorEvent(tags: tags, kind: .keyPackage), now: now)
        #expect(peer.dTag == nil && peer.kind == .keyPackage)
        let minimal = tags.filter { $0[0] != "i" && $0[0] != "mls_proposals" && $0[0] != "client" }
        _ = try PeerKeyPackage(unsignedEvent: try vectorEvent(tags: minimal, kind: .keyPackage), now: now)
    }

    @Test func rejectsOutsideLifetime() throws {
        for time in [Int64(MarmotVectors.keyPackageNotBefore), Int64(MarmotVectors.keyPackageNotAfter)] {
            #expect(throws: KeyPackageEventError.invalidKeyPackage(.lifetimeNotValid(
                notBefore: MarmotVectors.keyPackageNotBefore, notAfter: MarmotVectors.keyPackageNotAfter, now: time))) {
                try PeerKeyPackage(unsignedEvent: try vectorEvent(), now: time)
            }
        }
    }

    /// Each §2.5 tag rule, applied to the MDK event.
    @Test func rejectsEachTagRule() throws {
        func replacing(_ name: String, with fields: [String]?) -> [[String]] {
            MarmotVectors.keyPackageTags.compactMap { $0[0] == name ? fields : $0 }
        }
        let cases: [([[String]], Kind, KeyPackageEventError)] = [
            (MarmotVectors.keyPackageTags, Kind(1), .wrongKind(Kind(1))),
            (replacing("d", with: nil), .addressableKeyPackage, .missingTag("d")),
            (replacing("d", with: ["d", "abc"]), .addressableKeyPackage, .invalidDTag("abc")),
            (replacing("d", with: ["d", String(repeating: "z", count: 64)]), .addressableKeyPackage, .invalidDTag(String(repeating: "z", count: 64))),
            (replacing("d", with: ["d"]), .addressableKeyPackage, .invalidDTag("")),
            (replacing("mls_protocol_version", with: nil), .addressableKeyPackage, .missingTag("mls_protocol_version")),
            (replacing("mls_protocol_version", with: ["mls_protocol_version", "1"]), .addressableKeyPackage, .unsupportedProtocolVersion("1")),
            (replacing("mls_ciphersuite", with: nil), .addressableKeyPackage, .missingTag("mls_ciphersuite")),
            (replacing("mls_ciphersuite", with: ["mls_ciphersuite", "1"]), .addressableKeyPackage, .malformedCipherSuite("1")),
            (replacing("mls_ciphersuite", with: ["mls_ciphersuite", "0X0001"]), .addressableKeyPackage, .malformedCipherSuite("0X0001")),
            (replacing("mls_ciphersuite", with: ["mls_ciphersuite", "0x0002"]), .addressableKeyPackage, .unsupportedCipherSuite("0x0002")),
            (replacing("mls_extensions", with: nil), .addressableKeyPackage, .missingTag("mls_extensions")),
            (replacing("mls_extensions", with: ["mls_extensions"]), .addressableKeyPackage, .malformedExtensions("")),
            (replacing("mls_extensions", with: ["mls_extensions", "0x000a", "f2ee"]), .addressableKeyPackage, .malformedExtensions("f2ee")),
            (replacing("mls_extensions", with: ["mls_extensions", "0x000a"]), .addressableKeyPackage, .missingRequiredExtension(.marmotGroupData)),
            (replacing("mls_extensions", with: ["mls_extensions", "0xF2EE", "0x0003"]), .addressableKeyPackage, .missingRequiredExtension(.lastResort)),
            (replacing("mls_proposals", with: nil), .addressableKeyPackage, .missingTag("mls_proposals")),
            (replacing("mls_proposals", with: ["mls_proposals", "0x000A"]), .addressableKeyPackage, .invalidProposals(["0x000A"])),
            (replacing("mls_proposals", with: ["mls_proposals", "0x000a", "0x0008"]), .addressableKeyPackage, .invalidProposals(["0x000a", "0x0008"])),
            (replacing("relays", with: nil), .addressableKeyPackage, .missingTag("relays")),
            (replacing("relays", with: ["relays"]), .addressableKeyPackage, .invalidRelays("no relay URL")),
            (replacing("relays", with: ["relays", "wss://ok.example", "https://no.example"]), .addressableKeyPackage,
             .invalidRelays(RelayURLError.unsupportedScheme("https://no.example").description)),
            (replacing("i", with: nil), .addressableKeyPackage, .missingTag("i")),
            (replacing("i", with: ["i"]), .addressableKeyPackage, .invalidRefTag([])),
            (replacing("i", with: ["i", ""]), .addressableKeyPackage, .invalidRefTag([""])),
            (replacing("i", with: ["i", "xyz"]), .addressableKeyPackage, .invalidRefTag(["xyz"])),
            (replacing("i", with: ["i", "00", "11"]), .addressableKeyPackage, .invalidRefTag(["00", "11"])),
            (replacing("i", with: ["i", "00"]), .addressableKeyPackage,
             .refMismatch(tag: "00", computed: "54923be37b66d773933f22ad0b76f870c99d933c5cb81eba552530daa64265c7")),
            (replacing("encoding", with: nil), .addressableKeyPackage, .missingEncoding),
            (replacing("encoding", with: ["encoding", "hex"]), .addressableKeyPackage, .missingEncoding),
        ]
        for (tags, kind, expected) in cases {
            #expect(throws: expected) { try PeerKeyPackage(unsignedEvent: try vectorEvent(tags: tags, kind: kind), now: now) }
        }
        // Upper-case i hex and BASE64 are accepted, as MDK decodes them case-insensitively.
        let relaxed = replacing("i", with: ["i", "54923BE37B66D773933F22AD0B76F870C99D933C5CB81EBA552530DAA64265C7"])
            .map { $0[0] == "encoding" ? ["encoding", "BASE64"] : $0 }
        _ = try PeerKeyPackage(unsignedEvent: try vectorEvent(tags: relaxed), now: now)
        MarmotVectors.report("§12.1 KeyPackage event rejection variants", ran: cases.count + 1)
    }

    @Test func rejectsIdentityMismatchAndBadContent() throws {
        let stranger = Keys.generate().publicKey
        let event = UnsignedEvent(pubkey: stranger, createdAt: now, kind: .addressableKeyPackage,
                                  tags: MarmotVectors.keyPackageTags.map { Tag($0) }, content: MarmotVectors.keyPackageContent)
        #expect(throws: KeyPackageEventError.identityMismatch(credential: MarmotVectors.keyPackagePubkeyHex, author: stranger)) {
            try PeerKeyPackage(unsignedEvent: event, now: now)
        }
        #expect(throws: KeyPackageEventError.invalidContent("not standard padded base64")) {
            try PeerKeyPackage(unsignedEvent: try vectorEvent(content: String(MarmotVectors.keyPackageContent.dropLast())), now: now)
        }
        let hexContent = Hex.encode(Base64.decode(MarmotVectors.keyPackageContent)!)
        #expect(throws: KeyPackageEventError.self) { try PeerKeyPackage(unsignedEvent: try vectorEvent(content: hexContent), now: now) }
        let truncated = Base64.encode(Base64.decode(MarmotVectors.keyPackageContent)!.dropLast())
        #expect {
            try PeerKeyPackage(unsignedEvent: try vectorEvent(content: truncated), now: now)
        } throws: { error in
            if case KeyPackageEventError.invalidContent = error { return true }
            return false
        }
        var flipped = Base64.decode(MarmotVectors.keyPackageContent)!
        flipped[flipped.count - 1] ^= 1
        #expect(throws: KeyPackageEventError.invalidKeyPackage(.invalidSignature)) {
            try PeerKeyPackage(unsignedEvent: try vectorEvent(content: Base64.encode(flipped)), now: now)
        }
    }
}
