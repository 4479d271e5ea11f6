import Foundation
import MLS
import Nostr
import NostrClient
import TestSupport
import Testing
@testable import Marmot

/// Groups for race tests: our client Bob with hostile parties that commit for the same epoch from
/// the state they hold, and hand their events to Bob directly (`deliverForTesting`), so each
/// verdict is in before the next step.
enum RaceFixtures {
    /// Bob's options: no post-join self-update, so the group stays at epoch 1 until a party commits.
    static var options: MarmotClient.Options {
        var options = ClientHarness.options
        options.selfUpdateAfterJoin = false
        return options
    }

    /// A v1 group made by hostile admin M with hostile A (an admin too when `aIsAdmin`) and Bob, all
    /// at epoch 1.
    static func v1(_ url: String, aIsAdmin: Bool) async throws
        -> (bob: TestAccount, m: HostileParty, a: HostileParty, chat: GroupID)
    {
        let bob = try await TestAccount("bob", relayURLs: [url], options: options)
        _ = try await bob.client.publishKeyPackage()
        var m = HostileParty()
        var a = HostileParty()
        let aPackage = try HostileParty.keyPackage(claiming: a.publicKey)
        let bobsPackage = try await RelayReads.keyPackage(of: bob.publicKey, on: url)
        let relays = [try RelayURL(url)]
        let welcome = try m.createGroup(
            admins: aIsAdmin ? [m.publicKey, a.publicKey] : [m.publicKey], invitees: [aPackage.0, bobsPackage.keyPackage],
            relays: relays, name: "race")
        try a.join(welcome, keyPackage: aPackage.0, privateMaterial: aPackage.1)
        #expect(try await RelayReads.publish(try m.wrap(welcome, to: bobsPackage, relays: relays), to: url).isAccepted)
        let invite = try await bob.waitForInvite()
        let chat = try await bob.client.acceptInvite(invite.id)
        #expect(chat.version == .v1)
        #expect(Set(chat.members) == [m.publicKey, a.publicKey, bob.publicKey])
        return (bob, m, a, chat.id)
    }

    /// `v1(url, aIsAdmin: false)` where admin M's commit of A's removal has reached Bob before the
    /// proposal it commits by reference: Bob's group is syncing, and `proposal` (not yet delivered)
    /// lets the commit apply.
    static func v1WaitingForProposal(_ url: String) async throws
        -> (bob: TestAccount, m: HostileParty, a: HostileParty, chat: GroupID, proposal: Event)
    {
        let made = try await v1(url, aIsAdmin: false)
        var m = made.m
        var group = try #require(m.group)
        let removal = try group.proposeRemove(try leaf(of: made.a.publicKey, in: m.group))
        m.group = group
        let proposal = try m.event(removal)
        let commit = try m.commit { try $0.commit(includePendingProposals: true) }
        await made.bob.client.deliverForTesting(try m.event(commit.message, epochOf: commit.before))
        return (made.bob, m, made.a, made.chat, proposal)
    }

    /// A v2 group made by hostile admin M with Bob (an admin too when `bobIsAdmin`) and hostile
    /// member E, all at epoch 1.
    static func v2(_ url: String, bobIsAdmin: Bool) async throws
        -> (bob: TestAccount, m: V2HostileParty, e: V2HostileParty, chat: GroupID)
    {
        let bob = try await TestAccount("bob", relayURLs: [url], options: options)
        _ = try await bob.client.publishKeyPackage(version: .v2)
        let bobsPackage = try await V2HostileParty.keyPackage(of: bob.publicKey, on: url)
        var m = V2HostileParty()
        var e = V2HostileParty()
        let ePackage = try e.makeKeyPackage()
        let relays = [try RelayURL(url)]
        let welcome = try m.createGroup(
            admins: bobIsAdmin ? [m.publicKey, bob.publicKey] : [m.publicKey], invitees: [bobsPackage.keyPackage, ePackage],
            relays: relays)
        try e.join(welcome)
        #expect(try await RelayReads.publish(try m.wrap(welcome, to: bobsPackage, relays: relays), to: url).isAccepted)
        let invite = try await bob.waitForInvite()
        let chat = try await bob.client.acceptInvite(invite.id)
        #expect(chat.version == .v2)
        #expect(Set(chat.members) == [m.publicKey, e.publicKey, bob.publicKey])
        return (bob, m, e, chat.id)
    }

    /// A v2 group made by hostile admin M with Bob and hostile members E (an admin too when
    /// `eIsAdmin`) and F, all at epoch 1 (F's state is the one an engine beside Bob starts from).
    static func v2WithTwoMembers(_ url: String, eIsAdmin: Bool = false) async throws
        -> (bob: TestAccount, m: V2HostileParty, e: V2HostileParty, f: V2HostileParty, chat: GroupID)
    {
        let bob = try await TestAccount("bob", relayURLs: [url], options: options)
        _ = try await bob.client.publishKeyPackage(version: .v2)
        let bobsPackage = try await V2HostileParty.keyPackage(of: bob.publicKey, on: url)
        var m = V2HostileParty(), e = V2HostileParty(), f = V2HostileParty()
        let ePackage = try e.makeKeyPackage(), fPackage = try f.makeKeyPackage()
        let relays = [try RelayURL(url)]
        let welcome = try m.createGroup(
            admins: eIsAdmin ? [m.publicKey, e.publicKey] : [m.publicKey], invitees: [bobsPackage.keyPackage, ePackage, fPackage],
            relays: relays)
        try e.join(welcome)
        try f.join(welcome)
        #expect(try await RelayReads.publish(try m.wrap(welcome, to: bobsPackage, relays: relays), to: url).isAccepted)
        let chat = try await bob.client.acceptInvite(try await bob.waitForInvite().id).id
        return (bob, m, e, f, chat)
    }

    /// The leaf of `key` in `group`.
    static func leaf(of key: PublicKey, in group: MLSGroup?) throws -> LeafIndex {
        try #require(group?.members.first { NostrIdentity.publicKey($0.credential) == key }?.leafIndex)
    }

    /// A v1 self-update under a fresh signature key.
    static func v1SelfUpdate(_ group: inout MLSGroup) throws -> PendingCommit {
        try group.selfUpdate(signerRotation: SignerRotation(signer: CipherSuiteProvider.mls128X25519.generateSignatureKey()))
    }

    /// A v2 self-update under a fresh signature key with a valid account proof for it.
    static func v2SelfUpdate(_ group: inout MLSGroup, keys: Keys) throws -> PendingCommit {
        let signer = CipherSuiteProvider.mls128X25519.generateSignatureKey()
        let leaf = try V2GroupRules().ownLeaf(keys: keys, signer: signer)
        return try group.selfUpdate(signerRotation: SignerRotation(signer: signer, leafExtensions: leaf.extensions))
    }

    /// A v2 removal of `leaf` with the admin policy set to `admins` (an admin removed leaves the
    /// policy in the same commit: v2 admins must be members).
    static func v2Remove(_ group: inout MLSGroup, _ leaf: LeafIndex, admins: [PublicKey]) throws -> PendingCommit {
        try group.commit(
            removing: [leaf],
            proposals: [.appDataUpdate(.update(MarmotComponentID.adminPolicy, Data(try AdminPolicy(admins: admins).bytes)))])
    }

    /// A v2 commit of the group profile (name) and, when given, the admin policy.
    static func v2Rename(_ group: inout MLSGroup, to name: String, admins: [PublicKey]? = nil) throws -> PendingCommit {
        var proposals: [Proposal] = [
            .appDataUpdate(.update(MarmotComponentID.groupProfile, Data(try GroupProfile(name: name).bytes))),
        ]
        if let admins {
            proposals.append(.appDataUpdate(.update(MarmotComponentID.adminPolicy, Data(try AdminPolicy(admins: admins).bytes))))
        }
        return try group.commit(proposals: proposals)
    }

    /// A v1 commit of the group data (0xF2EE) with a new name and, when given, admins.
    static func v1Rename(_ group: inout MLSGroup, to name: String, admins: [PublicKey]? = nil) throws -> PendingCommit {
        let rules = V1GroupRules()
        var data = try rules.metadata(of: group.extensions)
        data.name = name
        if let admins { data.admins = admins.sorted() }
        return try group.commit(proposals: try rules.proposals(changing: group.extensions, to: data))
    }

    /// A kind-445 event on the group's `h` tag from a stranger, with random bytes nobody can open
    /// (what anyone who knows the tag can send), with the tags of `version`'s envelope (v2 allows
    /// only `h` and `expiration`).
    static func junk(h: String, version: MarmotVersion = .v1) throws -> Event {
        let stranger = Keys.generate()
        return try UnsignedEvent(
            pubkey: stranger.publicKey, createdAt: UnsignedEvent.now(), kind: .groupMessage,
            tags: version == .v1 ? [Tag(["h", h]), Tag(["encoding", "base64"])] : [Tag(["h", h])],
            content: Data((0..<120).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        ).signed(with: stranger)
    }

    /// The commit's ordering key as every v2 client computes it.
    static func key(_ pending: PendingCommit, before: MLSGroup) throws -> CommitOrderingKey {
        try #require(V2GroupRules().orderingKey(pending.summary, message: pending.message, before: before))
    }

    /// `event` signed again by a throw-away key with another created_at, as a relay can.
    static func rewrapped(_ event: Event, createdAt: Int64) throws -> Event {
        let relay = Keys.generate()
        return try UnsignedEvent(
            pubkey: relay.publicKey, createdAt: createdAt, kind: event.kind, tags: event.tags, content: event.content
        ).signed(with: relay)
    }

    /// Whether Bob reported `id` as dropped for a refused competing commit whose reason contains `why`.
    static func refused(_ bob: TestAccount, _ id: EventID, because why: String) async -> Bool {
        let dropped = try? await bob.waitForDrop(timeout: 20) {
            if case .refusedCompetingCommit(let reason) = $0 { reason.contains(why) } else { false }
        }
        return dropped?.0 == id
    }
}
