import Foundation
import MLS
import Nostr
import NostrClient
import NostrRelay
import TestSupport
import Testing
@testable import Marmot

/// Outbound work while a group is not settled (issue 24; MDK 0.9.14 "Outbound Intents"): our
/// messages and changes wait, durable, while the group is syncing or resolving, and are made on
/// the state it settled on; the wait is bounded so an event that never comes cannot silence a chat.
@Suite(.serialized, .timeLimit(.minutes(3))) struct OutboundIntentTests {
    /// Admin M's removal of A reaches Bob before its proposal: Bob's group is syncing. Bob's message
    /// stays queued (pending, not encrypted) until the proposal comes; then it is encrypted on the
    /// epoch the removal made, and M opens it with that epoch's key.
    @Test func aMessageSentWhileSyncingIsMadeOnTheStateTheGroupSettlesOn() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let fixture = try await RaceFixtures.v1WaitingForProposal(url)
        let (bob, chat, proposalEvent) = (fixture.bob, fixture.chat, fixture.proposal)
        var m = fixture.m
        #expect(await bob.client.convergence(of: chat) == .syncing(waiting: 1))

        let client = bob.client, id = chat
        let sending = Task { try await client.send(text: "after the removal", to: id) }
        try await waitUntil("the message is queued") {
            (try? await client.messages(in: id).messages.contains { $0.content == "after the removal" }) == true
        }
        try await Task.sleep(for: .milliseconds(400))
        let queued = try #require(try await client.messages(in: chat).messages.first { $0.content == "after the removal" })
        #expect(queued.deliveryState == .pending)
        #expect(queued.outerEventID == nil, "encrypted while the group was still syncing")

        await bob.client.deliverForTesting(proposalEvent)
        let sent = try await sending.value
        #expect(sent.message.deliveryState == .sent)
        let settledEpoch = try #require(m.group?.epoch)
        #expect(await bob.epochState(chat)?.epoch == settledEpoch)
        let event = try await Self.published(sent, on: url)
        #expect(try await client.epochOfEventForTesting(event, in: chat) == settledEpoch)
        guard case .application(let opened) = try m.process(event) else {
            Issue.record("M did not open Bob's message as an application message")
            return
        }
        #expect(opened.epoch == settledEpoch)
        await bob.shutdown()
        await server.stop()
    }

    /// Bob wants to rotate his leaf while M's commit waits for its proposal. Made at once, his commit
    /// would race M's for the same epoch; made as an intent, it waits, and once M's commit applied
    /// it is built on top of it: one history, two epochs further.
    @Test func aChangeAskedForWhileSyncingIsBuiltAfterTheWaitingCommit() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (bob, m, a, chat, proposalEvent) = try await RaceFixtures.v1WaitingForProposal(url)
        let start = try #require(await bob.epochState(chat)?.epoch)
        #expect(start + 1 == m.group?.epoch)
        #expect(await bob.client.convergence(of: chat) == .syncing(waiting: 1))

        let client = bob.client, id = chat
        let rotating = Task { try await client.selfUpdate(id) }
        try await Task.sleep(for: .milliseconds(400))
        #expect(await bob.epochState(chat)?.epoch == start, "committed while the group was syncing")
        await bob.client.deliverForTesting(proposalEvent)
        let outcome = try await rotating.value
        #expect(outcome.epoch == start + 2)
        #expect(try await bob.client.chat(chat)?.members.contains(a.publicKey) == false)
        #expect(await bob.client.convergence(of: chat) == .settled)
        await bob.shutdown()
        await server.stop()
    }

    /// Alice's self-update is stored and unconfirmed (the relay has not seen it yet): her group is
    /// resolving. Her message waits; when the relay brings the commit back, it merges and the
    /// message goes out on the new epoch, and Bob reads it there.
    @Test func aMessageSentWhileResolvingGoesOutOnOurConfirmedCommit() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, chat, _) = try await TwoClientTests.establish(relay: url)
        let start = try #require(await alice.epochState(chat.id)?.epoch)
        try await alice.client.stageSelfUpdateForTesting(chat.id)
        #expect(await alice.client.convergence(of: chat.id) == .resolving(pendingCommits: 1))

        let client = alice.client
        let sending = Task { try await client.send(text: "after my rotation", to: chat.id) }
        try await Task.sleep(for: .milliseconds(400))
        let queued = try #require(try await client.messages(in: chat.id).messages.first { $0.content == "after my rotation" })
        #expect(queued.outerEventID == nil, "encrypted while our commit was unconfirmed")

        let staged = try #require(try await alice.client.pendingCommitEventForTesting(chat.id))
        #expect(try await RelayReads.publish(staged, to: url).isAccepted)
        let sent = try await sending.value
        #expect(sent.message.deliveryState == .sent)
        #expect(await alice.epochState(chat.id)?.epoch == start + 1)
        let event = try await Self.published(sent, on: url)
        #expect(try await client.epochOfEventForTesting(event, in: chat.id) == start + 1)
        _ = try await bob.waitForMessage("after my rotation")
        #expect(await bob.epochState(chat.id)?.epoch == start + 1)
        await alice.shutdown()
        await bob.shutdown()
        await server.stop()
    }

    /// A commit of ours that never gets confirmed does not silence the chat: after
    /// `outboundHoldLimit` the message goes out on the state we have, and Bob reads it.
    @Test func theWaitIsBoundedWhenTheGroupDoesNotSettle() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        var options = ClientHarness.options
        options.outboundHoldLimit = .milliseconds(300)
        let (alice, bob, chat, _) = try await TwoClientTests.establish(relay: url, aliceOptions: options)
        let start = try #require(await alice.epochState(chat.id)?.epoch)
        try await alice.client.stageSelfUpdateForTesting(chat.id)

        let sent = try await alice.client.send(text: "still here", to: chat.id)
        #expect(sent.message.deliveryState == .sent)
        #expect(await alice.client.convergence(of: chat.id) == .resolving(pendingCommits: 1))
        let event = try await Self.published(sent, on: url)
        #expect(try await alice.client.epochOfEventForTesting(event, in: chat.id) == start)
        _ = try await bob.waitForMessage("still here")
        await alice.shutdown()
        await bob.shutdown()
        await server.stop()
    }

    /// The kind-445 event a sent message went out as, read back from the relay.
    private static func published(_ sent: SentMessage, on url: String) async throws -> Event {
        let id = try #require(sent.message.outerEventID)
        return try #require(try await RelayReads.fetch(Filter(ids: [id]), from: url).first)
    }
}

extension MarmotClient {
    /// The epoch whose group-event key opens `event` of group `id` (the epoch it was made in).
    func epochOfEventForTesting(_ event: Event, in id: GroupID) throws -> UInt64? {
        let session = try session(id)
        let validated = try session.rules.validateEnvelope(event, now: now(), window: options.eventWindow)
        return session.eventKeys.first { (try? validated.decrypt(tryingKeys: [$0.key])) != nil }?.epoch
    }

    /// The event of our pending commit in `id`, as it would be published.
    func pendingCommitEventForTesting(_ id: GroupID) throws -> Event? {
        try loadPendingCommit(id)?.event
    }
}
