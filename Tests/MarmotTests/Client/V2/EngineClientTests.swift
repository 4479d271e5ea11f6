import Foundation
import GRDB
import MarmotWire
import MLS
import Nostr
import NostrRelay
import Testing
import TestSupport
@testable import Marmot

/// v2 groups on the group engine in the client (`MarmotClient+Engine`, issue 24): a group stored
/// before the engine moves onto it at start, and the group's state lives in the engine's rows only.
@Suite(.timeLimit(.minutes(2)))
struct EngineClientTests {
    /// Bob's v2 group as a client before the engine kept it (its state in the group's row, no
    /// engine rows): at the next start it moves onto an engine anchored at that state, the row's
    /// copy of the state goes, and the chat carries on both ways.
    @Test func aV2GroupStoredBeforeTheEngineMovesOntoItAtStart() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, first, id) = try await V2Fixtures.oneToOne(url)
        var bob = first
        _ = try await alice.client.send(text: "before the move", to: id)
        _ = try await bob.waitForMessage("before the move")
        let tip = try #require(await bob.client.epochStateForTesting(id))
        #expect(await bob.client.engines[id] != nil, "a new v2 group is on the engine from the start")
        #expect(try bob.store.group(mlsGroupID: id)?.mlsState.isEmpty == true, "its row keeps no state")

        // Put the store back as a client before the engine left it: the state in the row, no rows.
        let state = try #require(await bob.client.engines[id]?.state)
        await bob.shutdown()
        let store = try GRDBMarmotStore(
            path: bob.databasePath, key: StorageKey(deriving: bob.keys.secretKey, installationSecret: ClientHarness.installationSecret))
        var row = try #require(try store.group(mlsGroupID: id))
        row.setState(state)
        try store.saveGroup(row)
        try store.write { db in try db.execute(sql: "DELETE FROM engines_v2") }
        #expect(try store.engineRows(mlsGroupID: id) == nil)
        try store.close()

        bob = try await bob.restarted()
        #expect(await bob.client.epochStateForTesting(id)?.authenticator == tip.authenticator)
        #expect(try bob.store.group(mlsGroupID: id)?.mlsState.isEmpty == true, "the state moved into the engine's rows")
        #expect(try bob.store.engineRows(mlsGroupID: id) != nil)
        _ = try await alice.client.send(text: "after the move", to: id)
        _ = try await bob.waitForMessage("after the move")
        _ = try await bob.client.send(text: "bob after the move", to: id)
        _ = try await alice.waitForMessage("bob after the move")
        _ = try await alice.client.updateGroupData(id, name: "renamed after the move")
        let moved = bob.client
        try await waitUntil("bob takes the rename") { (try? await moved.chat(id))??.name == "renamed after the move" }
        #expect(await alice.epochState(id)?.authenticator == (await bob.epochState(id))?.authenticator)
        await alice.shutdown()
        await bob.shutdown()
        await server.stop()
    }

    /// An input whose outputs cannot be kept (the store refused to write its message) is undone:
    /// Bob's engine and its rows stay as they were, and the same message taken again shows.
    @Test func anInputWhoseOutputsCannotBeKeptIsUndone() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, id) = try await V2Fixtures.oneToOne(url)
        var copy = try #require(await alice.client.engines[id])
        let rumor = try ChatRumor(author: alice.publicKey, content: "kept at the second try", createdAt: UnsignedEvent.now())
        let bytes = try copy.encrypt(rumor)
        let before = try #require(await bob.client.engines[id]).record.encoded()
        await #expect(throws: StorageError.self) { _ = try await bob.client.engineStepForTesting(id, bytes, failing: true) }
        #expect(try #require(await bob.client.engines[id]).record.encoded() == before, "the engine is as it was")
        #expect(try bob.store.engineRows(mlsGroupID: id)?.record().encoded() == before, "and so are its rows")
        #expect(try bob.store.message(mlsGroupID: id, rumorID: rumor.id) == nil)
        let outputs = try await bob.client.engineStepForTesting(id, bytes, failing: false)
        #expect(outputs.contains { if case .application(_, let shown, _, _, _) = $0 { shown.id == rumor.id } else { false } })
        #expect(try bob.store.message(mlsGroupID: id, rumorID: rumor.id)?.deliveryState == .received)
        await alice.shutdown()
        await bob.shutdown()
        await server.stop()
    }

    /// v2: the relay stores Alice's self-update and tells Bob, but never answers OK. Her engine
    /// keeps the commit unconfirmed instead of dropping it, and when the relay gives it back (to
    /// her subscription) it is adopted as ours: no fork, both carry on.
    @Test func anUnconfirmedCommitIsAdoptedWhenARelayGivesItBack() async throws {
        let withhold = FaultSwitch()
        let (server, url) = try await ClientHarness.startRelay {
            $0.faults = RelayFaults(withholdOK: { event in event.kind == .groupMessage && withhold.isOn })
        }
        let (alice, bob, id) = try await V2Fixtures.oneToOne(url)
        withhold.isOn = true
        await #expect(throws: MarmotClientError.self) { _ = try await alice.client.selfUpdate(id) }
        withhold.isOn = false
        #expect(try await bob.waitForCommit(epoch: 3, by: alice.publicKey) == alice.publicKey)
        #expect(try await alice.waitForCommit(epoch: 3, by: alice.publicKey) == alice.publicKey)
        _ = try await bob.client.send(text: "on the new epoch", to: id)
        _ = try await alice.waitForMessage("on the new epoch")
        #expect(await alice.client.convergence(of: id) == .settled)
        #expect(await alice.epochState(id)?.authenticator == (await bob.epochState(id))?.authenticator)
        _ = try await alice.client.send(text: "me too", to: id)
        _ = try await bob.waitForMessage("me too")
        await alice.shutdown()
        await bob.shutdown()
        await server.stop()
    }

    /// v2: Alice's process dies after her engine took her commit and before publishing it. At the
    /// restart she publishes it and confirms it on the relay's OK; Bob follows.
    @Test func aCommitInterruptedBeforePublishingIsSentAfterRestart() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (first, bob, id) = try await V2Fixtures.oneToOne(url)
        var alice = first
        try await alice.client.stageEngineSelfUpdateForTesting(id)
        #expect(await alice.client.convergence(of: id) == .resolving(pendingCommits: 1))
        alice = try await alice.restarted()
        #expect(try await alice.waitForCommit(epoch: 3, by: alice.publicKey) == alice.publicKey)
        #expect(try await bob.waitForCommit(epoch: 3, by: alice.publicKey) == alice.publicKey)
        #expect(await alice.client.convergence(of: id) == .settled)
        #expect(await alice.epochState(id)?.authenticator == (await bob.epochState(id))?.authenticator)
        _ = try await bob.client.send(text: "after the restart", to: id)
        _ = try await alice.waitForMessage("after the restart")
        await alice.shutdown()
        await bob.shutdown()
        await server.stop()
    }
}

extension MarmotClient {
    /// One MLS message through `engineStep`, its outputs taken as an event's are, unless
    /// `failing`: then taking them throws, as a store refusing the write would.
    func engineStepForTesting(_ id: GroupID, _ bytes: Data, failing: Bool) throws -> [EngineOutput] {
        let before = try session(id)
        return try engineStep(id, { engine in engine.receive(bytes) + engine.settle() }) { outputs, engine in
            if failing { throw StorageError.corruptRow("the disk refused the write") }
            _ = try takeOutputs(outputs, engine: engine, before: before, event: nil, carried: nil)
        }
    }

    /// Builds a self-update in an engine group and writes the engine's rows, then stops before
    /// publishing it, as a process killed there would.
    func stageEngineSelfUpdateForTesting(_ id: GroupID) throws {
        var engine = try #require(engines[id])
        _ = try engine.commit(rotateSigner: true)
        try engineStore.saveEngineChanges(engine.takeChanges(), mlsGroupID: id)
        engines[id] = engine
    }
}
