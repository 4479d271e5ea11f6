import Foundation
import MLS
import Nostr
import Testing
@testable import MarmotWire

@Suite struct WelcomeTests {
    let alice = Keys.generate()
    let bob = Keys.generate()
    let now: Int64 = 1_800_000_000
    let relays = [try! RelayURL("wss://relay.example.com")]
    let kpEventID = try! EventID(hex: "d9608b2ac0c30c3bb26b1feb9f51ceff1c5328c46af3960d3ebbb97a2b90b178")

    func sampleWelcome(ref: KeyPackageRef = KeyPackageRef(Data(repeating: 7, count: 32))) -> Welcome {
        Welcome(
            cipherSuite: .mls128X25519AES128GCMSHA256Ed25519,
            secrets: [EncryptedGroupSecrets(newMember: ref, encryptedGroupSecrets: HPKECiphertext(
                kemOutput: Data(repeating: 1, count: 32), ciphertext: Data(repeating: 2, count: 50)))],
            encryptedGroupInfo: Data(repeating: 3, count: 100))
    }

    @Test func rumorHasMDKShape() throws {
        let rumor = WelcomeRumor.make(welcome: sampleWelcome(), author: alice.publicKey, keyPackageEventID: kpEventID,
                                      relays: relays, client: "MDK/0.8.0", createdAt: now)
        #expect(rumor.kind == Kind(444))
        #expect(rumor.tags.map(\.fields) == [
            ["relays", "wss://relay.example.com"], ["e", kpEventID.hex], ["client", "MDK/0.8.0"], ["encoding", "base64"],
        ])
        let bytes = try #require(Base64.decode(rumor.content))
        #expect(Array(bytes.prefix(7)) == [0x00, 0x01, 0x00, 0x03, 0x00, 0x01, 0x40])
        #expect(Array(bytes[8...]).starts(with: [0x20] + [UInt8](repeating: 7, count: 32)))
        #expect(!rumor.jsonString.contains("\"sig\""))
    }

    @Test func giftWrapRoundTrip() throws {
        let made = try TestKeyPackages.make(identity: bob.publicKey, now: now)
        let kpEvent = try TestKeyPackages.event(made.keyPackage, keys: bob, now: now)
        let invitee = try PeerKeyPackage(event: kpEvent, now: now)
        let welcome = sampleWelcome(ref: invitee.ref)
        let (rumor, wrap) = try WelcomeRumor.wrap(welcome: welcome, author: alice, invitee: invitee, relays: relays, createdAt: now)
        #expect(wrap.kind == .giftWrap && wrap.tags == [Tag(["p", bob.publicKey.hex])] && wrap.pubkey != alice.publicKey)

        let incoming = try IncomingWelcome(giftWrap: wrap, recipient: bob.secretKey)
        #expect(incoming.wrapID == wrap.id)
        #expect(incoming.rumor == rumor && incoming.rumorID == rumor.id)
        #expect(incoming.sender == alice.publicKey)
        #expect(incoming.welcome == welcome)
        #expect(incoming.relays == relays)
        #expect(incoming.keyPackageEventID == kpEvent.id)
        #expect(incoming.client == KeyPackageEvent.defaultClient)
        #expect(incoming.isAddressed(to: invitee.ref))
        #expect(!incoming.isAddressed(to: KeyPackageRef(Data(count: 32))))

        #expect {
            try IncomingWelcome(giftWrap: wrap, recipient: Keys.generate().secretKey)
        } throws: { error in
            if case WelcomeRumorError.giftWrap = error { return true }
            return false
        }
    }

    /// A rumor with these tags and content, checked as if unwrapped from alice.
    func check(tags: [[String]], content: String? = nil, kind: Kind = .welcome) throws -> IncomingWelcome {
        let good = WelcomeRumor.make(welcome: sampleWelcome(), author: alice.publicKey, keyPackageEventID: kpEventID,
                                     relays: relays, createdAt: now)
        let rumor = UnsignedEvent(pubkey: alice.publicKey, createdAt: now, kind: kind, tags: tags.map { Tag($0) },
                                  content: content ?? good.content)
        return try IncomingWelcome(rumor: rumor, wrapID: kpEventID, sender: alice.publicKey)
    }

    @Test func acceptsTagVariantsMDKAccepts() throws {
        let relaysTag = ["relays", "wss://relay.example.com"]
        let eTag = ["e", kpEventID.hex], enc = ["encoding", "base64"]
        _ = try check(tags: [enc, eTag, relaysTag])
        let noClient = try check(tags: [relaysTag, eTag, enc])
        #expect(noClient.client == nil)
        let notAnID = try check(tags: [["relays"], relaysTag, ["e", ""], ["e", "not-an-id"], enc])
        #expect(notAnID.keyPackageEventReference == "not-an-id" && notAnID.keyPackageEventID == nil)
    }

    @Test func rejectsEachRule() throws {
        let relaysTag = ["relays", "wss://relay.example.com"]
        let eTag = ["e", kpEventID.hex], enc = ["encoding", "base64"]
        let cases: [([[String]], String?, Kind, WelcomeRumorError)] = [
            ([relaysTag, eTag, enc], nil, Kind(443), .wrongKind(Kind(443))),
            ([relaysTag, eTag], nil, .welcome, .tooFewTags(2)),
            ([["relays"], eTag, enc], nil, .welcome, .missingRelays),
            ([["x"], eTag, enc], nil, .welcome, .missingRelays),
            ([["relays", "wss://ok.example", "http://bad.example"], eTag, enc], nil, .welcome, .invalidRelay("http://bad.example")),
            ([relaysTag, ["e", ""], enc], nil, .welcome, .missingKeyPackageEventReference),
            ([relaysTag, ["e"], enc], nil, .welcome, .missingKeyPackageEventReference),
            ([relaysTag, eTag, ["client", ""], enc], nil, .welcome, .emptyClient),
            ([relaysTag, eTag, ["client"], enc], nil, .welcome, .emptyClient),
            ([relaysTag, eTag, ["encoding", "hex"]], nil, .welcome, .unsupportedEncoding("hex")),
            ([relaysTag, eTag, ["encoding", "BASE64"]], nil, .welcome, .unsupportedEncoding("BASE64")),
            ([relaysTag, eTag, enc, ["encoding"]], nil, .welcome, .unsupportedEncoding("")),
            ([relaysTag, eTag, ["client", "x"]], nil, .welcome, .missingEncoding),
            ([relaysTag, eTag, enc], "AAEAAw", .welcome, .invalidContent("not standard padded base64")),
        ]
        for (tags, content, kind, expected) in cases {
            #expect(throws: expected) { try check(tags: tags, content: content, kind: kind) }
        }
        let keyPackageMessage = Base64.encode(MLSMessage(.keyPackage(
            try TestKeyPackages.make(identity: bob.publicKey, now: now).keyPackage)).tlsSerialized)
        #expect(throws: WelcomeRumorError.notAWelcome(.keyPackage)) { try check(tags: [relaysTag, eTag, enc], content: keyPackageMessage) }
        var otherSuite = sampleWelcome()
        otherSuite.cipherSuite = CipherSuite(rawValue: 3)
        #expect(throws: WelcomeRumorError.unsupportedCipherSuite(3)) {
            try check(tags: [relaysTag, eTag, enc], content: Base64.encode(MLSMessage(.welcome(otherSuite)).tlsSerialized))
        }
        #expect {
            try check(tags: [relaysTag, eTag, enc], content: Base64.encode([0, 1, 0, 3, 0, 1]))
        } throws: { error in
            if case WelcomeRumorError.invalidContent = error { return true }
            return false
        }
        let rumor = WelcomeRumor.make(welcome: sampleWelcome(), author: alice.publicKey, keyPackageEventID: kpEventID, relays: relays)
        #expect(throws: WelcomeRumorError.authorMismatch(rumor: alice.publicKey, seal: bob.publicKey)) {
            try IncomingWelcome(rumor: rumor, wrapID: kpEventID, sender: bob.publicKey)
        }
    }
}
