import Foundation
import MLS
import Nostr
import Testing
@testable import MarmotWire

/// v2 Welcome rumor, against MDK v0.9.14 crates/transport-nostr-peeler/src/peeler.rs (`peel_welcome`,
/// `validate_welcome_relays`).
@Suite struct V2WelcomeRumorTests {
    let sender = Keys.generate()
    let kpEventID = try! EventID(hex: String(repeating: "ab", count: 32))
    var welcome: Welcome {
        Welcome(cipherSuite: .mls128X25519AES128GCMSHA256Ed25519, secrets: [], encryptedGroupInfo: Data([1, 2, 3]))
    }

    func rumor(tags: [Tag]) -> UnsignedEvent {
        UnsignedEvent(pubkey: sender.publicKey, createdAt: 1_800_000_000, kind: .welcome, tags: tags,
                      content: Base64.encode(MLSMessage(.welcome(welcome)).tlsSerialized))
    }

    @Test func goldenStructureAndRoundTrip() throws {
        let built = try V2WelcomeRumor.build(welcome: welcome, keyPackageEventID: kpEventID,
                                            relays: ["wss://a.example", "wss://b.example"], sender: sender.publicKey)
        #expect(built.kind == Kind(444))
        #expect(built.tags.map(\.fields) == [["e", kpEventID.hex], ["relays", "wss://a.example", "wss://b.example"]])
        let raw = try #require(Base64.decode(built.content))
        #expect(Array(raw.prefix(4)) == [0x00, 0x01, 0x00, 0x03])  // MLSMessage, wire format mls_welcome
        let parsed = try V2WelcomeRumor.parse(built)
        #expect(parsed.keyPackageEventID == kpEventID && parsed.relays.count == 2 && parsed.welcome == welcome)
    }

    @Test func rejectsWrongTagSets() throws {
        let e = Tag(["e", kpEventID.hex]), relays = Tag(["relays", "wss://a.example"])
        // Extra tags are ignored, as MDK 0.9.14's `peel_welcome` reads only `e` and `relays`.
        #expect(try V2WelcomeRumor.parse(rumor(tags: [e, relays, Tag(["client", "x"]), Tag(["-"])])).relays == ["wss://a.example"])
        #expect(throws: V2WelcomeError.duplicateTag("e")) { try V2WelcomeRumor.parse(rumor(tags: [e, e, relays])) }
        #expect(throws: V2WelcomeError.missingTag("relays")) { try V2WelcomeRumor.parse(rumor(tags: [e])) }
        #expect(throws: V2WelcomeError.invalidTag("relays")) { try V2WelcomeRumor.parse(rumor(tags: [e, Tag(["relays"])])) }
        #expect(throws: V2WelcomeError.invalidTag("relays")) { try V2WelcomeRumor.parse(rumor(tags: [e, Tag(["relays", "https://x.example"])])) }
        #expect(throws: V2WelcomeError.invalidTag("relays")) {
            try V2WelcomeRumor.parse(rumor(tags: [e, Tag(["relays"] + (0..<17).map { "wss://r\($0).example" })]))
        }
        #expect(throws: V2WelcomeError.invalidTag("e")) { try V2WelcomeRumor.parse(rumor(tags: [Tag(["e", "xyz"]), relays])) }
    }

    /// A non-admin member invites someone (GroupInfo signed by a non-admin): the joiner refuses.
    @Test func refusesNonAdminInviterAndUnsupportedRequiredComponent() throws {
        let admin = Keys.generate().publicKey, member = Keys.generate().publicKey
        let components = try GroupComponents(dictionary: V2GroupComponentsTests.dictionary(admins: [admin]))
        try V2WelcomeRumor.checkJoin(components: components, groupInfoSigner: admin)
        #expect(throws: V2WelcomeError.inviterNotAdmin) { try V2WelcomeRumor.checkJoin(components: components, groupInfoSigner: member) }
        let unknown = try GroupComponents(dictionary: V2GroupComponentsTests.dictionary(
            admins: [admin], required: [0x0001, 0x8003, 0x8004, 0x8009, 0xf123]))
        #expect(throws: V2WelcomeError.unsupportedRequiredComponents([0xf123])) {
            try V2WelcomeRumor.checkJoin(components: unknown, groupInfoSigner: admin)
        }
    }
}

/// Kind-445 tags, against MDK v0.9.14 crates/transport-nostr-peeler/src/event.rs `kind_445_transport_group_id`.
@Suite struct V2GroupEventTagsTests {
    let routing = try! NostrRouting(nostrGroupID: [UInt8](repeating: 0xaa, count: 32), relays: ["wss://a.example"])

    @Test func goldenTagsAndAcceptedShapes() throws {
        #expect(V2GroupEventTags.tags(routing: routing).map(\.fields) == [["h", String(repeating: "aa", count: 32)]])
        let withExpiration = V2GroupEventTags.tags(routing: routing, expiration: 1_700_000_060)
        #expect(withExpiration.map(\.fields) == [["h", String(repeating: "aa", count: 32)], ["expiration", "1700000060"]])
        #expect(try V2GroupEventTags.validate(withExpiration).expiration == 1_700_000_060)
        #expect(try V2GroupEventTags.validate(withExpiration.reversed()).nostrGroupID == routing.nostrGroupID)
        let keys = Keys.generate()
        let event = try UnsignedEvent(pubkey: keys.publicKey, kind: .groupMessage, tags: withExpiration, content: "x").signed(with: keys)
        #expect(try V2GroupEventTags.validate(event, routing: routing) == 1_700_000_060)
    }

    @Test func rejectsAnythingElse() throws {
        let h = Tag(["h", String(repeating: "aa", count: 32)])
        #expect(throws: V2GroupEventTagsError.unexpectedTag("e")) { try V2GroupEventTags.validate([h, Tag(["e", String(repeating: "11", count: 32)])]) }
        #expect(throws: V2GroupEventTagsError.duplicateH) { try V2GroupEventTags.validate([h, h]) }
        #expect(throws: V2GroupEventTagsError.missingH) { try V2GroupEventTags.validate([Tag(["expiration", "1"])]) }
        #expect(throws: V2GroupEventTagsError.invalidH) { try V2GroupEventTags.validate([Tag(["h", String(repeating: "AA", count: 32)])]) }
        #expect(throws: V2GroupEventTagsError.invalidH) { try V2GroupEventTags.validate([Tag(h.fields + ["extra"])]) }
        #expect(throws: V2GroupEventTagsError.duplicateExpiration) {
            try V2GroupEventTags.validate([h, Tag(["expiration", "1"]), Tag(["expiration", "2"])])
        }
        #expect(throws: V2GroupEventTagsError.invalidExpiration) { try V2GroupEventTags.validate([h, Tag(["expiration", "-1"])]) }
        let other = try NostrRouting(nostrGroupID: [UInt8](repeating: 0xbb, count: 32), relays: ["wss://a.example"])
        let keys = Keys.generate()
        let event = try UnsignedEvent(pubkey: keys.publicKey, kind: .groupMessage, tags: [h], content: "x").signed(with: keys)
        #expect(throws: V2GroupEventTagsError.wrongGroup) { try V2GroupEventTags.validate(event, routing: other) }
    }
}

/// Inner application event, against MDK v0.9.14 crates/traits/src/app_event.rs (`deny_unknown_fields`,
/// `validate_id`, `validate_sender`).
@Suite struct V2InnerEventTests {
    let alice = Keys.generate()

    var chat: UnsignedEvent { UnsignedEvent(pubkey: alice.publicKey, createdAt: 1_800_000_000, kind: .chatMessage, tags: [], content: "hi") }

    @Test func acceptsExactlyTheSixMembers() throws {
        let bytes = V2InnerEvent.encode(chat)
        let object = try #require(try JSONValue.parse(utf8: bytes).objectValue)
        #expect(Set(object.keys) == V2InnerEvent.members)
        #expect(try V2InnerEvent.decodeChat(bytes, sender: alice.publicKey) == chat)
    }

    @Test func rejectsSigExtraMembersWrongSenderAndTamperedID() throws {
        let json = chat.jsonString
        let withSig = json.replacingOccurrences(of: "{", with: "{\"sig\":\"" + String(repeating: "0", count: 128) + "\",", options: [], range: json.range(of: "{"))
        #expect(throws: V2InnerEventError.hasSignature) { try V2InnerEvent.decode(Array(withSig.utf8), sender: alice.publicKey) }
        let extra = json.replacingOccurrences(of: "{", with: "{\"x\":1,", options: [], range: json.range(of: "{"))
        #expect(throws: V2InnerEventError.wrongMembers(["x"])) { try V2InnerEvent.decode(Array(extra.utf8), sender: alice.publicKey) }
        let noID = json.replacingOccurrences(of: "\"id\":\"\(chat.id.hex)\",", with: "")
        #expect(throws: V2InnerEventError.wrongMembers(["id"])) { try V2InnerEvent.decode(Array(noID.utf8), sender: alice.publicKey) }
        let tampered = json.replacingOccurrences(of: "\"hi\"", with: "\"ho\"")
        #expect(throws: V2InnerEventError.idMismatch) { try V2InnerEvent.decode(Array(tampered.utf8), sender: alice.publicKey) }
        // Mallory, an MLS member, sends an inner event claiming Alice's pubkey.
        #expect(throws: V2InnerEventError.senderMismatch) {
            try V2InnerEvent.decode(V2InnerEvent.encode(chat), sender: Keys.generate().publicKey)
        }
        let reaction = UnsignedEvent(pubkey: alice.publicKey, kind: .reaction, content: "+")
        #expect(throws: V2InnerEventError.wrongKind(7)) { try V2InnerEvent.decodeChat(V2InnerEvent.encode(reaction), sender: alice.publicKey) }
    }
}

/// The v2 authorization predicate, against MDK v0.9.14 crates/cgka-engine/src/app_components.rs
/// (`staged_commit_requires_admin`, `AdminCannotSelfRemove`).
@Suite struct V2CommitAuthorizationTests {
    let admin = Keys.generate().publicKey
    let member = Keys.generate().publicKey
    let other = Keys.generate().publicKey
    var policy: AdminPolicy { try! AdminPolicy(admins: [admin]) }

    func commit(_ by: PublicKey, _ proposals: [V2CommitSummary.ProposalEntry], path: Bool = true, wire: WireFormat = .publicMessage) -> V2CommitSummary {
        V2CommitSummary(committer: by, wireFormat: wire, proposals: proposals, hasPath: path)
    }

    @Test func adminsCommitAnything() throws {
        try V2CommitAuthorization.authorize(commit(admin, [.init(type: .add, sender: admin), .init(type: .appDataUpdate, sender: admin)]), admins: policy)
        try V2CommitAuthorization.authorize(commit(admin, [.init(type: .remove, sender: admin)]), admins: policy)
        try V2CommitAuthorization.authorize(commit(admin, [.init(type: .selfRemove, sender: member)]), admins: policy)
    }

    @Test func nonAdminsOnlySelfUpdateOrSelfRemove() throws {
        try V2CommitAuthorization.authorize(commit(member, []), admins: policy)
        try V2CommitAuthorization.authorize(commit(member, [.init(type: .selfRemove, sender: other)]), admins: policy)
        for type in [ProposalType.add, .remove, .appDataUpdate, .groupContextExtensions, .update] {
            #expect(throws: V2AuthorizationError.proposalSenderNotAdmin(type)) {
                try V2CommitAuthorization.authorize(commit(member, [.init(type: type, sender: member)]), admins: policy)
            }
        }
        // An admin's by-reference Add committed by a non-admin: the shape still needs an admin committer.
        #expect(throws: V2AuthorizationError.requiresAdmin) {
            try V2CommitAuthorization.authorize(commit(member, [.init(type: .add, sender: admin, byReference: true)]), admins: policy)
        }
        #expect(throws: V2AuthorizationError.requiresAdmin) {
            try V2CommitAuthorization.authorize(
                commit(member, [.init(type: .selfRemove, sender: other), .init(type: .remove, sender: admin, byReference: true)]),
                admins: policy)
        }
        #expect(throws: V2AuthorizationError.requiresAdmin) { try V2CommitAuthorization.authorize(commit(member, [], path: false), admins: policy) }
    }

    /// A non-admin's Update proposal committed by an admin is still refused (MDK: current profile).
    @Test func proposalSendersAreCheckedEvenInAnAdminCommit() {
        #expect(throws: V2AuthorizationError.proposalSenderNotAdmin(.update)) {
            try V2CommitAuthorization.authorize(commit(admin, [.init(type: .update, sender: member, byReference: true)]), admins: policy)
        }
        #expect(throws: V2AuthorizationError.lifecycleUpdateByReference) {
            try V2CommitAuthorization.authorize(
                commit(admin, [.init(type: .appDataUpdate, sender: admin, byReference: true, componentID: 0x800c)]), admins: policy)
        }
        #expect(throws: V2AuthorizationError.unsupportedProposal(.psk)) {
            try V2CommitAuthorization.authorize(commit(admin, [.init(type: .psk, sender: admin)]), admins: policy)
        }
    }

    @Test func privateMessageCommitIsRefused() {
        #expect(throws: V2AuthorizationError.handshakeNotPublic) {
            try V2CommitAuthorization.authorize(commit(admin, [], wire: .privateMessage), admins: policy)
        }
    }

    @Test func adminSelfRemoveIsRefused() {
        #expect(throws: V2AuthorizationError.adminSelfRemove) {
            try V2CommitAuthorization.authorize(commit(member, [.init(type: .selfRemove, sender: admin)]), admins: policy)
        }
    }
}
