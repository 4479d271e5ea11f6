import Foundation
import MLS
import Nostr
import NostrClient
import NostrRelay
import TestSupport
import Testing
@testable import Marmot

/// Commits under attack or lost in transit: hostile members (threats 2 and 3) and relays that
/// re-sign, re-date or never answer (threat 4).
@Suite(.serialized, .timeLimit(.minutes(3))) struct CommitTrustTests {
    /// Admins M and A, and Bob. A removes M. M, still holding the state of the epoch where it was
    /// admin, publishes a competing commit for that epoch that removes A and is dated earlier, so
    /// the race rule alone would prefer it. Bob refuses it: M is no longer a member on his branch
    /// and the commit needs admin rights. Before the fix Bob rolled back onto M's branch.
    @Test func removedAdminCannotSteerUsBackWithAnOldSnapshot() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let fixture = try await RaceFixtures.v1(url, aIsAdmin: true)
        let (bob, chat) = (fixture.bob, fixture.chat)
        var m = fixture.m, a = fixture.a

        let mLeaf = try #require(a.group?.members.first { NostrIdentity.publicKey($0.credential) == m.publicKey }?.leafIndex)
        let aLeaf = try #require(m.group?.members.first { NostrIdentity.publicKey($0.credential) == a.publicKey }?.leafIndex)
        let now = UnsignedEvent.now()
        let removal = try a.commit { try $0.commit(removing: [mLeaf]) }
        #expect(try await RelayReads.publish(try a.event(removal.message, createdAt: now, epochOf: removal.before), to: url)
            .isAccepted)
        #expect(try await bob.waitForCommit(epoch: 2, by: a.publicKey) == a.publicKey)
        #expect(try await bob.client.chat(chat)?.members.contains(m.publicKey) == false)

        // M's counter-commit for epoch 1, dated a minute earlier.
        let counter = try m.commit { try $0.commit(removing: [aLeaf]) }
        let counterEvent = try m.event(counter.message, createdAt: now - 60, epochOf: counter.before)
        #expect(try await RelayReads.publish(counterEvent, to: url).isAccepted)
        let (dropped, reason) = try await bob.waitForDrop { if case .refusedCompetingCommit = $0 { true } else { false } }
        #expect(dropped == counterEvent.id)
        #expect(reason.description.contains("not a member on our branch"))
        let after = try #require(try await bob.client.chat(chat))
        #expect(after.epoch == 2)
        #expect(Set(after.members) == [a.publicKey, bob.publicKey])

        // A's branch still works: A writes at epoch 2 and Bob reads it.
        var writer = a
        let rumor = try ChatRumor(author: a.publicKey, content: "still here")
        let sealed = try #require(try { () throws -> MLSMessage in
            var group = try #require(writer.group)
            let message = try group.encrypt(rumor.plaintext)
            writer.group = group
            return message
        }())
        #expect(try await RelayReads.publish(try writer.event(sealed), to: url).isAccepted)
        #expect(try await bob.waitForMessage("still here").sender == a.publicKey)
        await bob.shutdown()
        await server.stop()
    }

    /// The relay stores Alice's self-update and tells Bob, but never answers OK. Alice must not
    /// throw the commit away (Bob is already on it): it stays pending, and its echo from the relay
    /// merges it. Before the fix Alice discarded it and could no longer read Bob. Meanwhile Alice's
    /// group reports itself resolving (issue 24's convergence status), and settled once merged.
    @Test func unconfirmedOwnCommitIsKeptUntilARelayProvesIt() async throws {
        let withhold = FaultSwitch()
        var configuration = RelayConfiguration()
        configuration.faults = RelayFaults(withholdOK: { event in event.kind == .groupMessage && withhold.isOn })
        let server = RelayServer(configuration: configuration, logger: ClientHarness.logger("relay"))
        let url = "ws://127.0.0.1:\(try await server.start())"
        let (alice, bob, chat, _) = try await TwoClientTests.establish(relay: url)

        withhold.isOn = true
        await #expect(throws: MarmotClientError.self) { _ = try await alice.client.selfUpdate(chat.id) }
        withhold.isOn = false
        #expect(try await alice.waitForConvergence(.resolving(pendingCommits: 1), in: chat.id))
        #expect(try await bob.waitForCommit(epoch: 3, by: alice.publicKey) == alice.publicKey)
        #expect(try await alice.waitForCommit(epoch: 3, by: alice.publicKey) == alice.publicKey)
        #expect(await alice.client.convergence(of: chat.id) == .settled)
        #expect(await alice.epochState(chat.id)?.authenticator == bob.epochState(chat.id)?.authenticator)
        _ = try await bob.client.send(text: "on the new epoch", to: chat.id)
        _ = try await alice.waitForMessage("on the new epoch")
        _ = try await alice.client.send(text: "me too", to: chat.id)
        _ = try await bob.waitForMessage("me too")
        await alice.shutdown()
        await bob.shutdown()
        await server.stop()
    }

    /// Alice's process dies after storing her commit and before publishing it. On restart she
    /// publishes it, merges it on the relay's OK, and Bob follows: no fork, no lost commit.
    @Test func commitInterruptedBeforePublishingIsSentAfterRestart() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        var (alice, bob, chat, _) = try await TwoClientTests.establish(relay: url)
        try await alice.client.stageSelfUpdateForTesting(chat.id)
        #expect(await alice.epochState(chat.id)?.epoch == 2)
        alice = try await alice.restarted()
        #expect(try await alice.waitForCommit(epoch: 3, by: alice.publicKey) == alice.publicKey)
        #expect(try await bob.waitForCommit(epoch: 3, by: alice.publicKey) == alice.publicKey)
        #expect(await alice.epochState(chat.id)?.authenticator == bob.epochState(chat.id)?.authenticator)
        _ = try await bob.client.send(text: "after the restart", to: chat.id)
        _ = try await alice.waitForMessage("after the restart")
        await alice.shutdown()
        await bob.shutdown()
        await server.stop()
    }
}

extension MarmotClient {
    /// Does what `publishCommit` does up to the moment it would publish (state, processed record,
    /// pending-commit record), then stops, as a process killed there would.
    func stageSelfUpdateForTesting(_ id: GroupID) throws {
        let session = try session(id)
        var mls = session.mls
        let pending = try mls.selfUpdate(signerRotation: SignerRotation(signer: .generate()))
        let event = try GroupEvent.build(
            mlsMessage: pending.message.tlsSerialized, nostrGroupID: session.stored.nostrGroupID,
            key: try session.currentEventKey(), createdAt: now())
        try persist(mls, for: id)
        try store.recordProcessedEvent(ProcessedEvent(eventID: event.id, outcome: .own, processedAt: now(), mlsGroupID: id))
        try savePendingCommit(
            PendingOwnCommit(
                epoch: mls.epoch, preState: mls.serialized(), newState: pending.newGroup.serialized(), event: event,
                notices: [], changesGroupData: false,
                orderingKey: session.rules.orderingKey(pending.summary, message: pending.message, before: mls)),
            group: id)
    }
}
