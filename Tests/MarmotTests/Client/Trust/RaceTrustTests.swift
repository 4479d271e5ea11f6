import Crypto
import Foundation
import MLS
import Nostr
import NostrClient
import NostrRelay
import TestSupport
import Testing
@testable import Marmot

/// Races between commits of one epoch when a relay re-signs events with other dates (threat 4):
/// v1 keeps MDK 0.8.0's created_at rule within a back-dating bound, v2 ranks by protocol evidence
/// only (issue 24).
@Suite(.serialized, .timeLimit(.minutes(3))) struct RaceTrustTests {
    /// v1: A's self-update is applied; M's competing self-update comes re-signed ten minutes
    /// earlier. Beyond the bound it is refused; a copy of another competitor dated a minute earlier
    /// still wins, as MDK 0.8.0 decides. Before the fix the ten-minute copy won.
    @Test func v1CompetitorBackdatedBeyondTheBoundIsRefused() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        var (bob, m, a, chat) = try await RaceFixtures.v1(url, aIsAdmin: true)
        let now = UnsignedEvent.now()
        let applied = try a.commit { try RaceFixtures.v1SelfUpdate(&$0) }
        let appliedEvent = try a.event(applied.message, createdAt: now, epochOf: applied.before)
        await bob.client.deliverForTesting(appliedEvent)
        #expect(try await bob.client.snapshotForTesting(chat, epoch: 1)?.eventID == appliedEvent.id)

        var far = m
        let farCommit = try far.commit { try RaceFixtures.v1SelfUpdate(&$0) }
        let farEvent = try m.event(farCommit.message, createdAt: now - V1GroupRules.backdatingBound - 300, epochOf: farCommit.before)
        await bob.client.deliverForTesting(farEvent)
        #expect(try await bob.client.snapshotForTesting(chat, epoch: 1)?.eventID == appliedEvent.id)
        #expect(await RaceFixtures.refused(bob, farEvent.id, because: "bound"))

        var near = m
        let nearCommit = try near.commit { try RaceFixtures.v1SelfUpdate(&$0) }
        let nearEvent = try m.event(nearCommit.message, createdAt: now - 60, epochOf: nearCommit.before)
        await bob.client.deliverForTesting(nearEvent)
        #expect(try await bob.client.snapshotForTesting(chat, epoch: 1)?.eventID == nearEvent.id)
        #expect(await bob.epochState(chat)?.authenticator == near.group?.epochAuthenticator)
        await bob.shutdown()
        await server.stop()
    }

    /// v1: a relay re-signs the commit Bob applied. A copy dated a little earlier becomes the race
    /// reference (as MDK does, so both sides judge later competitors alike); one dated beyond the
    /// bound does not, and neither does a later one. Replaces the test that let any earlier copy
    /// move the reference; before the fix the far copy moved it.
    @Test func v1RewrappedCopyMovesTheReferenceOnlyWithinTheBound() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, chat, _) = try await TwoClientTests.establish(relay: url)
        let update = try await alice.client.selfUpdate(chat.id)
        #expect(try await bob.waitForCommit(epoch: update.epoch) == alice.publicKey)
        let epoch = update.epoch - 1
        let original = try #require(try await bob.client.snapshotForTesting(chat.id, epoch: epoch))
        let commit = try #require(try await RelayReads.fetch(Filter(ids: [original.eventID]), from: url).first)

        let near = try RaceFixtures.rewrapped(commit, createdAt: commit.createdAt - 30)
        await bob.client.deliverForTesting(near)
        #expect(try await bob.client.snapshotForTesting(chat.id, epoch: epoch)?.eventID == near.id)
        let far = try RaceFixtures.rewrapped(commit, createdAt: commit.createdAt - V1GroupRules.backdatingBound - 60)
        await bob.client.deliverForTesting(far)
        #expect(try await bob.client.snapshotForTesting(chat.id, epoch: epoch)?.eventID == near.id)
        let later = try RaceFixtures.rewrapped(commit, createdAt: commit.createdAt + 30)
        await bob.client.deliverForTesting(later)
        #expect(try await bob.client.snapshotForTesting(chat.id, epoch: epoch)?.eventID == near.id)
        #expect(await bob.epochState(chat.id)?.epoch == update.epoch)
        await alice.shutdown()
        await bob.shutdown()
        await server.stop()
    }

    /// v2: M's rename (an admin's, privileged) is applied; E's self-update comes re-signed three
    /// minutes earlier, and a copy of M's own commit an hour earlier. Neither date matters: the
    /// rename keeps the epoch and the reference stays. Before the fix E's copy won by its date.
    @Test func v2RelayBackdatedCommitDoesNotWin() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        var (bob, m, e, chat) = try await RaceFixtures.v2(url, bobIsAdmin: false)
        let rename = try m.commit { try RaceFixtures.v2Rename(&$0, to: "by the admin") }
        let renameEvent = try m.event(rename.message, epochOf: rename.before)
        await bob.client.deliverForTesting(renameEvent)
        #expect(try await bob.client.chat(chat)?.name == "by the admin")

        let keys = e.keys
        let update = try e.commit { try RaceFixtures.v2SelfUpdate(&$0, keys: keys) }
        let backdated = try e.event(update.message, epochOf: update.before, createdAt: UnsignedEvent.now() - 180)
        await bob.client.deliverForTesting(backdated)
        let renameDigest = Data(SHA256.hash(data: rename.message.tlsSerialized))
        #expect(await bob.client.canonicalCommitForTesting(chat, epoch: 1)?.digest == renameDigest)
        #expect(await bob.epochState(chat)?.authenticator == m.group?.epochAuthenticator)
        #expect(try await bob.client.chat(chat)?.name == "by the admin")

        let copy = try RaceFixtures.rewrapped(renameEvent, createdAt: renameEvent.createdAt - 3600)
        await bob.client.deliverForTesting(copy)
        #expect(await bob.client.canonicalCommitForTesting(chat, epoch: 1)?.digest == renameDigest)
        await bob.shutdown()
        await server.stop()
    }

    /// v2, two of our clients: both self-update in the same epoch, and the one whose account key
    /// ranks higher (so its commit loses by the ordering key) has a clock 30 s behind. Both settle
    /// on the lower key's commit. Replaces the test that let the earlier clock win; before the fix
    /// the back-dated commit won on both sides.
    @Test func v2CompetingCommitsResolveByTheOrderingKey() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let pair = [Keys.generate(), Keys.generate()].sorted { $0.publicKey.bytes.lexicographicallyPrecedes($1.publicKey.bytes) }
        let alice = try await TestAccount("alice", keys: pair[0], relayURLs: [url])
        let bob = try await TestAccount("bob", keys: pair[1], relayURLs: [url], clock: { UnsignedEvent.now() - 30 })
        _ = try await bob.client.publishKeyPackage(version: .v2)
        let created = try await alice.client.createChat(with: bob.publicKey)
        #expect(created.chat.version == .v2)
        _ = try await bob.waitForWelcome()
        #expect(try await alice.waitForCommit(epoch: 2, by: bob.publicKey) == bob.publicKey)
        let id = created.chat.id

        async let aliceCommit = alice.client.selfUpdate(id)
        async let bobCommit = bob.client.selfUpdate(id)
        let (a, b) = try await (aliceCommit, bobCommit)
        #expect(a.epoch == 3)
        #expect(b.epoch == 3)
        try await waitUntil("both agree") {
            let x = await alice.epochState(id), y = await bob.epochState(id)
            return x?.epoch == 3 && x?.authenticator == y?.authenticator
        }
        // Alice's commit (the lower key's) is the one both took out of epoch 2.
        #expect(await alice.client.canonicalCommitForTesting(id, epoch: 2)?.committer == Data(alice.publicKey.bytes))
        #expect(await bob.client.canonicalCommitForTesting(id, epoch: 2)?.committer == Data(alice.publicKey.bytes))

        _ = try await bob.client.send(text: "after the race", to: id)
        _ = try await alice.waitForMessage("after the race")
        await alice.shutdown()
        await bob.shutdown()
        await server.stop()
    }
}
