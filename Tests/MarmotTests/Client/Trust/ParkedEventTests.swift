import Foundation
import MLS
import Nostr
import NostrClient
import NostrRelay
import TestSupport
import Testing
@testable import Marmot

/// Junk on a group's `h` tag pushing genuine early events out of the parked list (issue 24, N8).
@Suite(.serialized, .timeLimit(.minutes(3))) struct ParkedEventTests {
    /// M's message of the next epoch reaches Bob before M's commit and is parked; a stranger who
    /// knows the `h` tag then sends a parked-list's worth of junk, which pushes it out. Bob is
    /// offline when the commit comes, so fetching it again fails; it is still not lost: the next
    /// catch-up (a restart) fetches it again and it opens. Before the fix it was recorded as
    /// processed when it did not decrypt, so it was never tried again.
    @Test func junkCannotEvictAnEarlyMessageForGood() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        var (bob, m, chat) = try await Self.earlyMessagePushedOut("early bird", url, offlineFirst: true)
        #expect(await bob.epochState(chat)?.authenticator == m.group?.epochAuthenticator)

        bob = try await bob.restarted()
        #expect(try await bob.waitForMessage("early bird").sender == m.publicKey)
        await bob.shutdown()
        await server.stop()
    }

    /// As above, but nothing restarts: once M's commit applies, Bob fetches the group's events
    /// again from the one pushed out, and the early message opens at once. Before, it stayed
    /// unread until the next catch-up (a restart or a reconnect).
    @Test func anEarlyMessagePushedOutByJunkIsFetchedAgainOnceItsCommitApplies() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (bob, m, _) = try await Self.earlyMessagePushedOut("early bird, live", url)
        #expect(try await bob.waitForMessage("early bird, live", timeout: 15).sender == m.publicKey)
        await bob.shutdown()
        await server.stop()
    }

    /// Bob's commit of Carol's leave reaches Alice before its proposal and waits for it, parked;
    /// then a stranger who knows the `h` tag sends a parked list's worth of junk. The commit opened
    /// (it is a member's), so the junk cannot push it out: when the proposal comes the commit
    /// applies, and Bob's next message opens. Before, the junk pushed the commit out (oldest
    /// first): Alice stayed at the old epoch and Bob's message did not open (N8).
    @Test func junkCannotPushOutACommitThatOpened() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, carol, id) = try await V2Fixtures.trio(url)
        let h = try #require(try await alice.client.chat(id)).nostrGroupID.hex
        let (proposal, commit, message) = try await Self.leaveCommittedUnseen(by: alice, in: id, url, bob: bob, carol: carol, then: "after the junk")

        await alice.client.deliverForTesting(commit)
        let client = alice.client
        // The commit opened: the group engine keeps it, apart from events no key opens.
        try await waitUntil("the commit parked") { await client.engineParkedForTesting(id) == 1 }
        for _ in 0..<ClientHarness.options.parkedEventLimit + 10 {
            await alice.client.deliverForTesting(try RaceFixtures.junk(h: h, version: .v2))
        }
        #expect(await alice.client.parkedCountForTesting(id) == ClientHarness.options.parkedEventLimit)
        #expect(await alice.client.engineParkedForTesting(id) == 1, "the junk did not push the commit out")
        for event in [proposal, message] { await alice.client.deliverForTesting(event) }
        _ = try await alice.waitForMessage("after the junk", timeout: 15)
        #expect(await alice.epochState(id)?.authenticator == (await bob.epochState(id))?.authenticator)
        await alice.shutdown()
        await bob.shutdown()
        await carol.shutdown()
        await server.stop()
    }

    /// Relays do not keep a group's order (a catch-up cut short by its timer hands stored events
    /// over newest first): Alice gets Bob's message, then Bob's commit of Carol's leave, then Carol's
    /// SelfRemove proposal. The commit waits, parked, for its proposal and applies when it comes, so
    /// Alice neither drops it for good nor commits the leave herself and forks (found by a CI run).
    @Test func aCommitThatArrivesBeforeItsProposalWaitsForIt() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, carol, id) = try await V2Fixtures.trio(url)
        let (proposal, commit, message) = try await Self.leaveCommittedUnseen(by: alice, in: id, url, bob: bob, carol: carol, then: "after carol left")

        for event in [message, commit, proposal] { await alice.client.deliverForTesting(event) }
        _ = try await alice.waitForMessage("after carol left")
        #expect(await alice.epochState(id)?.authenticator == (await bob.epochState(id))?.authenticator)
        #expect(Set(try #require(try await alice.client.chat(id)).members) == [alice.publicKey, bob.publicKey])
        await alice.shutdown()
        await bob.shutdown()
        await carol.shutdown()
        await server.stop()
    }

    /// With Alice offline, Carol leaves group `id`, Bob commits her SelfRemove, then sends `text`:
    /// the three events as the relay at `url` holds them, none of them seen by Alice.
    static func leaveCommittedUnseen(
        by alice: TestAccount, in id: GroupID, _ url: String, bob: TestAccount, carol: TestAccount, then text: String
    ) async throws -> (proposal: Event, commit: Event, message: Event) {
        let h = try #require(try await alice.client.chat(id)).nostrGroupID.hex
        let filter = Filter(kinds: [.groupMessage], tags: ["h": [h]])
        let before = Set(try await RelayReads.fetch(filter, from: url).map(\.id))
        await alice.pool.disconnect()

        let leave = try await carol.client.leaveGroup(id)
        _ = try await bob.waitForCommit(epoch: 4, by: bob.publicKey)
        let sent = try await bob.client.send(text: text, to: id)
        let messageID = try #require(sent.message.outerEventID)
        let fresh = try await RelayReads.fetch(filter, from: url).filter { !before.contains($0.id) }
        let proposal = try #require(fresh.first { $0.id == leave.eventID })
        let message = try #require(fresh.first { $0.id == messageID })
        let commit = try #require(fresh.first { $0.id != proposal.id && $0.id != message.id }, "\(fresh.count) new events")
        return (proposal, commit, message)
    }

    /// In a v1 group of Bob and hostile M: M's message `text` of the next epoch reaches Bob (through
    /// the relay at `url`) before M's commit and is parked, a stranger's junk fills Bob's parked
    /// list and pushes it out, then M's commit reaches Bob (when he is offline, with `offlineFirst`).
    static func earlyMessagePushedOut(
        _ text: String, _ url: String, offlineFirst: Bool = false
    ) async throws -> (bob: TestAccount, m: HostileParty, chat: GroupID) {
        var (bob, m, _, chat) = try await RaceFixtures.v1(url, aIsAdmin: false)
        let update = try m.commit { try RaceFixtures.v1SelfUpdate(&$0) }
        var group = try #require(m.group)
        let sealed = try group.encrypt(try ChatRumor(author: m.publicKey, content: text).plaintext)
        m.group = group
        #expect(try await RelayReads.publish(try m.event(sealed), to: url).isAccepted)
        let client = bob.client, id = chat
        try await waitUntil("the early message parked") { await client.parkedCountForTesting(id) == 1 }

        let h = try #require(m.nostrGroupID).hex
        for _ in 0..<RaceFixtures.options.parkedEventLimit {
            await bob.client.deliverForTesting(try RaceFixtures.junk(h: h))
        }
        #expect(await client.parkedCountForTesting(id) == RaceFixtures.options.parkedEventLimit)
        if offlineFirst { await bob.pool.disconnect() }
        await bob.client.deliverForTesting(try m.event(update.message, epochOf: update.before))
        return (bob, m, chat)
    }
}
