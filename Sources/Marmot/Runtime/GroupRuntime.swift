import Foundation
import Logging
import MarmotWire
import MLS
import Nostr
import NostrClient

/// One group's `GroupEngine` under the real relay pool, kept in the store's rows.
///
/// The runtime of MDK 0.9.14's split (engine / peeler / runtime, `marmot-app`): it subscribes to
/// the group's kind-445 events (`h`), peels each with the keys of every retained state
/// (`GroupEngine.peeler`), feeds the engine and settles it, writes what changed
/// (`GroupEngine.takeChanges()` → `GRDBMarmotStore.saveEngineChanges`) after every input, and
/// publishes our messages and commits in envelopes sealed with the key of the state they were
/// made on (MIP-03). The same engine runs under `marmot-conformance`'s deterministic bus; nothing
/// here decides anything about the group (issue 24).
package actor GroupRuntime {
    package private(set) var engine: GroupEngine
    private let store: GRDBMarmotStore
    private let pool: RelayPool
    private let now: @Sendable () -> Int64
    private let window: GroupEvent.TimeWindow
    private let logger: Logger
    private let keep: Keeper
    private var subscription: Task<Void, Never>?
    /// The `h` subscribed to (a commit can change it: the subscription follows), and the pool's
    /// subscription.
    private var subscribedH: NostrGroupID?
    private var subscriptionID: SubscriptionID?
    /// Our events handed to relays and not yet seen back: a relay's echo of our commit can come
    /// while it is being published, before the engine adopted it, and is not an input.
    private var published: Set<EventID> = []
    /// The selected state the group's row and subscription were last brought in step with.
    private var followed: BranchGraph.NodeID
    private let continuation: AsyncStream<EngineOutput>.Continuation
    /// What the engine reports, input after input: messages to show, commits applied, branch
    /// switches with the messages they invalidate.
    package nonisolated let outputs: AsyncStream<EngineOutput>

    /// A runtime over `engine` (founded, joined or re-opened), with what the store lacks of it
    /// written first: a new engine's every row, the group's row when there is none. `keep` takes
    /// each input's outputs before its rows are written (by default the group's messages are
    /// stored, `storingMessages`).
    package init(
        engine: GroupEngine, store: GRDBMarmotStore, pool: RelayPool, now: @escaping @Sendable () -> Int64 = { UnsignedEvent.now() },
        window: GroupEvent.TimeWindow = .mdkDefault, keep: Keeper? = nil, logger: Logger
    ) throws {
        var engine = engine
        if try store.group(mlsGroupID: engine.state.groupID) == nil { try store.saveGroup(try Self.groupRow(engine, now: now())) }
        try store.saveEngineChanges(engine.takeChanges(), mlsGroupID: engine.state.groupID)
        self.engine = engine
        followed = engine.graph.canonical
        self.store = store
        self.pool = pool
        self.now = now
        self.window = window
        self.logger = logger
        self.keep = keep ?? Self.storingMessages(of: engine.state.groupID, in: store, me: engine.me)
        let (stream, continuation) = AsyncStream.makeStream(of: EngineOutput.self, bufferingPolicy: .unbounded)
        outputs = stream
        self.continuation = continuation
    }

    /// Re-opens the group's engine from its rows in `store`; nil when none were written.
    package static func open(
        rules: any GroupRules, keys: Keys, groupID: GroupID, store: GRDBMarmotStore, pool: RelayPool,
        now: @escaping @Sendable () -> Int64 = { UnsignedEvent.now() }, keep: Keeper? = nil, logger: Logger
    ) throws -> GroupRuntime? {
        guard let rows = try store.engineRows(mlsGroupID: groupID) else {
            guard let stored = try store.group(mlsGroupID: groupID), !stored.mlsState.isEmpty else { return nil }
            return try GroupRuntime(
                engine: try migrated(stored, rules: rules, keys: keys, store: store), store: store, pool: pool, now: now, keep: keep,
                logger: logger)
        }
        let engine = try GroupEngine(rules: rules, keys: keys, record: try rows.record())
        return try GroupRuntime(engine: engine, store: store, pool: pool, now: now, keep: keep, logger: logger)
    }

    /// A group the client kept as one MLS state in its row (before issue 24's engine), moved into an
    /// engine anchored at that state: its rows written and the row's state cleared in one
    /// transaction. A fork the client held open is not carried over (the engine re-learns any
    /// branch from the group's events: commits of an epoch before its anchor are past it).
    static func migrated(_ stored: StoredGroup, rules: any GroupRules, keys: Keys, store: GRDBMarmotStore) throws -> GroupEngine {
        var engine = GroupEngine(rules: rules, keys: keys, state: try stored.decodedState())
        try store.moveGroupState(to: engine.takeChanges(), group: stored)
        return engine
    }

    /// The group's row as the runtime writes it: its Marmot data, no MLS state (the engine's rows
    /// hold every state, and a copy here would keep message keys the engine deleted).
    private static func groupRow(_ engine: GroupEngine, now: Int64) throws -> StoredGroup {
        guard let data = engine.metadata else { throw EngineError.mls("the group has no Marmot data") }
        return StoredGroup(
            mlsGroupID: engine.state.groupID, nostrGroupID: data.nostrGroupID, mlsState: Data(), epoch: engine.epoch,
            name: data.name, groupDescription: data.groupDescription, admins: data.admins, relays: data.relays,
            status: engine.isActive ? .active : .inactive, createdAt: now, version: .v2)
    }

    // MARK: Inbound

    /// Subscribes to the group's kind-445 events (stored ones first) and handles each as it comes,
    /// then publishes again our commits a restart left unconfirmed.
    package func start() async {
        guard subscription == nil, let h = engine.metadata?.nostrGroupID else { return }
        subscribedH = h
        let events = await pool.subscribe([Filter(kinds: [.groupMessage], tags: ["h": [h.hex]])])
        subscriptionID = events.id
        subscription = Task { [weak self] in
            for await message in events {
                guard case .event(let event, _) = message else { continue }
                await self?.handle(event)
            }
        }
        await resumeUnconfirmed()
    }

    /// Our commits built before a restart and never confirmed: whether a relay took one is not
    /// known, so each is published again (members that have it drop the copy as a duplicate) and
    /// confirmed once a relay takes it; one no relay takes now stays waiting (a relay may have
    /// taken it before the restart: it is adopted when given back, MIP-03), never forgotten.
    private func resumeUnconfirmed() async {
        for commit in engine.unconfirmed {
            guard await publish(commit.bytes, at: commit.parent) else {
                logger.warning("our unconfirmed commit was not published again; it waits", metadata: ["epoch": "\(commit.key.sourceEpoch)"])
                continue
            }
            if let outputs = step(nil, { engine in engine.confirm(commit) }) { await report(outputs) }
        }
    }

    package func stop() async {
        await unsubscribe()
        continuation.finish()
    }

    private func unsubscribe() async {
        subscription?.cancel()
        subscription = nil
        if let id = subscriptionID { await pool.unsubscribe(id) }
        subscriptionID = nil
    }

    /// Peels, receives and settles one kind-445 event, writes what changed, publishes what the
    /// engine made again (our sends of a branch that lost), and reports the outputs. An event
    /// that does not peel (another group's, expired, no key opens it) is dropped with a log line.
    @discardableResult
    package func handle(_ event: Event) async -> [EngineOutput] {
        guard published.remove(event.id) == nil, let peeler = engine.peeler(window: window) else { return [] }
        let bytes: Data
        do {
            bytes = try peeler.peel(event, now: now()).bytes
        } catch {
            logger.debug("group event dropped", metadata: ["event": "\(event.id.hex)", "reason": "\(error)"])
            return []
        }
        guard let outputs = step(event.id, { engine in engine.receive(bytes) + engine.settle() }) else { return [] }
        await report(outputs)
        return outputs
    }

    /// Runs one input on the engine, hands its outputs to the keeper, then writes the rows that
    /// changed; when the keeper fails, the input is undone (the engine is a value: it goes back to
    /// the copy taken before) and nil is returned.
    private func step(_ event: EventID?, _ input: (inout GroupEngine) -> [EngineOutput]) -> [EngineOutput]? {
        let before = engine
        let outputs = input(&engine)
        do {
            try keep(outputs, event)
        } catch {
            engine = before
            logger.error("group input not kept; undone", metadata: ["event": "\(event?.hex ?? "-")", "reason": "\(error)"])
            return nil
        }
        save()
        return outputs
    }

    /// Publishes what the engine made again, keeps the group's row and subscription in step with
    /// the selected state after a commit or a branch switch, and hands the outputs on.
    private func report(_ outputs: [EngineOutput]) async {
        var moved = false
        for output in outputs {
            switch output {
            case .publish(let made, _): await publish(made)
            case .dropped(let why): logger.info("group message dropped", metadata: ["reason": "\(why)"])
            case .commitApplied, .branchSwitched: moved = true
            default: break
            }
            continuation.yield(output)
        }
        // Also when the tip moved with no output saying so (our own commit given back by a relay).
        if moved || engine.graph.canonical != followed { await followSelectedState() }
        await commitSelfRemoves()
    }

    /// Others' SelfRemove proposals waiting on the selected state are committed by us, as every
    /// v2 member does (MDK 0.9.14's auto-committer), when the version's rules let us commit them
    /// and no commit of ours is in flight.
    private func commitSelfRemoves() async {
        guard engine.isActive, engine.hasCommittableSelfRemoves, engine.status == .settled else { return }
        do {
            try await publishCommit { engine in try engine.commit(selfRemovesOnly: true) }
        } catch {
            logger.info("pending SelfRemove not committed", metadata: ["reason": "\(error)"])
        }
    }

    /// Leaves the group: a SelfRemove proposal of ours, which another member commits (v2); whether
    /// a relay took it.
    @discardableResult
    package func leave() async throws -> Bool {
        let bytes = try engine.proposeLeave()
        save()
        return await publish(bytes)
    }

    /// The group's row takes the selected state's data (name, description, admins, relays, `h`,
    /// epoch, whether we are still a member), and the subscription its `h`.
    private func followSelectedState() async {
        followed = engine.graph.canonical
        do {
            if var row = try store.group(mlsGroupID: engine.state.groupID), let data = engine.metadata {
                row.name = data.name
                row.groupDescription = data.groupDescription
                row.admins = data.admins
                row.relays = data.relays
                row.nostrGroupID = data.nostrGroupID
                row.epoch = engine.epoch
                row.status = engine.isActive ? .active : .inactive
                try store.saveGroup(row)
            }
        } catch {
            logger.error("group row not saved", metadata: ["reason": "\(error)"])
        }
        if subscription != nil, let h = engine.metadata?.nostrGroupID, h != subscribedH {
            await unsubscribe()
            await start()
        }
    }

    // MARK: Outbound

    /// Sends a message of ours (any inner event authored by us): published now, or queued while
    /// a commit of ours is unconfirmed (it goes out, made on the selected state, once it settles).
    package func send(_ rumor: ChatRumor) async throws -> SendDisposition {
        let disposition = try engine.send(rumor)
        save()
        if case .published(let bytes) = disposition { await publish(bytes) }
        return disposition
    }

    /// Builds a commit on the selected state, publishes it in an envelope of that state's epoch,
    /// and adopts it once a relay took it (confirm), or forgets it when none did (abandon, MIP-03:
    /// it never happened). Returns whether it was published.
    @discardableResult
    package func commit(
        adding keyPackages: [KeyPackage] = [], removing removed: [PublicKey] = [], proposals: [Proposal] = []
    ) async throws -> Bool {
        try await publishCommit { engine in try engine.commit(adding: keyPackages, removing: removed, proposals: proposals) }
    }

    /// Builds a commit with `build`, publishes it, and confirms or abandons it.
    private func publishCommit(_ build: (inout GroupEngine) throws -> OwnCommit) async throws -> Bool {
        let own = try build(&engine)
        save()
        let sent = await publish(own.bytes)
        var outputs = step(nil) { engine in sent ? engine.confirm(own) : engine.abandon(own) } ?? []
        // Our own commit moved the group too, when it is on the selected branch (the engine
        // reports others' commits only).
        let adopted = engine.graph.nodes.values.contains { $0.commit?.key == own.key && engine.graph.isCanonical($0.id) }
        if sent, adopted, !outputs.contains(where: { if case .branchSwitched = $0 { true } else { false } }) {
            outputs.append(.commitApplied(own.pending.summary, committer: engine.me, epoch: engine.epoch))
        }
        await report(outputs)
        return sent
    }

    /// A rename of the group through a commit of ours (group data, MIP-01).
    @discardableResult
    package func rename(to name: String) async throws -> Bool {
        guard var data = engine.metadata else { throw EngineError.mls("the group has no Marmot data") }
        data.name = name
        return try await commit(proposals: try engine.rules.proposals(changing: engine.state.extensions, to: data))
    }

    /// Publishes `bytes` (an MLSMessage of ours) in a kind-445 envelope sealed with the key of the
    /// state it was made on, the canonical tip's; whether a relay took it.
    @discardableResult
    private func publish(_ bytes: Data) async -> Bool { await publish(bytes, at: engine.graph.canonical) }

    /// Publishes `bytes` sealed with the key of the state `node` (the one it was made on).
    private func publish(_ bytes: Data, at node: BranchGraph.NodeID) async -> Bool {
        guard let h = engine.graph.nodes[node].flatMap({ engine.rules.metadataIfValid($0.mls.extensions) })?.nostrGroupID,
              let key = engine.eventKey(at: node) else { return false }
        do {
            let event = try engine.rules.groupEvent(try MLSMessage(tlsSerialized: bytes), nostrGroupID: h, key: key, createdAt: now())
            published.insert(event.id)
            let result = await pool.publish(event)
            if !result.isSent { logger.warning("group event not accepted", metadata: ["event": "\(event.id.hex)"]) }
            return result.isSent
        } catch {
            logger.warning("group event not built", metadata: ["reason": "\(error)"])
            return false
        }
    }

    /// Writes what the last step changed; a failure is logged (the events stay on the relays and
    /// are taken again after a restart).
    private func save() {
        do {
            try store.saveEngineChanges(engine.takeChanges(), mlsGroupID: engine.state.groupID)
        } catch {
            logger.error("group engine not saved", metadata: ["reason": "\(error)"])
        }
    }
}
