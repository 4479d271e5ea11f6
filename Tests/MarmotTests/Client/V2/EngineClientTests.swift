import Foundation
import GRDB
import MLS
import Nostr
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
        let alice = try await TestAccount("alice", relayURLs: [url])
        var bob = try await TestAccount("bob", relayURLs: [url])
        _ = try await bob.client.publishKeyPackage(version: .v2)
        let id = try await alice.client.createChat(with: bob.publicKey).chat.id
        _ = try await bob.waitForWelcome()
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
}
