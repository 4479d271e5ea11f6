import Foundation
import MLS
import Nostr
import NostrClient
import NostrRelay
import TestSupport
import Testing
@testable import Marmot

/// Each group's convergence status (issue 24, MDK 0.9.14 `ConvergenceStatus`): what the client
/// reports while events wait, while a commit of ours is unconfirmed, and once all is settled.
@Suite(.serialized, .timeLimit(.minutes(3))) struct ConvergenceStatusTests {
    /// Admin M's commit of A's removal reaches Bob before the proposal it commits by reference:
    /// Bob's group is syncing, one message waiting. When the proposal comes, the commit applies and
    /// the group is settled again; each change was reported as it happened.
    @Test func aCommitWaitingForItsProposalIsSyncingUntilItComes() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (bob, m, a, chat, proposalEvent) = try await RaceFixtures.v1WaitingForProposal(url)
        #expect(await bob.client.convergence(of: chat) == .syncing(waiting: 1))
        #expect(try await bob.waitForConvergence(.syncing(waiting: 1), in: chat))

        await bob.client.deliverForTesting(proposalEvent)
        #expect(await bob.client.convergence(of: chat) == .settled)
        #expect(try await bob.waitForConvergence(.settled, in: chat))
        #expect(await bob.epochState(chat)?.authenticator == m.group?.epochAuthenticator)
        #expect(try await bob.client.chat(chat)?.members.contains(a.publicKey) == false)
        await bob.shutdown()
        await server.stop()
    }

    /// A race settled with traffic on the losing branch: Bob is on M's branch A (two renames),
    /// M's rename b1 from the same epoch and M's message on it come after. The message is held
    /// there (it is shown if B ever wins) and the group is settled, as in MDK 0.9.14, so Bob's
    /// next message goes out at once. Before, the held message counted as waiting: the group
    /// stayed syncing and every send waited out the outbound hold.
    @Test func aMessageHeldOnALosingBranchLeavesTheGroupSettled() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        var (bob, m, _, chat) = try await RaceFixtures.v2(url, bobIsAdmin: false)
        let root = try #require(m.group)
        var onA = root
        for name in ["a1", "a2"] {
            let before = onA
            let rename = try RaceFixtures.v2Rename(&onA, to: name)
            onA = rename.newGroup
            await bob.client.deliverForTesting(try m.event(rename.message, epochOf: before))
        }
        let b1 = try m.commit { try RaceFixtures.v2Rename(&$0, to: "b1") }
        await bob.client.deliverForTesting(try m.event(b1.message, epochOf: b1.before))
        await bob.client.deliverForTesting(try m.event(try m.chat("on B")))
        #expect(try await bob.client.chat(chat)?.name == "a2")
        #expect(await bob.client.convergence(of: chat) == .settled)
        let after = try await bob.client.send(text: "after the race", to: chat)
        #expect(after.message.outerEventID != nil, "sent at once")
        await bob.shutdown()
        await server.stop()
    }

    /// M's commit for epoch 1 applies; the snapshot of epoch 1 is then gone (aged out), and M sends a
    /// competing commit for epoch 1. Nothing can weigh it against ours: Bob's group is blocked, says
    /// why, and stays on its branch. M's next commit on that branch applies and lifts it.
    @Test func aCompetingCommitBeyondTheKeptSnapshotsBlocksUntilTheGroupMovesOn() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        var (bob, m, _, chat) = try await RaceFixtures.v1(url, aIsAdmin: false)
        let before = try #require(m.group)
        var other = before
        let competing = try RaceFixtures.v1SelfUpdate(&other)
        let first = try m.commit { try RaceFixtures.v1SelfUpdate(&$0) }
        await bob.client.deliverForTesting(try m.event(first.message, epochOf: first.before))
        #expect(await bob.epochState(chat)?.epoch == 2)
        try await bob.client.forgetSnapshotForTesting(chat, epoch: 1)

        await bob.client.deliverForTesting(try m.event(competing.message, epochOf: before))
        guard case .blocked(let why) = await bob.client.convergence(of: chat) else {
            Issue.record("not blocked: \(await bob.client.convergence(of: chat))")
            return
        }
        #expect(why.contains("epoch 1"))
        #expect(await bob.epochState(chat)?.authenticator == m.group?.epochAuthenticator)

        let next = try m.commit { try RaceFixtures.v1SelfUpdate(&$0) }
        await bob.client.deliverForTesting(try m.event(next.message, epochOf: next.before))
        #expect(await bob.epochState(chat)?.epoch == 3)
        #expect(await bob.client.convergence(of: chat) == .settled)
        await bob.shutdown()
        await server.stop()
    }

    /// Junk on the group's `h` tag (events nobody can open) never makes the group look unsettled:
    /// anyone who knows the tag can send it.
    @Test func junkThatDoesNotOpenLeavesTheGroupSettled() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (bob, m, _, chat) = try await RaceFixtures.v1(url, aIsAdmin: false)
        let h = try #require(m.nostrGroupID).hex
        for _ in 0..<5 {
            await bob.client.deliverForTesting(try RaceFixtures.junk(h: h))
        }
        let client = bob.client, id = chat
        try await waitUntil("the junk parked") { await client.parkedCountForTesting(id) == 5 }
        #expect(await bob.client.convergence(of: chat) == .settled)
        await bob.shutdown()
        await server.stop()
    }
}

extension TestAccount {
    /// Waits for the client to report `status` for `chat`; true when it did.
    func waitForConvergence(_ status: ConvergenceStatus, in chat: GroupID, timeout: Double = 30) async throws -> Bool {
        let event = await inbox.first(timeout: timeout) {
            if case .convergenceChanged(let c, let s) = $0 { c.id == chat && s == status } else { false }
        }
        guard case .convergenceChanged = event else { throw HarnessError.timeout("\(name): convergence \(status)") }
        return true
    }
}
