import Foundation
import MLS
import Nostr
import Testing
@testable import MarmotWire

/// Golden structure and rejection tests of the v2 kind-30443 event, against what MDK v0.9.14
/// crates/transport-nostr-adapter/src/key_package.rs writes and crates/marmot-app/src/key_package_records.rs
/// (`key_package_from_record`) requires.
@Suite struct V2KeyPackageEventTests {
    let keys = Keys.generate()
    let now: Int64 = 1_800_000_000

    func make(_ keys: Keys? = nil, lifetime: Lifetime? = nil) throws -> KeyPackage {
        try V2KeyPackage.create(
            keys: keys ?? self.keys, proofCreatedAt: UInt64(now),
            lifetime: lifetime ?? .keyPackageDefault(now: UInt64(now))).keyPackage
    }

    func resign(_ event: Event, keys: Keys? = nil, tags: [Tag]? = nil, content: String? = nil, kind: Kind? = nil) throws -> Event {
        let keys = keys ?? self.keys
        return try UnsignedEvent(
            pubkey: keys.publicKey, createdAt: event.createdAt, kind: kind ?? event.kind, tags: tags ?? event.tags,
            content: content ?? event.content
        ).signed(with: keys)
    }

    @Test func goldenStructure() throws {
        let kp = try make()
        let slot = KeyPackageDTag.random()
        let event = try V2KeyPackageEvent.build(keyPackage: kp, keys: keys, slot: slot, createdAt: now)
        let ref = CipherSuiteProvider.mls128X25519.keyPackageRef(encodedKeyPackage: kp.tlsSerialized)
        #expect(event.kind == Kind(30443))
        #expect(event.tags.map(\.fields) == [
            ["d", slot.value], ["mls_protocol_version", "1.0"], ["i", Hex.encode(ref.bytes)], ["mls_ciphersuite", "0x0001"],
            ["mls_extensions", "0x0006", "0xf2d1"], ["mls_proposals", "0x0008", "0x000a"],
            ["app_components", "0x8001", "0x8002", "0x8003", "0x8004", "0x8005", "0x8006", "0x8007", "0x8009", "0x800b", "0x800c"],
        ])
        #expect(slot.value.utf8.count == 64 && slot.value == slot.value.lowercased())
        // Content: base64 of an MLSMessage (version 0x0001, wire format 0x0005 mls_key_package), not a bare KeyPackage.
        let raw = try #require(Base64.decode(event.content))
        #expect(Array(raw.prefix(4)) == [0x00, 0x01, 0x00, 0x05])
        #expect(Array(raw.dropFirst(4)) == Array(kp.tlsSerialized))
        // Last resort is component 0x0004 in the KeyPackage dictionary, not extension 0x000a.
        #expect(kp.extensions.map(\.type) == [.appDataDictionary])
        // Leaf dictionary: 0x0001, 0x0002 (empty list), 0x8009 (104 bytes).
        let leaf = try #require(try kp.leafNode.extensions.payload(AppDataDictionary.self))
        #expect(leaf.componentIDs == [0x0001, 0x0002, 0x8009])
        #expect(leaf[0x0002] == Data([0x00]) && leaf[0x8009]?.count == 104)
        let parsed = try V2KeyPackageEvent.parse(event, now: now)
        #expect(parsed.keyPackage == kp && parsed.ref == ref && parsed.slot == slot.value && parsed.isLastResort)
    }

    @Test func greaseProposalIsListedAndGreaseExtensionIsNot() throws {
        var caps = V2KeyPackage.capabilities
        caps.extensions.append(ExtensionType(rawValue: 0x0a0a))
        caps.proposals.append(ProposalType(rawValue: 0x1a1a))
        let kp = try V2KeyPackage.create(keys: keys, proofCreatedAt: UInt64(now), lifetime: .keyPackageDefault(now: UInt64(now)),
                                         capabilities: caps).keyPackage
        let event = try V2KeyPackageEvent.build(keyPackage: kp, keys: keys, createdAt: now)
        #expect(event.tags[4].fields == ["mls_extensions", "0x0006", "0xf2d1"])
        #expect(event.tags[5].fields == ["mls_proposals", "0x0008", "0x000a", "0x1a1a"])
        _ = try V2KeyPackageEvent.parse(event, now: now)
    }

    @Test func tagOrderIsNotRequiredOnReceiptAndClientIsTolerated() throws {
        let event = try V2KeyPackageEvent.build(keyPackage: try make(), keys: keys, createdAt: now)
        let shuffled = try resign(event, tags: event.tags.reversed() + [Tag(["client", "wn"])])
        _ = try V2KeyPackageEvent.parse(shuffled, now: now)
    }

    @Test func rejectsWrongKindAndV1Shape() throws {
        let event = try V2KeyPackageEvent.build(keyPackage: try make(), keys: keys, createdAt: now)
        #expect(throws: V2KeyPackageEventError.wrongKind(443)) { try V2KeyPackageEvent.parse(try resign(event, kind: Kind(443)), now: now) }
        // The bare KeyPackage (v1 content) is not an MLSMessage.
        let bare = try resign(event, content: Base64.encode(try make().tlsSerialized))
        #expect(throws: V2KeyPackageEventError.notKeyPackageMessage) { try V2KeyPackageEvent.parse(bare, now: now) }
    }

    @Test func acceptsExtraTagsAndRejectsMissingAndRepeatedOnes() throws {
        let event = try V2KeyPackageEvent.build(keyPackage: try make(), keys: keys, createdAt: now)
        // MDK 0.9.14 reads only the tags it checks (`key_package_from_record`, key_package_records.rs 248-334).
        for extra in [Tag(["relays", "wss://r.example"]), Tag(["encoding", "base64"]), Tag(["-"]), Tag(["client", "a"]), Tag(["client", "b"])] {
            _ = try V2KeyPackageEvent.parse(try resign(event, tags: event.tags + [extra]), now: now)
        }
        #expect(throws: V2KeyPackageEventError.missingTag("app_components")) {
            try V2KeyPackageEvent.parse(try resign(event, tags: Array(event.tags.dropLast())), now: now)
        }
        #expect(throws: V2KeyPackageEventError.duplicateTag("mls_proposals")) {
            try V2KeyPackageEvent.parse(try resign(event, tags: event.tags + [event.tags[5]]), now: now)
        }
    }

    @Test func rejectsListsThatDoNotExactlyMatch() throws {
        let event = try V2KeyPackageEvent.build(keyPackage: try make(), keys: keys, createdAt: now)
        let cases: [(Int, [String], String)] = [
            (4, ["mls_extensions", "0x0006"], "mls_extensions"),
            (5, ["mls_proposals", "0x0008", "0x000a", "0x000a"], "mls_proposals"),
            (6, ["app_components", "0x8001"], "app_components"),
            (6, event.tags[6].fields + ["0x0001"], "app_components"),
        ]
        for (index, fields, name) in cases {
            var tags = event.tags
            tags[index] = Tag(fields)
            #expect(throws: V2KeyPackageEventError.listMismatch(name)) { try V2KeyPackageEvent.parse(try resign(event, tags: tags), now: now) }
        }
        var tags = event.tags
        tags[3] = Tag(["mls_ciphersuite", "0x0002"])
        #expect(throws: V2KeyPackageEventError.invalidTag("mls_ciphersuite")) { try V2KeyPackageEvent.parse(try resign(event, tags: tags), now: now) }
        tags = event.tags
        tags[2] = Tag(["i", String(repeating: "0", count: 64)])
        #expect(throws: V2KeyPackageEventError.refMismatch) { try V2KeyPackageEvent.parse(try resign(event, tags: tags), now: now) }
    }

    /// Mallory republishes Alice's KeyPackage under her own key: author ≠ credential identity.
    @Test func rejectsAnotherAuthorRepublishingAKeyPackage() throws {
        let event = try V2KeyPackageEvent.build(keyPackage: try make(), keys: keys, createdAt: now)
        let mallory = Keys.generate()
        #expect(throws: V2KeyPackageEventError.authorMismatch) { try V2KeyPackageEvent.parse(try resign(event, keys: mallory), now: now) }
    }

    /// Mallory puts Alice's identity in a credential with her own leaf key and Alice's stolen proof.
    @Test func rejectsABadProof() throws {
        let alice = try make()
        let leaf = try #require(try alice.leafNode.extensions.payload(AppDataDictionary.self))
        let proof = try AccountIdentityProof(bytes: Array(try #require(leaf[0x8009])))
        let forged = try KeyPackage.create(
            identity: Data(keys.publicKey.bytes), capabilities: V2KeyPackage.capabilities,
            lifetime: .keyPackageDefault(now: UInt64(now)), keyPackageExtensions: [LastResortComponent.keyPackageExtension],
            leafExtensions: [proof.leafExtension(supported: V2KeyPackage.defaultSupportedComponents)]).keyPackage
        let genuine = try V2KeyPackageEvent.build(keyPackage: alice, keys: keys, createdAt: now)
        let tags = V2KeyPackageEvent.tags(keyPackage: forged, slot: try KeyPackageDTag(genuine.tags[0].value ?? ""))
        let event = try resign(genuine, tags: tags, content: Base64.encode(MLSMessage(.keyPackage(forged)).tlsSerialized))
        #expect(throws: V2KeyPackageEventError.proof(.badSignature)) { try V2KeyPackageEvent.parse(event, now: now) }
        #expect(throws: V2KeyPackageEventError.proof(.badSignature)) { try V2KeyPackageEvent.build(keyPackage: forged, keys: keys) }
    }

    @Test func rejectsALifetimeLongerThan84DaysPlusAnHour() throws {
        let long = Lifetime(notBefore: UInt64(now) - 3600, notAfter: UInt64(now) - 3600 + V2KeyPackageEvent.maxLifetimeSpan + 1)
        let event = try V2KeyPackageEvent.build(keyPackage: try make(lifetime: long), keys: keys, createdAt: now)
        #expect(throws: V2KeyPackageEventError.lifetimeTooLong) { try V2KeyPackageEvent.parse(event, now: now) }
        let exact = Lifetime(notBefore: UInt64(now) - 3600, notAfter: UInt64(now) - 3600 + V2KeyPackageEvent.maxLifetimeSpan)
        _ = try V2KeyPackageEvent.parse(try V2KeyPackageEvent.build(keyPackage: try make(lifetime: exact), keys: keys, createdAt: now), now: now)
    }
}
