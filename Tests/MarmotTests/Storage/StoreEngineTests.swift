import Foundation
import GRDB
import MLS
import Nostr
import Testing
@testable import Marmot

/// A group engine kept in the store's rows (migration `v8-group-engines`, issue 24): after each
/// input only what moved is written, the rows read back as the engine's record, an engine re-opened
/// from a reopened file carries on, and an older copy of a row put back is refused.
@Suite struct StoreEngineTests {
    typealias Party = GroupEngineTests.Party
    let account = Keys.generate()
    let installation = InstallationSecret.generate()
    var key: StorageKey { StorageKey(deriving: account.secretKey, installationSecret: installation) }

    /// A group row for `engine`'s group (engine rows go with their group).
    func saveGroupRow(of engine: GroupEngine, in store: GRDBMarmotStore) throws {
        try store.saveGroup(StoredGroup(
            mlsGroupID: engine.state.groupID, nostrGroupID: .random(), mlsState: Data("state".utf8), epoch: engine.epoch,
            name: "engine", admins: [account.publicKey], relays: [], createdAt: 1_800_000_000))
    }

    /// Writes the engine's changes and checks the store's rows read back as its whole record.
    func save(_ engine: inout GroupEngine, _ store: GRDBMarmotStore, _ step: String) throws {
        try store.saveEngineChanges(engine.takeChanges(), mlsGroupID: engine.state.groupID)
        let rows = try #require(try store.engineRows(mlsGroupID: engine.state.groupID))
        #expect(try rows.record().encoded() == engine.record.encoded(), "\(step)")
    }

    /// Carol takes a race, messages on both branches, then renames that make the branch she had
    /// not selected win and prune the fork, her changes written after each input; the file is
    /// closed and opened again half-way, and the engine re-opened from it carries on as the one
    /// that never stopped.
    @Test func anEngineWrittenInRowsReopensFromAFileAndCarriesOn() throws {
        let folder = TemporaryStoreFolder()
        defer { folder.remove() }
        let party = try Party(["alice", "bob", "carol"])
        var carol = party.engines["carol"]!
        var store = try GRDBMarmotStore(path: folder.path, key: key)
        try saveGroupRow(of: carol, in: store)
        try save(&carol, store, "joined")

        let race = try party.race()
        let (a1, b1, onA, onB) = (race.a1, race.b1, race.onA, race.onB)
        for (step, bytes) in [("a1", a1.bytes), ("on a1", onA), ("b1", b1.bytes), ("on b1", onB)] {
            _ = carol.receive(bytes)
            _ = carol.settle()
            try save(&carol, store, step)
        }
        try store.close()
        store = try GRDBMarmotStore(path: folder.path, key: key)
        let rows = try #require(try store.engineRows(mlsGroupID: carol.state.groupID))
        var reopened = try GroupEngine(rules: carol.rules, keys: carol.keys, record: try rows.record())
        #expect(reopened.record.encoded() == carol.record.encoded())
        #expect(reopened.receive(onA) == [.duplicate])
        #expect(reopened.takeChanges().isEmpty, "a re-opened engine has nothing new to write")

        // The branch not selected grows and wins on depth: its held message shows and the other's
        // is invalidated (each digest row notes the change), then it goes on and prunes the fork.
        var leader = race.alice.state.epochAuthenticator == carol.state.epochAuthenticator ? race.bob : race.alice
        var switched = false
        for round in 0..<7 {
            let rename = try GroupEngineTests.renameConfirmed(&leader, to: "round \(round)")
            let message = try leader.encrypt("after \(round)", createdAt: 1_800_000_100 + Int64(round))
            for bytes in [rename.bytes, message] {
                EngineChangesTests.clearOfSecondBoundary()
                _ = reopened.receive(bytes)
                let outputs = reopened.settle()
                switched = switched || outputs.contains { if case .branchSwitched = $0 { true } else { false } }
                try save(&reopened, store, "round \(round)")
                _ = carol.receive(bytes)
                _ = carol.settle()
            }
        }
        #expect(switched)
        #expect(reopened.record.encoded() == carol.record.encoded())
        #expect(reopened.graph.nodes.count == 6)
        let counts = try store.read { db in
            try ["engine_states_v2", "engine_nodes_v2"].map { try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \($0)") ?? -1 }
        }
        #expect(counts == [6, 6], "pruned states leave the store")
        try store.close()
    }

    /// A message in a settled group rewrites the secret trees of one state and adds a digest and
    /// a shown message: the state's row and the rest stay as they were.
    @Test func aMessageRewritesOnlyOneStatesSecretTrees() throws {
        let party = try Party(["alice", "bob"])
        var alice = party.engines["alice"]!, bob = party.engines["bob"]!
        let store = try GRDBMarmotStore.inMemory(key: key)
        try saveGroupRow(of: bob, in: store)
        try save(&bob, store, "joined")
        let first = try alice.encrypt("first", createdAt: 1_800_000_001)
        let second = try alice.encrypt("second", createdAt: 1_800_000_002)
        _ = bob.receive(first)
        _ = bob.settle()
        try save(&bob, store, "first")
        let before = try snapshot(store)
        _ = bob.receive(second)
        _ = bob.settle()
        try save(&bob, store, "second")
        let after = try snapshot(store)
        #expect(after["states"] == before["states"] && after["rest"] == before["rest"] && after["witnesses"] == before["witnesses"])
        #expect(after["ratchets"] != before["ratchets"])
        #expect(try store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM engine_seen_v2") } == 2)
    }

    func snapshot(_ store: GRDBMarmotStore) throws -> [String: Data] {
        try store.read { db in
            [
                "states": Data((try String.fetchOne(db, sql: "SELECT group_concat(hex(sealed_state)) FROM engine_states_v2") ?? "").utf8),
                "rest": try Data.fetchOne(db, sql: "SELECT sealed_rest FROM engines_v2") ?? Data(),
                "ratchets": try Data.fetchOne(db, sql: "SELECT sealed_ratchets FROM engine_nodes_v2") ?? Data(),
                "witnesses": try Data.fetchOne(db, sql: "SELECT sealed_witnesses FROM engine_nodes_v2") ?? Data(),
            ]
        }
    }

    /// Someone with the database file but not the key puts back an older copy of a state's secret
    /// trees (whose used keys are gone from the newer one), or of the rest: the engine is not read
    /// back from it. Deleting the group deletes its engine's rows and their version records.
    @Test func anOlderCopyOfARowIsRefusedAndTheEngineGoesWithItsGroup() throws {
        let party = try Party(["alice", "bob"])
        var alice = party.engines["alice"]!, bob = party.engines["bob"]!
        let store = try GRDBMarmotStore.inMemory(key: key)
        try saveGroupRow(of: bob, in: store)
        try save(&bob, store, "joined")
        let old = try snapshot(store)
        _ = bob.receive(try alice.encrypt("moves the secret trees", createdAt: 1_800_000_001))
        _ = bob.settle()
        _ = try bob.encrypt("moves the rest", createdAt: 1_800_000_002)
        try save(&bob, store, "message")

        for (column, table) in [("sealed_ratchets", "engine_nodes_v2"), ("sealed_rest", "engines_v2")] {
            let current = try snapshot(store)
            let name = column == "sealed_ratchets" ? "ratchets" : "rest"
            try store.write { db in try db.execute(sql: "UPDATE \(table) SET \(column) = ?", arguments: [old[name]!]) }
            #expect(throws: StorageError.self, "\(column)") { try store.engineRows(mlsGroupID: bob.state.groupID) }
            try store.write { db in try db.execute(sql: "UPDATE \(table) SET \(column) = ?", arguments: [current[name]!]) }
        }
        // The version column moved back too: refused as a rollback.
        try store.write { db in try db.execute(sql: "UPDATE engine_nodes_v2 SET ratchet_version = ratchet_version - 1") }
        #expect(throws: StorageError.self) { try store.engineRows(mlsGroupID: bob.state.groupID) }
        try store.write { db in try db.execute(sql: "UPDATE engine_nodes_v2 SET ratchet_version = ratchet_version + 1") }
        #expect(try store.engineRows(mlsGroupID: bob.state.groupID) != nil)

        // Changes of an engine never written, and an engine of a group without a row, are refused.
        var other = try EngineRecordTests.renamedByAlice()
        let whole = other.takeChanges()
        #expect(throws: StorageError.self) { try store.saveEngineChanges(whole, mlsGroupID: other.state.groupID) }
        var partial = whole
        partial.rest = nil
        #expect(throws: StorageError.self) { try store.saveEngineChanges(partial, mlsGroupID: other.state.groupID) }

        try store.deleteGroup(mlsGroupID: bob.state.groupID)
        #expect(try store.engineRows(mlsGroupID: bob.state.groupID) == nil)
        let left = try store.read { db in
            try ["engines_v2", "engine_states_v2", "engine_nodes_v2", "engine_seen_v2"]
                .map { try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \($0)") ?? -1 }
        }
        #expect(left == [0, 0, 0, 0])
        #expect(try store.read { db in try GRDBMarmotStore.groupVersions(db, store.codec) } == GroupVersions())
    }

    /// A database sealed under the legacy key is rekeyed with its engines: they read back alike.
    @Test func anEngineIsRekeyedWithItsStore() throws {
        let folder = TemporaryStoreFolder()
        defer { folder.remove() }
        let legacyKey = StorageKey.legacy(deriving: account.secretKey)
        var bob = try EngineRecordTests.renamedByAlice()
        do {
            let store = try GRDBMarmotStore(path: folder.path, key: legacyKey)
            try saveGroupRow(of: bob, in: store)
            try store.saveEngineChanges(bob.takeChanges(), mlsGroupID: bob.state.groupID)
            try store.close()
        }
        let store = try GRDBMarmotStore(path: folder.path, key: key, legacyKey: legacyKey)
        let rows = try #require(try store.engineRows(mlsGroupID: bob.state.groupID))
        #expect(try rows.record().encoded() == bob.record.encoded())
        try store.close()
    }
}
