import Foundation
import MLS
import Nostr
import NostrClient
import NostrRelay
import TestSupport
import Testing
@testable import Marmot

/// Invitations from strangers (threat 1: anyone can publish and gift-wrap anything to us).
@Suite(.serialized, .timeLimit(.minutes(2))) struct WelcomeTrustTests {
    /// Mallory builds a two-member group whose first leaf claims to be Alice and wraps the Welcome
    /// to Bob under her own seal: the seal proves Mallory, who is no member, so Bob drops it and
    /// shows nothing (before the fix Bob listed "a chat with Alice" whose key Mallory held).
    @Test func strangerCannotPoseAsSomeoneElseInAWelcome() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let bob = try await TestAccount("bob", relayURLs: [url])
        _ = try await bob.client.publishKeyPackage()
        let alice = Keys.generate().publicKey
        var mallory = HostileParty()
        let bobsPackage = try await RelayReads.keyPackage(of: bob.publicKey, on: url)
        let welcome = try mallory.createGroup(
            leafIdentity: alice, admins: [alice], invitees: [bobsPackage.keyPackage], relays: [try RelayURL(url)])
        let wrap = try mallory.wrap(welcome, to: bobsPackage, relays: [try RelayURL(url)])
        #expect(try await RelayReads.publish(wrap, to: url).isAccepted)

        let (dropped, reason) = try await bob.waitForDrop()
        #expect(dropped == wrap.id)
        guard case .untrustedWelcome = reason else { throw HarnessError.unexpected("dropped for \(reason)") }
        #expect(await bob.client.invites().isEmpty)
        #expect(try await bob.client.chats().isEmpty)
        #expect(try bob.store.groups().isEmpty)
        await bob.shutdown()
        await server.stop()
    }

    /// Mallory is a member under her own identity but Alice is the only admin: MDK requires the
    /// inviter to be an admin, and so do we.
    @Test func memberWhoIsNotAdminCannotInvite() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let bob = try await TestAccount("bob", relayURLs: [url])
        _ = try await bob.client.publishKeyPackage()
        var mallory = HostileParty()
        let bobsPackage = try await RelayReads.keyPackage(of: bob.publicKey, on: url)
        let welcome = try mallory.createGroup(
            admins: [Keys.generate().publicKey], invitees: [bobsPackage.keyPackage], relays: [try RelayURL(url)])
        #expect(try await RelayReads.publish(try mallory.wrap(welcome, to: bobsPackage, relays: [try RelayURL(url)]), to: url)
            .isAccepted)
        let (_, reason) = try await bob.waitForDrop()
        #expect(reason.description.contains("not an admin"))
        #expect(await bob.client.invites().isEmpty)
        await bob.shutdown()
        await server.stop()
    }

    /// Mallory, an admin, invites Bob to a group holding a leaf that claims Alice. The invitation
    /// shows Mallory as the inviter and three members; once joined it is no 1:1 with Alice, so
    /// "new chat with Alice" never reuses it (before the fix Bob's messages to "Alice" went there).
    @Test func createChatNeverReusesAGroupThePeerDidNotProve() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let bob = try await TestAccount("bob", relayURLs: [url])
        _ = try await bob.client.publishKeyPackage()
        let alice = Keys.generate().publicKey
        let fakeAlice = try HostileParty.keyPackage(claiming: alice)
        var mallory = HostileParty()
        let bobsPackage = try await RelayReads.keyPackage(of: bob.publicKey, on: url)
        let welcome = try mallory.createGroup(
            admins: [mallory.publicKey], invitees: [fakeAlice.0, bobsPackage.keyPackage], relays: [try RelayURL(url)])
        #expect(try await RelayReads.publish(try mallory.wrap(welcome, to: bobsPackage, relays: [try RelayURL(url)]), to: url)
            .isAccepted)

        let invite = try await bob.waitForInvite()
        #expect(invite.inviter == mallory.publicKey)
        #expect(invite.members.count == 3)
        let chat = try await bob.client.acceptInvite(invite.id)
        #expect(chat.peer == nil)
        await #expect(throws: MarmotClientError.self) { _ = try await bob.client.createChat(with: alice) }
        #expect(await bob.client.chat(with: alice) == nil)
        await bob.shutdown()
        await server.stop()
    }

    /// A legitimate invitation waits for an answer; declining deletes the group, its keys and the
    /// record, and the chat list never showed it.
    @Test func declinedInvitationLeavesNoGroupBehind() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let alice = try await TestAccount("alice", relayURLs: [url])
        let bob = try await TestAccount("bob", relayURLs: [url])
        _ = try await bob.client.publishKeyPackage()
        let created = try await alice.client.createChat(with: bob.publicKey)
        let invite = try await bob.waitForInvite()
        #expect(invite.id == created.chat.id)
        #expect(invite.inviter == alice.publicKey)
        #expect(try await bob.client.chats().isEmpty)
        try await bob.client.declineInvite(invite.id)
        #expect(await bob.client.invites().isEmpty)
        #expect(try bob.store.groups().isEmpty)
        #expect(try bob.store.invitation(mlsGroupID: invite.id) == nil)
        // A restart does not bring it back (the wrap is recorded as processed).
        let again = try await bob.restarted()
        try await Task.sleep(for: .milliseconds(500))
        #expect(await again.client.invites().isEmpty)
        await again.shutdown()
        await alice.shutdown()
        await server.stop()
    }
}
