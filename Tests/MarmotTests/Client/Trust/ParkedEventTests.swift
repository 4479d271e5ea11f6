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
    /// knows the `h` tag then sends a parked-list's worth of junk, which pushes it out. It is not
    /// lost: the next catch-up (a restart) fetches it again and it opens. Before the fix it was
    /// recorded as processed when it did not decrypt, so it was never tried again.
    @Test func junkCannotEvictAnEarlyMessageForGood() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        var (bob, m, _, chat) = try await RaceFixtures.v1(url, aIsAdmin: false)
        let update = try m.commit { try RaceFixtures.v1SelfUpdate(&$0) }
        var group = try #require(m.group)
        let sealed = try group.encrypt(try ChatRumor(author: m.publicKey, content: "early bird").plaintext)
        m.group = group
        #expect(try await RelayReads.publish(try m.event(sealed), to: url).isAccepted)
        let client = bob.client, id = chat
        try await waitUntil("the early message parked") { await client.parkedCountForTesting(id) == 1 }

        let h = try #require(m.nostrGroupID).hex
        for _ in 0..<RaceFixtures.options.parkedEventLimit {
            await bob.client.deliverForTesting(try RaceFixtures.junk(h: h))
        }
        await bob.client.deliverForTesting(try m.event(update.message, epochOf: update.before))
        #expect(await bob.epochState(chat)?.authenticator == m.group?.epochAuthenticator)

        bob = try await bob.restarted()
        #expect(try await bob.waitForMessage("early bird").sender == m.publicKey)
        await bob.shutdown()
        await server.stop()
    }

    /// Relays do not keep a group's order (a catch-up cut short by its timer hands stored events
    /// over newest first): Alice gets Bob's message, then Bob's commit of Carol's leave, then Carol's
    /// SelfRemove proposal. The commit waits, parked, for its proposal and applies when it comes, so
    /// Alice neither drops it for good nor commits the leave herself and forks (found by a CI run).
    @Test func aCommitThatArrivesBeforeItsProposalWaitsForIt() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, carol, id) = try await V2Fixtures.trio(url)
        let h = try #require(try await alice.client.chat(id)).nostrGroupID.hex
        let filter = Filter(kinds: [.groupMessage], tags: ["h": [h]])
        let before = Set(try await RelayReads.fetch(filter, from: url).map(\.id))
        await alice.pool.disconnect()

        let leave = try await carol.client.leaveGroup(id)
        _ = try await bob.waitForCommit(epoch: 4, by: bob.publicKey)
        let sent = try await bob.client.send(text: "after carol left", to: id)
        let messageID = try #require(sent.message.outerEventID)
        let fresh = try await RelayReads.fetch(filter, from: url).filter { !before.contains($0.id) }
        let proposal = try #require(fresh.first { $0.id == leave.eventID })
        let message = try #require(fresh.first { $0.id == messageID })
        let commit = try #require(fresh.first { $0.id != proposal.id && $0.id != message.id }, "\(fresh.count) new events")

        for event in [message, commit, proposal] { await alice.client.deliverForTesting(event) }
        _ = try await alice.waitForMessage("after carol left")
        #expect(await alice.epochState(id)?.authenticator == (await bob.epochState(id))?.authenticator)
        #expect(Set(try #require(try await alice.client.chat(id)).members) == [alice.publicKey, bob.publicKey])
        await alice.shutdown()
        await bob.shutdown()
        await carol.shutdown()
        await server.stop()
    }
}
