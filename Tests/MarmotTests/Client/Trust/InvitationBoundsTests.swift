import Foundation
import MLS
import Nostr
import NostrClient
import NostrRelay
import TestSupport
import Testing
@testable import Marmot

/// What a stranger can make us keep is bounded, and old secrets go on a timer (issue 26).
@Suite(.serialized, .timeLimit(.minutes(3))) struct InvitationBoundsTests {
    /// A stranger invites Bob to four groups: three invitations wait, the fourth Welcome is left
    /// unread (not recorded, so nothing is lost) until Bob answers one; after that it is read.
    @Test func aStrangerCannotQueueMoreThanThreeInvitations() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let stranger = try await TestAccount("stranger", relayURLs: [url])
        var bob = try await TestAccount("bob", relayURLs: [url])
        _ = try await bob.client.ensureKeyPackage()
        for index in 1...3 {
            _ = try await stranger.client.createGroup(name: "spam \(index)", members: [bob.publicKey])
            _ = try await bob.waitForInvite()
        }
        _ = try await stranger.client.createGroup(name: "spam 4", members: [bob.publicKey])
        let (_, reason) = try await bob.waitForDrop { if case .untrustedWelcome(let why) = $0 { why.contains("wait for an answer") } else { false } }
        #expect("\(reason)".contains("3 invitations from \(stranger.publicKey.hex)"))
        #expect(await bob.client.invites().map(\.name).sorted() == ["spam 1", "spam 2", "spam 3"])

        // Bob declines one; at his next start the fourth Welcome, still on the relay, is read.
        let first = try #require(await bob.client.invites().first { $0.name == "spam 1" })
        try await bob.client.declineInvite(first.id)
        bob = try await bob.restarted()
        let late = try await bob.waitForInvite()
        #expect(late.name == "spam 4")
        #expect(await bob.client.invites().count == 3)
        await stranger.shutdown()
        await bob.shutdown()
        await server.stop()
    }
}

/// Old secrets are forgotten on a timer, without a restart or a new event.
@Suite(.serialized, .timeLimit(.minutes(2))) struct HousekeepingTests {
    /// Bob's consumed key package's private half goes when its (here 3 s) grace period ends.
    @Test func aConsumedKeyPackagesPrivateHalfGoesWhenItsGraceEnds() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        var options = ClientHarness.options
        options.consumedKeyPackageGrace = 3
        let alice = try await TestAccount("alice", relayURLs: [url])
        let bob = try await TestAccount("bob", relayURLs: [url], options: options)
        _ = try await bob.client.ensureKeyPackage()
        let before = try bob.store.keyPackages().count
        _ = try await alice.client.createChat(with: bob.publicKey)
        _ = try await bob.waitForInvite()
        _ = try await waitUntilValue("rotated") { (try? bob.store.keyPackages().count).flatMap { $0 > before ? $0 : nil } }
        let left = try await waitUntilValue("consumed key package forgotten") {
            (try? bob.store.keyPackages().count).flatMap { $0 == before ? $0 : nil }
        }
        #expect(left == before)
        await alice.shutdown()
        await bob.shutdown()
        await server.stop()
    }

    /// An invitation nobody answers is declined after `inviteMaxAge`, and reported gone.
    @Test func anUnansweredInvitationExpires() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let clock = TestClock()
        let alice = try await TestAccount("alice", relayURLs: [url])
        let bob = try await TestAccount("bob", relayURLs: [url], clock: { clock.now })
        _ = try await bob.client.ensureKeyPackage()
        _ = try await alice.client.createChat(with: bob.publicKey)
        let invite = try await bob.waitForInvite()
        clock.advance(by: 31 * 24 * 3600)
        await bob.client.housekeep()
        #expect(await bob.client.invites().isEmpty)
        let gone = await bob.inbox.first(timeout: 30) { if case .invitesExpired = $0 { true } else { false } }
        #expect(gone == .invitesExpired([invite.id]))
        await alice.shutdown()
        await bob.shutdown()
        await server.stop()
    }

    /// A quiet group's snapshots and past event keys go once older than `snapshotMaxAge`, though
    /// no commit came to prune them.
    @Test func aQuietGroupsPastEpochSecretsAgeOut() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let clock = TestClock()
        let (alice, bob, chat, _) = try await TwoClientTests.establish(relay: url, bobClock: { clock.now })
        _ = try await alice.client.selfUpdate(chat.id)
        _ = try await bob.waitForCommit(epoch: 3)
        let epoch = try #require(await bob.epochState(chat.id)?.epoch)
        #expect(try await bob.client.snapshotForTesting(chat.id, epoch: epoch - 1) != nil)
        let keysBefore = try bob.store.groupEventKeys(mlsGroupID: chat.id).count
        #expect(keysBefore > 1)
        clock.advance(by: 2 * 24 * 3600)
        await bob.client.housekeep()
        #expect(try await bob.client.snapshotForTesting(chat.id, epoch: epoch - 1) == nil)
        #expect(try bob.store.groupEventKeys(mlsGroupID: chat.id).map(\.epoch) == [epoch])
        // The group still works at its current epoch.
        _ = try await alice.client.send(text: "still here", to: chat.id)
        _ = try await bob.waitForMessage("still here")
        await alice.shutdown()
        await bob.shutdown()
        await server.stop()
    }
}
