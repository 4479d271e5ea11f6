import Foundation
import GRDB
import Logging
import MLS
import Nostr
import NostrClient
import Testing
import TestSupport
@testable import Marmot

/// The group engine under the real relay pool (`GroupRuntime`), as it runs under
/// marmot-conformance's deterministic bus (issue 24): three members on an embedded relay race two
/// renames and settle on one history, messages flow through the peeler and the engine, a member
/// restarted from its store's rows carries on, and a member's leave is committed by the others.
@Suite(.timeLimit(.minutes(2)))
struct GroupRuntimeTests {
    /// A member: its runtime, its store and pool, and what its engine reported.
    struct Member {
        let runtime: GroupRuntime
        let store: GRDBMarmotStore
        let pool: RelayPool
        let shown: Inbox<String>
    }

    static func member(_ engine: GroupEngine, url: String, store: GRDBMarmotStore? = nil) async throws -> Member {
        let store = try store ?? GRDBMarmotStore.inMemory(key: StorageKey(deriving: engine.keys.secretKey, installationSecret: .generate()))
        let pool = RelayPool(relays: [url], configuration: ClientHarness.poolConfiguration, logger: ClientHarness.logger("pool"))
        await pool.connect()
        let runtime = try GroupRuntime(engine: engine, store: store, pool: pool, logger: ClientHarness.logger("runtime"))
        return try await started(runtime, store: store, pool: pool)
    }

    static func started(_ runtime: GroupRuntime, store: GRDBMarmotStore, pool: RelayPool) async throws -> Member {
        let shown = Inbox<String>()
        Task {
            for await output in runtime.outputs {
                if case .application(_, let rumor, _, _, _) = output { await shown.put(rumor.content) }
            }
        }
        await runtime.start()
        return Member(runtime: runtime, store: store, pool: pool, shown: shown)
    }

    /// Waits until every member's engine is settled on the same tip.
    static func converged(_ members: [Member]) async throws -> Data {
        try await withTimeout(30, "members converge") {
            while true {
                var tips: Set<Data> = []
                var settled = true
                for member in members {
                    let engine = await member.runtime.engine
                    tips.insert(engine.state.epochAuthenticator)
                    settled = settled && engine.status == .settled
                }
                if tips.count == 1, settled { return tips.first! }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    @Test func membersOnARelayRaceSettleAndARestartedMemberCarriesOn() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let party = try GroupEngineTests.Party(["alice", "bob", "carol"], admins: ["alice", "bob"])
        let alice = try await Self.member(party.engines["alice"]!, url: url)
        let bob = try await Self.member(party.engines["bob"]!, url: url)
        var carol = try await Self.member(party.engines["carol"]!, url: url)

        // Alice and Bob rename the group at once: two commits of one epoch reach every member.
        async let fromAlice = alice.runtime.rename(to: "alice's name")
        async let fromBob = bob.runtime.rename(to: "bob's name")
        let published = try await [fromAlice, fromBob]
        #expect(published == [true, true], "both commits were published")
        let tip = try await Self.converged([alice, bob, carol])
        let name = await carol.runtime.engine.metadata?.name
        #expect(await carol.runtime.engine.graph.nodes.values.filter { $0.epoch == 2 }.count == 2, "Carol holds both commits")
        #expect(name == "alice's name" || name == "bob's name")
        #expect(await alice.runtime.engine.state.epochAuthenticator == tip)
        // Each member's group row follows the selected state, the losing committer's too.
        for member in [alice, bob, carol] {
            let groupID = await member.runtime.engine.state.groupID
            let row = try #require(try member.store.group(mlsGroupID: groupID))
            #expect(row.name == name && row.epoch == 2 && row.version == .v2)
        }

        // A message made on the selected state reaches the others through peeler and engine.
        let me = await alice.runtime.engine.me
        _ = try await alice.runtime.send(try ChatRumor(author: me, content: "hello from alice", createdAt: UnsignedEvent.now()))
        #expect(await bob.shown.next(timeout: 10) == "hello from alice")
        #expect(await carol.shown.next(timeout: 10) == "hello from alice")

        // Carol stops; her engine is re-opened from her store's rows and carries on.
        let carolEngine = await carol.runtime.engine
        await carol.runtime.stop()
        let rows = try #require(try carol.store.engineRows(mlsGroupID: carolEngine.state.groupID))
        #expect(try rows.record().encoded() == carolEngine.record.encoded(), "her rows hold her whole engine")
        let reopened = try #require(try GroupRuntime.open(
            rules: carolEngine.rules, keys: carolEngine.keys, groupID: carolEngine.state.groupID, store: carol.store,
            pool: carol.pool, logger: ClientHarness.logger("runtime")))
        carol = try await Self.started(reopened, store: carol.store, pool: carol.pool)
        let bobKey = await bob.runtime.engine.me
        _ = try await bob.runtime.send(try ChatRumor(author: bobKey, content: "after carol's restart", createdAt: UnsignedEvent.now()))
        // The stored events come again on the new subscription: only the new message shows.
        #expect(await carol.shown.next(timeout: 10) == "after carol's restart")
        #expect(await carol.runtime.engine.state.epochAuthenticator == tip)
        // And she still takes part: her message reaches the others.
        let carolKey = await carol.runtime.engine.me
        _ = try await carol.runtime.send(try ChatRumor(author: carolKey, content: "carol is back", createdAt: UnsignedEvent.now()))
        #expect(await alice.shown.next(timeout: 10) == "after carol's restart")
        #expect(await alice.shown.next(timeout: 10) == "carol is back")
        #expect(await bob.shown.next(timeout: 10) == "carol is back")

        // Carol (no admin) leaves: her SelfRemove is committed by the others (each may: the race
        // settles), and she is out of the group they go on in.
        #expect(try await carol.runtime.leave())
        _ = try await Self.converged([alice, bob])
        let leaver = carol.runtime
        try await withTimeout(30, "carol sees her removal") {
            while await leaver.engine.isActive { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(await alice.runtime.engine.members.count == 2)
        let carolGroup = await carol.runtime.engine.state.groupID
        #expect(try carol.store.group(mlsGroupID: carolGroup)?.status == .inactive)

        for member in [alice, bob, carol] {
            await member.runtime.stop()
            await member.pool.disconnect()
        }
        await server.stop()
    }

    /// The kind-445 envelope of `bytes`, sealed with the key of `engine`'s selected state.
    static func envelope(_ bytes: Data, from engine: GroupEngine) throws -> Event {
        var engine = engine
        let canonical = engine.graph.canonical
        guard let key = engine.eventKey(at: canonical) else { throw StorageError.corruptRow("no key for the selected state") }
        let h = try #require(engine.metadata?.nostrGroupID)
        return try engine.rules.groupEvent(try MLSMessage(tlsSerialized: bytes), nostrGroupID: h, key: key, createdAt: UnsignedEvent.now())
    }

    /// What Carol's store shows of the race's messages: each stored once, a message of the branch
    /// that lost marked invalidated when the other branch wins, and an input whose outputs could
    /// not be stored undone, so the event taken again shows its message after all.
    @Test func messagesAreStoredBeforeTheEnginesRowsAndALostBranchsAreMarked() async throws {
        let party = try GroupEngineTests.Party(["alice", "bob", "carol"])
        let race = try party.race()
        let aliceWins = race.a1.key < race.b1.key
        let (winning, losing) = aliceWins ? (race.a1, race.b1) : (race.b1, race.a1)
        let (onWinner, onLoser) = aliceWins ? (race.onA, race.onB) : (race.onB, race.onA)
        let (winner, loser) = aliceWins ? (race.alice, race.bob) : (race.bob, race.alice)
        let before = party.engines["carol"]!
        let carol = party.engines["carol"]!
        let store = try GRDBMarmotStore.inMemory(key: StorageKey(deriving: carol.keys.secretKey, installationSecret: .generate()))
        let pool = RelayPool(relays: [], configuration: ClientHarness.poolConfiguration, logger: ClientHarness.logger("pool"))
        let failing = Failing()
        let storing = GroupRuntime.storingMessages(of: carol.state.groupID, in: store, me: carol.me)
        let runtime = try GroupRuntime(
            engine: carol, store: store, pool: pool,
            keep: { outputs, event in
                if failing.take() { throw StorageError.corruptRow("the disk refused the write") }
                try storing(outputs, event)
            }, logger: ClientHarness.logger("runtime"))
        let group = carol.state.groupID
        // The race's messages are chat messages with known fields, so their inner event ids are too.
        let ids = [
            "alice": try ChatRumor(author: race.alice.me, content: "on a1", createdAt: 1_800_000_001).id,
            "bob": try ChatRumor(author: race.bob.me, content: "on b1", createdAt: 1_800_000_002).id,
        ]
        func stored(_ message: Data, by engine: GroupEngine) throws -> StoredMessage? {
            try store.message(mlsGroupID: group, rumorID: try #require(ids[engine.me == race.alice.me ? "alice" : "bob"]))
        }

        // The losing branch first: its message shows, stored as received.
        _ = await runtime.handle(try Self.envelope(losing.bytes, from: before))
        failing.arm()
        let refused = try Self.envelope(onLoser, from: loser)
        #expect(await runtime.handle(refused).isEmpty, "the store refused the message: the input is undone")
        #expect(try stored(onLoser, by: loser) == nil)
        let shown = await runtime.handle(refused)
        #expect(shown.contains { if case .application = $0 { true } else { false } }, "taken again, it shows")
        #expect(try stored(onLoser, by: loser)?.deliveryState == .received)

        // The winning branch: Carol switches, the lost branch's message is marked, the winner's shows.
        _ = await runtime.handle(try Self.envelope(winning.bytes, from: before))
        let switched = await runtime.handle(try Self.envelope(onWinner, from: winner))
        #expect(switched.contains { if case .branchSwitched(_, _, let lost) = $0 { lost.count == 1 } else { false } })
        #expect(try stored(onLoser, by: loser)?.deliveryState == .invalidated)
        #expect(try stored(onWinner, by: winner)?.deliveryState == .received)
        let rows = try #require(try store.engineRows(mlsGroupID: group))
        #expect(try rows.record().encoded() == (await runtime.engine).record.encoded())
        await runtime.stop()
    }

    /// Alice built a rename and crashed before publishing it (her rows hold the commit, her sends
    /// queue behind it). Re-opened from her rows, her runtime publishes it and confirms it, the
    /// queued message goes out on the new epoch, and Bob takes both.
    @Test func aCommitLeftUnconfirmedByACrashIsPublishedAtTheRestart() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let party = try GroupEngineTests.Party(["alice", "bob"])
        var engine = party.engines["alice"]!
        var data = try #require(engine.metadata)
        data.name = "named before the crash"
        _ = try engine.commit(proposals: try engine.rules.proposals(changing: engine.state.extensions, to: data))
        let me = engine.me
        #expect(try engine.send(try ChatRumor(author: me, content: "queued before the crash", createdAt: UnsignedEvent.now())) == .queued)
        let store = try GRDBMarmotStore.inMemory(key: StorageKey(deriving: engine.keys.secretKey, installationSecret: .generate()))
        let pool = RelayPool(relays: [url], configuration: ClientHarness.poolConfiguration, logger: ClientHarness.logger("pool"))
        await pool.connect()
        // What the crash left: the rows, nothing published.
        _ = try GroupRuntime(engine: engine, store: store, pool: pool, logger: ClientHarness.logger("runtime"))
        let bob = try await Self.member(party.engines["bob"]!, url: url)

        let reopened = try #require(try GroupRuntime.open(
            rules: engine.rules, keys: engine.keys, groupID: engine.state.groupID, store: store, pool: pool,
            logger: ClientHarness.logger("runtime")))
        #expect(await reopened.engine.status == .resolving(pendingCommits: 1))
        let alice = try await Self.started(reopened, store: store, pool: pool)
        #expect(await bob.shown.next(timeout: 10) == "queued before the crash")
        _ = try await Self.converged([alice, bob])
        #expect(await bob.runtime.engine.metadata?.name == "named before the crash")
        #expect(try store.group(mlsGroupID: engine.state.groupID)?.name == "named before the crash")
        #expect(try store.engineRows(mlsGroupID: engine.state.groupID)?.record().awaiting.isEmpty == true)
        for member in [alice, bob] {
            await member.runtime.stop()
            await member.pool.disconnect()
        }
        await server.stop()
    }

    /// A v2 group the client kept as one MLS state in its row (before the engine) re-opens as an
    /// engine anchored at that state: the engine's rows are written and the row's state cleared
    /// (no second copy of secrets the engine deletes), and the group carries on.
    @Test func aGroupKeptAsOneStateMovesIntoAnEngine() async throws {
        let party = try GroupEngineTests.Party(["alice", "bob"])
        var alice = party.engines["alice"]!
        let bob = party.engines["bob"]!
        let store = try GRDBMarmotStore.inMemory(key: StorageKey(deriving: bob.keys.secretKey, installationSecret: .generate()))
        let data = try #require(bob.metadata)
        var row = StoredGroup(
            mlsGroupID: bob.state.groupID, nostrGroupID: data.nostrGroupID, mlsState: Data(), epoch: bob.epoch, name: data.name,
            groupDescription: data.groupDescription, admins: data.admins, relays: data.relays, status: .active, createdAt: 1,
            version: .v2)
        row.setState(bob.state)
        try store.saveGroup(row)
        let pool = RelayPool(relays: [], configuration: ClientHarness.poolConfiguration, logger: ClientHarness.logger("pool"))

        let runtime = try #require(try GroupRuntime.open(
            rules: bob.rules, keys: bob.keys, groupID: bob.state.groupID, store: store, pool: pool,
            logger: ClientHarness.logger("runtime")))
        #expect(await runtime.engine.state.epochAuthenticator == bob.state.epochAuthenticator)
        let kept = try #require(try store.group(mlsGroupID: bob.state.groupID))
        #expect(kept.mlsState.isEmpty && kept.mlsRatchets == nil, "the row no longer holds the state")
        #expect(kept.name == data.name && kept.epoch == bob.epoch)
        #expect(try store.engineRows(mlsGroupID: bob.state.groupID)?.record().encoded() == (await runtime.engine).record.encoded())

        let rename = try GroupEngineTests.renameConfirmed(&alice, to: "renamed after the move")
        _ = await runtime.handle(try Self.envelope(rename.bytes, from: party.engines["alice"]!))
        let hello = try alice.encrypt("hello after the move", createdAt: 1_800_000_001)
        let shown = await runtime.handle(try Self.envelope(hello, from: alice))
        #expect(shown.contains { if case .application(_, let rumor, _, _, _) = $0 { rumor.content == "hello after the move" } else { false } })
        #expect(try store.group(mlsGroupID: bob.state.groupID)?.name == "renamed after the move")
        // Opened again, it reads its rows (no second move).
        await runtime.stop()
        let again = try #require(try GroupRuntime.open(
            rules: bob.rules, keys: bob.keys, groupID: bob.state.groupID, store: store, pool: pool,
            logger: ClientHarness.logger("runtime")))
        #expect(await again.engine.epoch == bob.epoch + 1)
    }

    /// A switch that fails the next write it is armed for.
    final class Failing: @unchecked Sendable {
        private let lock = NSLock()
        private var armed = false
        func arm() { lock.withLock { armed = true } }
        func take() -> Bool { lock.withLock { defer { armed = false }; return armed } }
    }
}
