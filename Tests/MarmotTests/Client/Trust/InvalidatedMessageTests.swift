import Foundation
import MLS
import Nostr
import NostrClient
import TestSupport
import Testing
@testable import Marmot

/// Messages of a branch the group abandons (issue 24): kept, marked invalidated, reported.
@Suite(.serialized, .timeLimit(.minutes(2))) struct InvalidatedMessageTests {
    /// Bob applies E's self-update (epoch 2) and reads E's message "on E's branch" there.
    static func readOnESelfUpdate(_ bob: TestAccount, _ e: inout V2HostileParty, _ chat: GroupID) async throws -> StoredMessage {
        let keys = e.keys
        let update = try e.commit { try RaceFixtures.v2SelfUpdate(&$0, keys: keys) }
        await bob.client.deliverForTesting(try e.event(update.message, epochOf: update.before))
        #expect(await bob.epochState(chat)?.epoch == 2)
        await bob.client.deliverForTesting(try e.event(try e.chat("on E's branch")))
        let read = try await bob.waitForMessage("on E's branch")
        #expect(read.deliveryState == .received)
        return read
    }

    /// v2 (MDK 0.9.14 branch selection): Bob applies E's self-update and reads E's message on that
    /// branch. Admin M's rename of the same epoch then arrives with the better key (privileged), but
    /// E's branch carries traffic and M's none, so Bob stays (witness score). M's own message on its
    /// branch then evens the traffic and the keys decide: Bob moves to M's branch, and E's message,
    /// which M and everyone on M's branch never had, is kept marked invalidated.
    @Test func messageOfTheLosingBranchIsMarkedInvalidated() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        var (bob, m, e, chat) = try await RaceFixtures.v2(url, bobIsAdmin: false)
        let read = try await Self.readOnESelfUpdate(bob, &e, chat)

        let rename = try m.commit { try RaceFixtures.v2Rename(&$0, to: "M's branch") }
        await bob.client.deliverForTesting(try m.event(rename.message, epochOf: rename.before))
        #expect(try await bob.client.chat(chat)?.name != "M's branch", "traffic on E's branch outweighs the better key")
        #expect(await bob.epochState(chat)?.authenticator == e.group?.epochAuthenticator)

        let hello = try m.chat("on M's branch")
        await bob.client.deliverForTesting(try m.event(hello))
        #expect(try await bob.client.chat(chat)?.name == "M's branch")
        #expect(await bob.epochState(chat)?.authenticator == m.group?.epochAuthenticator)
        let reported = await bob.inbox.first(timeout: 30) {
            if case .messagesInvalidated(_, let ids) = $0 { ids == [read.rumorID] } else { false }
        }
        #expect(reported != nil)
        #expect(try await bob.waitForMessage("on M's branch").deliveryState == .received)
        #expect(try bob.store.message(mlsGroupID: chat, rumorID: read.rumorID)?.deliveryState == .invalidated)
        await bob.shutdown()
        await server.stop()
    }

    /// A restart of Bob between his reading (and writing) on E's branch and M's three renames
    /// arriving (a deeper branch from the same epoch): after the switch, E's message is marked
    /// invalidated and Bob's own is sent again on M's branch (a new outer event), though what he
    /// read and sent before the fork was known lived in the run before.
    @Test func aRestartBeforeTheForkForgetsNeitherWhatToMarkNorWhatToSendAgain() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        var (bob, m, e, chat) = try await RaceFixtures.v2(url, bobIsAdmin: false)
        let read = try await Self.readOnESelfUpdate(bob, &e, chat)
        let mine = try await bob.client.send(text: "mine on E's branch", to: chat)
        let firstCarrier = try #require(try bob.store.message(mlsGroupID: chat, rumorID: mine.message.rumorID)?.outerEventID)
        bob = try await bob.restarted()

        // M's branch ends deeper than E's with its witness boost (1 + 1): the group takes it.
        for name in ["M's branch", "M's branch, deeper", "M's branch, deepest"] {
            let rename = try m.commit { try RaceFixtures.v2Rename(&$0, to: name) }
            await bob.client.deliverForTesting(try m.event(rename.message, epochOf: rename.before))
        }
        #expect(try await bob.client.chat(chat)?.name == "M's branch, deepest")
        #expect(try bob.store.message(mlsGroupID: chat, rumorID: read.rumorID)?.deliveryState == .invalidated)
        let store = bob.store, rumorID = mine.message.rumorID, group = chat
        try await waitUntil("our message is sent again on the branch the group took", timeout: 20) {
            (try? store.message(mlsGroupID: group, rumorID: rumorID))??.outerEventID != firstCarrier
        }
        await bob.shutdown()
        await server.stop()
    }
    /// A branch switch that a parked event makes sends our messages again too: M's b2, made on
    /// b1, reaches Bob before b1 and waits; Bob is on M's a1 with his own message there, its
    /// witness, so b1 loses to a1 when it comes and is kept; b2 then opens on it from the parked
    /// list, and B, deeper now, is taken. Before, a parked event's effects were dropped, so Bob's
    /// message stayed on the branch nobody is on.
    @Test func aSwitchMadeByAParkedEventSendsOurMessageAgain() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (bob, m, _, chat) = try await RaceFixtures.v2(url, bobIsAdmin: false)
        let root = try #require(m.group)
        var onA = root, onB = root
        let a1 = try RaceFixtures.v2Rename(&onA, to: "a1")
        await bob.client.deliverForTesting(try m.event(a1.message, epochOf: root))
        #expect(try await bob.client.chat(chat)?.name == "a1")
        let mine = try await bob.client.send(text: "mine on A", to: chat)
        let b1 = try RaceFixtures.v2Rename(&onB, to: "b1")
        var deeper = b1.newGroup
        let b2 = try RaceFixtures.v2Rename(&deeper, to: "b2")
        await bob.client.deliverForTesting(try m.event(b2.message, epochOf: b1.newGroup))
        #expect(try await bob.client.chat(chat)?.name == "a1", "b2 waits for b1")
        await bob.client.deliverForTesting(try m.event(b1.message, epochOf: root))
        #expect(try await bob.client.chat(chat)?.name == "b2")
        let store = bob.store, rumorID = mine.message.rumorID, group = chat, first = mine.message.outerEventID
        try await waitUntil("Bob sends his message again on B", timeout: 20) {
            (try? store.message(mlsGroupID: group, rumorID: rumorID))??.outerEventID != first
        }
        await bob.shutdown()
        await server.stop()
    }
}
