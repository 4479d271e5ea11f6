import Foundation
import MLS
import Nostr
import NostrClient
import NostrRelay
import TestSupport
import Testing
@testable import Marmot

/// Every v2 rule our client enforces, each attempted by a hostile party built from our own types
/// (`V2HostileParty`): the event or Welcome is dropped, the group does not move, and the chat goes on.
@Suite(.serialized, .timeLimit(.minutes(2))) struct V2TrustTests {
    /// Alice (our client, admin) and Mallory in a v2 group Alice created; Mallory has joined.
    static func groupWithMallory(_ url: String, configuration: GroupConfiguration = .marmotV2) async throws
        -> (alice: TestAccount, mallory: V2HostileParty, chat: GroupID)
    {
        let alice = try await TestAccount("alice", relayURLs: [url])
        var mallory = V2HostileParty()
        try await mallory.publishKeyPackage(to: url)
        let created = try await alice.client.createChat(with: mallory.publicKey)
        #expect(created.chat.version == .v2)
        try await mallory.joinFromRelay(url, configuration: configuration)
        return (alice, mallory, created.chat.id)
    }

    /// A member's self-update commit framed as PrivateMessage (v2 requires PublicMessage handshakes).
    @Test func privateMessageCommitIsRefused() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        var lax = GroupConfiguration.marmotV2
        lax.outgoingHandshake = .privateMessage
        lax.acceptPrivateHandshakes = true
        var (alice, mallory, id) = try await Self.groupWithMallory(url, configuration: lax)
        let signer = CipherSuiteProvider.mls128X25519.generateSignatureKey()
        let leaf = try V2GroupRules().ownLeaf(keys: mallory.keys, signer: signer)
        let commit = try mallory.commit { try $0.selfUpdate(signerRotation: SignerRotation(signer: signer, leafExtensions: leaf.extensions)) }
        #expect(commit.message.wireFormat == .privateMessage)
        let event = try mallory.event(commit.message, epochOf: commit.before)
        #expect(try await RelayReads.publish(event, to: url).isAccepted)
        let (dropped, reason) = try await alice.waitForDrop()
        #expect(dropped == event.id)
        guard case .mls(.wireFormatNotAllowed) = reason else { throw HarnessError.unexpected("dropped for \(reason)") }
        #expect(await alice.epochState(id)?.epoch == 1)
        await alice.shutdown()
        await server.stop()
    }

    /// A member rotates its signature key but keeps its old account proof, which binds the old key:
    /// the leaf is no longer proven to belong to the account it names.
    @Test func leafWithoutAValidProofIsRefused() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        var (alice, mallory, id) = try await Self.groupWithMallory(url)
        let commit = try mallory.commit {
            try $0.selfUpdate(signerRotation: SignerRotation(signer: CipherSuiteProvider.mls128X25519.generateSignatureKey()))
        }
        #expect(commit.message.wireFormat == .publicMessage)
        let event = try mallory.event(commit.message, epochOf: commit.before)
        #expect(try await RelayReads.publish(event, to: url).isAccepted)
        let (_, reason) = try await alice.waitForDrop()
        guard case .unauthorizedCommit(let why) = reason, why.contains("account proof") else {
            throw HarnessError.unexpected("dropped for \(reason)")
        }
        #expect(await alice.epochState(id)?.epoch == 1)
        await alice.shutdown()
        await server.stop()
    }

    /// A non-admin member commits a rename (an AppDataUpdate of the group profile).
    @Test func nonAdminCannotRename() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        var (alice, mallory, id) = try await Self.groupWithMallory(url)
        let profile = try GroupProfile(name: "Mallory's now")
        let commit = try mallory.commit {
            try $0.commit(proposals: [.appDataUpdate(.update(MarmotComponentID.groupProfile, Data(profile.bytes)))])
        }
        let event = try mallory.event(commit.message, epochOf: commit.before)
        #expect(try await RelayReads.publish(event, to: url).isAccepted)
        let (_, reason) = try await alice.waitForDrop()
        guard case .unauthorizedCommit = reason else { throw HarnessError.unexpected("dropped for \(reason)") }
        #expect(await alice.epochState(id)?.epoch == 1)
        #expect(try await alice.client.chat(id)?.name == "")
        await alice.shutdown()
        await server.stop()
    }

    /// An admin names a stranger as admin: v2 admins must be current members (MDK refuses such a
    /// commit at every seam), so a key could not become admin the moment it is added.
    @Test func adminPolicyNamingANonMemberIsRefused() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let bob = try await TestAccount("bob", relayURLs: [url])
        _ = try await bob.client.publishKeyPackage(version: .v2)
        var mallory = V2HostileParty()
        try await mallory.invite(bob.publicKey, on: url)
        let invite = try await bob.waitForInvite()
        let stranger = Keys.generate().publicKey
        let policy = try AdminPolicy(admins: [mallory.publicKey, stranger])
        let commit = try mallory.commit {
            try $0.commit(proposals: [.appDataUpdate(.update(MarmotComponentID.adminPolicy, Data(policy.bytes)))])
        }
        #expect(try await RelayReads.publish(try mallory.event(commit.message, epochOf: commit.before), to: url).isAccepted)
        _ = try await bob.client.acceptInvite(invite.id)
        let (_, reason) = try await bob.waitForDrop()
        guard case .unauthorizedCommit(let why) = reason, why.contains("is not a member") else {
            throw HarnessError.unexpected("dropped for \(reason)")
        }
        #expect(try await bob.client.chat(invite.id)?.admins == [mallory.publicKey])
        await bob.shutdown()
        await server.stop()
    }

    /// An admin sends the disband we used to send (the lifecycle update alone, v2 conformance review
    /// N1) and then one that keeps lifecycle as it is: MDK members refuse both, so must we (L2), or
    /// the group splits into members who see it closed and members who go on chatting.
    @Test func aDisbandNotInMDKsShapeIsRefused() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let bob = try await TestAccount("bob", relayURLs: [url])
        _ = try await bob.client.publishKeyPackage(version: .v2)
        var mallory = V2HostileParty()
        try await mallory.invite(bob.publicKey, on: url)
        let invite = try await bob.waitForInvite()
        _ = try await bob.client.acceptInvite(invite.id)
        for (state, expected) in [(GroupLifecycle.disbanded, "disband needs exactly one"), (.active, "redundant lifecycle update")] {
            let bare = try mallory.commit {
                try $0.commit(proposals: [.appDataUpdate(.update(MarmotComponentID.lifecycle, Data(state.bytes)))])
            }
            // Mallory's own state stays where Bob's is: the commit is not one the group takes.
            mallory.group = bare.before
            #expect(try await RelayReads.publish(try mallory.event(bare.message, epochOf: bare.before), to: url).isAccepted)
            let (_, reason) = try await bob.waitForDrop()
            guard case .unauthorizedCommit(let why) = reason, why.contains(expected) else {
                throw HarnessError.unexpected("dropped for \(reason)")
            }
        }
        #expect(try await bob.client.chat(invite.id)?.status == .active)
        _ = try await bob.client.send(text: "still here", to: invite.id)
        await bob.shutdown()
        await server.stop()
    }

    /// An admin drops SelfRemove from the group's required capabilities: a v2 group must keep
    /// requiring 0x0006, AppDataUpdate and SelfRemove of every member.
    @Test func requiredCapabilitiesCannotBeWeakened() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let bob = try await TestAccount("bob", relayURLs: [url])
        _ = try await bob.client.publishKeyPackage(version: .v2)
        var mallory = V2HostileParty()
        try await mallory.invite(bob.publicKey, on: url)
        let invite = try await bob.waitForInvite()
        let weaker = RequiredCapabilities(extensionTypes: [.appDataDictionary], proposalTypes: [.appDataUpdate], credentialTypes: [])
        let extensions = try #require(mallory.group).extensions.map { $0.type == .requiredCapabilities ? Extension(weaker) : $0 }
        let commit = try mallory.commit {
            try $0.commit(proposals: [.groupContextExtensions(GroupContextExtensions(extensions: extensions))])
        }
        #expect(try await RelayReads.publish(try mallory.event(commit.message, epochOf: commit.before), to: url).isAccepted)
        _ = try await bob.client.acceptInvite(invite.id)
        let (_, reason) = try await bob.waitForDrop()
        guard case .unauthorizedCommit(let why) = reason, why.contains("required_capabilities") else {
            throw HarnessError.unexpected("dropped for \(reason)")
        }
        #expect(await bob.epochState(invite.id)?.epoch == 1)
        await bob.shutdown()
        await server.stop()
    }

    /// A kind-445 event with a tag besides `h` (v1's `encoding`): v2 accepts exactly `h` and an
    /// optional `expiration`. The same message with the right tags is then taken in.
    @Test func groupEventWithAnExtraTagIsRefused() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        var (alice, mallory, _) = try await Self.groupWithMallory(url)
        let h = try #require(mallory.nostrGroupID).hex
        var group = try #require(mallory.group)
        let rumor = UnsignedEvent(pubkey: mallory.publicKey, createdAt: UnsignedEvent.now(), kind: .chatMessage, tags: [], content: "tagged")
        let sealed = try group.encrypt(Data(rumor.jsonString.utf8))
        mallory.group = group
        let extra = try mallory.event(sealed, tags: [Tag(["h", h]), Tag(["encoding", "base64"])])
        #expect(try await RelayReads.publish(extra, to: url).isAccepted)
        let (dropped, reason) = try await alice.waitForDrop()
        #expect(dropped == extra.id)
        #expect(reason == .invalidV2GroupEvent(.unexpectedTag("encoding")))

        let sealedAgain = try group.encrypt(Data(rumor.jsonString.utf8))
        mallory.group = group
        #expect(try await RelayReads.publish(try mallory.event(sealedAgain), to: url).isAccepted)
        _ = try await alice.waitForMessage("tagged")
        await alice.shutdown()
        await server.stop()
    }

    /// An inner event with a member besides the six NIP-01 fields (v2's strict kind-9 event).
    @Test func innerEventWithExtraMembersIsRefused() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        var (alice, mallory, _) = try await Self.groupWithMallory(url)
        var group = try #require(mallory.group)
        let rumor = UnsignedEvent(pubkey: mallory.publicKey, createdAt: UnsignedEvent.now(), kind: .chatMessage, tags: [], content: "x")
        var json = rumor.jsonString
        json.removeLast()
        json += #","extra":1}"#
        let sealed = try group.encrypt(Data(json.utf8))
        mallory.group = group
        #expect(try await RelayReads.publish(try mallory.event(sealed), to: url).isAccepted)
        let (_, reason) = try await alice.waitForDrop()
        guard case .invalidV2Rumor(.wrongMembers) = reason else { throw HarnessError.unexpected("dropped for \(reason)") }
        await alice.shutdown()
        await server.stop()
    }

    /// Mallory invites Bob to a v2 group whose admin policy names someone else: the inviter must be
    /// an admin.
    @Test func nonAdminInviterIsRefused() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let bob = try await TestAccount("bob", relayURLs: [url])
        _ = try await bob.client.publishKeyPackage(version: .v2)
        var mallory = V2HostileParty()
        try await mallory.invite(bob.publicKey, on: url, admins: [bob.publicKey])
        let (_, reason) = try await bob.waitForDrop()
        guard case .untrustedWelcome(let why) = reason, why.contains("not an admin") else {
            throw HarnessError.unexpected("dropped for \(reason)")
        }
        #expect(await bob.client.invites().isEmpty)
        #expect(try bob.store.groups().isEmpty)
        await bob.shutdown()
        await server.stop()
    }

    /// The Welcome is sealed by an admin (Eve) but the commit that added Bob, and so the GroupInfo,
    /// was signed by Mallory, who is no admin: v2 requires the GroupInfo signer to be an admin (MDK
    /// refuses otherwise), whoever sealed the gift wrap.
    @Test func groupInfoSignedByANonAdminIsRefused() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let bob = try await TestAccount("bob", relayURLs: [url])
        _ = try await bob.client.publishKeyPackage(version: .v2)
        let eve = Keys.generate()
        let evePackage = try V2KeyPackage.create(keys: eve)
        var mallory = V2HostileParty()
        _ = try mallory.createGroup(admins: [eve.publicKey], invitees: [evePackage.keyPackage], relays: [try RelayURL(url)])
        let bobs = try await V2HostileParty.keyPackage(of: bob.publicKey, on: url)
        var group = try #require(mallory.group)
        let welcome = try #require(try group.commit(adding: [bobs.keyPackage]).welcome)
        let wrap = try V2GroupRules().wrapWelcome(
            welcome, author: eve, invitee: bobs, relays: [try RelayURL(url)], client: nil, createdAt: UnsignedEvent.now())
        #expect(try await RelayReads.publish(wrap, to: url).isAccepted)
        let (_, reason) = try await bob.waitForDrop()
        guard case .untrustedWelcome(let why) = reason, why.contains(V2WelcomeError.inviterNotAdmin.description) else {
            throw HarnessError.unexpected("dropped for \(reason)")
        }
        #expect(try bob.store.groups().isEmpty)
        await bob.shutdown()
        await server.stop()
    }

    /// A v2 group that requires a component we do not implement cannot be joined safely.
    @Test func unknownRequiredComponentIsRefused() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let bob = try await TestAccount("bob", relayURLs: [url])
        _ = try await bob.client.publishKeyPackage(version: .v2)
        var mallory = V2HostileParty()
        try await mallory.invite(bob.publicKey, on: url, extraRequired: [0x9999])
        let (_, reason) = try await bob.waitForDrop()
        guard case .untrustedWelcome(let why) = reason, why.contains("0x9999") else {
            throw HarnessError.unexpected("dropped for \(reason)")
        }
        #expect(try bob.store.groups().isEmpty)
        await bob.shutdown()
        await server.stop()
    }

    /// A v2 Welcome rumor with extra tags (v1's `client` and `encoding`) is read as MDK 0.9.14 reads
    /// it (only `e` and `relays`, `peel_welcome`): the invitation is listed, as a v2 one, since the
    /// key package it is for is v2.
    @Test func welcomeWithExtraTagsIsAccepted() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let bob = try await TestAccount("bob", relayURLs: [url])
        _ = try await bob.client.publishKeyPackage(version: .v2)
        var mallory = V2HostileParty()
        let (welcome, bobs) = try await mallory.invite(bob.publicKey, on: url, publish: false)
        var rumor = try V2WelcomeRumor.build(
            welcome: welcome, keyPackageEventID: bobs.eventID, relays: [url], sender: mallory.publicKey)
        rumor = UnsignedEvent(
            pubkey: rumor.pubkey, createdAt: rumor.createdAt, kind: rumor.kind,
            tags: rumor.tags + [Tag(["client", "x"]), Tag(["encoding", "base64"])], content: rumor.content)
        let wrap = try GiftWrap.wrap(rumor, author: mallory.keys, recipient: bob.publicKey)
        #expect(try await RelayReads.publish(wrap, to: url).isAccepted)
        let invite = try await bob.waitForInvite()
        #expect(try bob.store.group(mlsGroupID: invite.id)?.version == .v2)
        await bob.shutdown()
        await server.stop()
    }
}
