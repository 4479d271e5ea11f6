import Foundation
import Logging
import MLS
import Nostr
import NostrClient

/// A Marmot account on Nostr relays: key packages (MIP-00), 1:1 chats (MIP-01), Welcomes (MIP-02)
/// and group messages (MIP-03), wire-compatible with MDK 0.8.0 (see marmot-wire.md).
///
/// Built on `MLSGroup` (state machine), a `MarmotStore` (everything persisted, secrets sealed) and a
/// `RelayPool`. Incoming events are handled one at a time, after a per-event dedup against the
/// store, and with the same exclusive section as our own sends and commits, so every MLS state
/// change is persisted before the next one starts. Bad input is dropped with a
/// `MarmotClientEvent.dropped` report and never changes stored data.
public actor MarmotClient {
    /// Tunables; the defaults suit public relays.
    public struct Options: Sendable {
        /// How long `createChat` waits for the peer's key packages (until EOSE of every relay).
        public var keyPackageFetchTimeout: Duration = .seconds(10)
        /// A new subscription's stored events are held until every relay sent EOSE, then handled
        /// oldest first; after this long they are handled anyway (a relay may be down).
        public var catchUpTimeout: Duration = .seconds(5)
        /// The accepted created_at window of kind-445 events (MDK's defaults).
        public var eventWindow: GroupEvent.TimeWindow = .mdkDefault
        /// Rotate our leaf right after joining from a Welcome, as MIP-02 asks and MDK expects.
        public var selfUpdateAfterJoin = true
        /// Group events that did not decrypt are retried after the next commit of their group (a
        /// relay may deliver an epoch's messages before its commit); at most this many per group.
        public var parkedEventLimit = 100
        /// Bytes of content the parked events of a group that never decrypted may hold: any relay
        /// serving the group can send such events (surface review 2026-12-01, N2).
        public var parkedEventBytes = 2 << 20
        /// Stored events held for one subscription's catch-up before they are handled anyway (a
        /// relay flooding a subscription cannot grow the buffer without bound).
        public var catchUpBufferLimit = 5_000
        /// Pending proposals kept per group; more are dropped (members flooding proposals).
        public var pendingProposalLimit = 64
        /// Pending proposals kept per sender in an epoch; more of that sender's are dropped. One
        /// member flooding cheap proposals so fills only its own share and cannot make us drop
        /// another member's proposal that a commit then refers to (which would strand us in the
        /// epoch; issue 24 N5). Honest members send one or two per epoch (a SelfRemove).
        public var pendingProposalsPerSender = 8
        /// How long our messages and changes wait for a syncing or resolving group to settle before
        /// they go out on the state we have (MDK 0.9.14 `max_convergence_pass_ms`, 5,000 ms; issue 24).
        public var outboundHoldLimit: Duration = .seconds(5)
        /// How long the state of a past epoch is kept for the race rule (§5.7), besides the count
        /// limit: a snapshot re-derives that epoch's message keys, so forward secrecy wants it gone
        /// once a competing commit can no longer be expected.
        public var snapshotMaxAge: Int64 = 24 * 3600
        /// Our leaf in a group is rotated (a self-update) once our last commit there is this old, so
        /// keys rotate even where nobody commits (MDK's `groups_needing_self_update`); nil: never.
        public var selfUpdateInterval: Int64? = 7 * 24 * 3600
        /// A stored key package is offered again only while it stays valid this much longer.
        public var keyPackageMinimumValidity: Int64 = 7 * 24 * 3600
        /// How long the private half of a consumed key package is kept for Welcomes that were built
        /// from its event before it was replaced.
        public var consumedKeyPackageGrace: Int64 = 24 * 3600
        /// Invitations waiting for an answer, in all and per inviter; Welcomes beyond are left
        /// unread until some are answered (a stranger cannot fill the store or churn our key packages).
        public var maxPendingInvites = 100
        public var maxPendingInvitesPerInviter = 3
        /// An invitation nobody answered is declined after this long.
        public var inviteMaxAge: Int64 = 30 * 24 * 3600
        /// Resolves the host of a received media URL before it is fetched (tests give their own).
        public var mediaHostResolver: MediaHostResolver = .system
        /// Key package rotations after Welcomes are at least this far apart (later ones coalesce).
        public var keyPackageRotationInterval: Int64 = 30
        /// How often the time-based clean-ups run (`housekeep`), at the latest.
        public var housekeepingInterval: Int64 = 3600
        /// Crash tests only: the process kills itself here (see `CrashPoint`).
        public var crashPoint: CrashPoint?
        /// Addresses one of our relays had before, to the address it has now: a group naming the
        /// old one is routed to ours (issue 50: the embedded relay of a home that moved port).
        public var relayAliases: [RelayURL: RelayURL] = [:]
        /// The protocol versions we publish a key package for (`ensureKeyPackages`): both, so v1 and
        /// v2 peers can invite us.
        public var keyPackageVersions: Set<MarmotVersion> = [.v1, .v2]
        /// Value of the `client` tag on key packages and Welcomes.
        public var clientTag: String? = KeyPackageEvent.defaultClient

        public init() {}
    }

    /// A relay subscription and its catch-up buffer.
    struct Feed {
        enum Target: Equatable {
            case giftWraps
            case group(GroupID)
            /// The groups loaded at start, in one subscription: relays cap subscriptions per
            /// connection (often at 20), so one per chat would lose chats beyond the cap. Each relay
            /// is sent only the `h` of the groups it serves (`routes(for:)`, issue 26).
            case groups([GroupID])
        }

        let target: Target
        /// Whether the feed reads `group`'s events.
        func covers(_ group: GroupID) -> Bool {
            switch target {
            case .giftWraps: false
            case .group(let id): id == group
            case .groups(let ids): ids.contains(group)
            }
        }
        var buffering = true
        var flushing = false
        var buffer: [Event] = []
        var tasks: [Task<Void, Never>] = []
    }

    /// Our Nostr identity.
    public nonisolated let publicKey: PublicKey
    /// Our relays: where we publish and read, and what our key packages, relay lists and new groups
    /// name. Changed with `setRelays`.
    public internal(set) var relays: [RelayURL]
    /// Background happenings, for one consumer.
    public nonisolated let events: AsyncStream<MarmotClientEvent>

    let keys: Keys
    let store: any MarmotStore
    let pool: RelayPool
    let now: @Sendable () -> Int64
    let options: Options
    let logger: Logger
    let eventSink: AsyncStream<MarmotClientEvent>.Continuation

    var sessions: [GroupID: GroupSession] = [:]
    /// The group engines of the groups whose version runs on one (v2; `MarmotClient+Engine`).
    var engines: [GroupID: GroupEngine] = [:]
    /// Our commits to engine groups published and not yet confirmed, by ordering key, with their
    /// envelopes: for their system lines when a relay gives one back (memory only: after a
    /// restart one is confirmed without them).
    var unconfirmedCommits: [CommitOrderingKey: (own: OwnCommit, event: Event, before: GroupMetadata?)] = [:]
    var feeds: [SubscriptionID: Feed] = [:]
    /// Each group's events waiting to be taken in (`ParkedEvents`).
    var parked: [GroupID: ParkedEvents] = [:]
    /// Groups whose events are being fetched again (`refetchPushedOut`), and from when the next
    /// fetch of each must start (events pushed out while one ran).
    var refetching: Set<GroupID> = []
    var refetchFrom: [GroupID: Int64] = [:]
    /// Each group's open forks and what its current branch holds since them (`BranchBook`).
    var branchBooks: [GroupID: BranchBook] = [:]
    /// The revocation steps of commits on branches weighed so far, by commit (`BranchStep.path`);
    /// emptied when it grows past `BranchStep.cacheLimit`.
    var branchSteps: [EventID: BranchStep] = [:]
    /// The wake-up for the next expired message (`scheduleExpirySweep`).
    var expirySweep: Task<Void, Never>?
    /// When `expirySweep` wakes (the earliest stored expiry when it was set).
    var expirySweepAt: Int64?
    /// The next run of `housekeep`.
    var housekeeping: Task<Void, Never>?
    /// When each version's key package was last rotated after a Welcome, and rotations waiting.
    var lastKeyPackageRotation: [MarmotVersion: Int64] = [:]
    var rotationScheduled: Set<MarmotVersion> = []
    /// Groups where a competing commit forks before the oldest state we keep, and why.
    var blockedGroups: [GroupID: String] = [:]
    /// The convergence status last reported per group (`convergenceChanged` is sent on a change).
    var convergenceReported: [GroupID: ConvergenceStatus] = [:]
    /// Peers' relay lists read during this run (`relayLists(of:)`).
    var peerRelayLists: [PublicKey: RelayLists] = [:]
    /// Which relays each active group uses, and the relays groups brought (`syncPoolRelays`).
    var relayPlan = GroupRelayPlan()
    /// The relays `syncPoolRelays` put in the pool that are not ours.
    var foreignInPool: Set<String> = []
    /// Group relay URLs whose refusal was logged (each once per run).
    var loggedRefusals: Set<String> = []
    /// Groups with a commit of ours that no relay has confirmed yet (`PendingOwnCommit`).
    var pendingCommitGroups: Set<GroupID> = []
    /// Outbound work waiting for its group to settle (`awaitOutboundTurn`), by group and token.
    var settleWaiters: [GroupID: [UInt64: CheckedContinuation<Void, Never>]] = [:]
    var nextSettleWaiter: UInt64 = 0
    /// Whether `loadStoredGroups` ran.
    var groupsLoaded = false
    /// The subscriptions `start()` opened whose stored events are not yet handled, and who waits
    /// for them (`caughtUp()`).
    var startFeedsPending: Set<SubscriptionID>?
    var caughtUpWaiters: [CheckedContinuation<Void, Never>] = []
    var caughtUpReported = false
    var started = false
    private var exclusive = false
    private var exclusiveWaiters: [CheckedContinuation<Void, Never>] = []

    /// - Parameters:
    ///   - keys: the account's Nostr keys (identity of every MLS credential).
    ///   - store: where groups, keys and messages live; reopen the same store to resume.
    ///   - pool: the relays to publish to and read from (connected by `start()`).
    ///   - relays: the URLs announced in key packages, Welcomes and group data.
    ///   - now: Unix seconds (injectable for tests).
    public init(
        keys: Keys, store: any MarmotStore, pool: RelayPool, relays: [RelayURL], options: Options = Options(),
        now: @escaping @Sendable () -> Int64 = { UnsignedEvent.now() },
        logger: Logger = Logger(label: "marmot.client")
    ) {
        self.keys = keys
        self.publicKey = keys.publicKey
        self.store = store
        self.pool = pool
        self.relays = relays
        self.options = options
        self.now = now
        self.logger = logger
        // Lossless (architecture review §3.3-d): a bound here dropped the oldest events of a large
        // catch-up while the consumer lagged. What feeds it is bounded upstream (catch-up buffers,
        // per-group limits), and each event is already in the store.
        (events, eventSink) = AsyncStream.makeStream(of: MarmotClientEvent.self, bufferingPolicy: .unbounded)
    }

    deinit {
        for feed in feeds.values { feed.tasks.forEach { $0.cancel() } }
        eventSink.finish()
    }

    // MARK: Life cycle

    /// Loads the stored groups, connects the pool and subscribes to our gift wraps (kind 1059 `#p`,
    /// no `since`: wraps are back-dated) on our relays and to each active group's kind-445 events
    /// (`#h`) on that group's relays (`syncPoolRelays`, `routes(for:)`).
    public func start() async throws {
        guard !started else { return }
        guard !relays.isEmpty else { throw MarmotClientError.noRelays }
        try loadStoredGroups()
        started = true
        await syncPoolRelays()
        // Replay protection needs records only as far back as events are accepted at all.
        let horizon = now() - options.eventWindow.maxAge - 24 * 3600
        if let pruned = try? store.pruneProcessedEvents(processedBefore: horizon), pruned > 0 {
            logger.info("forgot \(pruned) processed-event records older than the event window")
        }
        await pool.connect()
        var startFeeds: [Feed.Target] = [.giftWraps]
        let active = sessions.values.filter { $0.stored.status == .active }.map(\.id)
        if !active.isEmpty { startFeeds.append(.groups(active.sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) })) }
        startFeedsPending = []
        for target in startFeeds {
            if let id = await subscribe(target) { startFeedsPending?.insert(id) }
        }
        noteFeedFlushed(nil)
        sweepExpiredMessages()
        Task { [weak self] in await self?.housekeep() }
        if !pendingCommitGroups.isEmpty || engines.values.contains(where: { !$0.unconfirmed.isEmpty }) {
            Task { [weak self] in await self?.resumePendingCommits() }
        }
    }

    /// Loads the stored groups' MLS states once, so queries answered before `start()` (the chat list
    /// at launch) already know every group's members. `rows` are the groups as just read, when the
    /// caller has them (the chat list), so they are not read and opened twice.
    ///
    /// Every group's epoch keys and start-up settings come in two reads, and the MLS states are
    /// decoded on every core: four reads per group and one decode after another were most of a
    /// cold start (issue 27).
    func loadStoredGroups(_ rows: [StoredGroup]? = nil) throws {
        guard !groupsLoaded else { return }
        groupsLoaded = true
        let stored = try rows ?? storage { try store.groups() }
        let ids = stored.map(\.mlsGroupID)
        // Nil when the batch read fails: each group then reads its own, and fails alone, as before.
        let eventKeys = try? store.groupEventKeys(of: ids)
        let names = ids.flatMap { [ClientSettings.pendingCommit($0), ClientSettings.parked($0), ClientSettings.branches($0)] }
        let present = (try? store.presentSettings(names)) ?? Set(names)
        let states = Self.decodeStates(stored)
        for (group, state) in zip(stored, states) {
            let id = group.mlsGroupID
            do {
                var group = group
                let mls: MLSGroup
                if let engine = try openEngine(group) {
                    // A group on the engine: its states are the engine's (the row keeps none).
                    engines[id] = engine
                    mls = engine.state
                    group.mlsState = Data()
                    group.mlsRatchets = nil
                } else {
                    mls = try state.get()
                }
                let keys = try (eventKeys?[id] ?? store.groupEventKeys(mlsGroupID: id)).filter { $0.epoch <= mls.epoch }
                sessions[id] = GroupSession(mls: mls, stored: group, eventKeys: keys)
                if present.contains(ClientSettings.pendingCommit(id)), (try? store.setting(ClientSettings.pendingCommit(id))) != nil {
                    pendingCommitGroups.insert(id)
                }
                parked[id] = loadParked(id)
                if present.contains(ClientSettings.branches(id)) { loadBranches(id) }
            } catch {
                logger.error("group \(id) not loaded: \(error)")
                emit(.failure(chat: id, reason: "stored group does not load: \(error)"))
            }
        }
    }

    /// Each serialized MLS state decoded, spread over the cores (the decodes share nothing).
    static func decodeStates(_ rows: [StoredGroup]) -> [Result<MLSGroup, any Error>] {
        let results = DecodedStates(count: rows.count)
        DispatchQueue.concurrentPerform(iterations: rows.count) { index in
            // A group on the engine is read from the engine's rows (`openEngine`).
            guard !rows[index].version.rules.settlesByEvidence else { return results.set(index, .failure(StorageError.corruptRow("on the engine"))) }
            results.set(index, Result { try rows[index].decodedState() })
        }
        return results.values
    }

    /// Returns once the stored events of every subscription `start()` opened were handled (each
    /// relay sent EOSE, or `catchUpTimeout` passed): the chat list and invitations are then as the
    /// relays had them. Returns at once when that already happened.
    public func caughtUp() async {
        if let pending = startFeedsPending, pending.isEmpty { return }
        await withCheckedContinuation { caughtUpWaiters.append($0) }
    }

    /// A start feed finished its catch-up (or, with nil, none may be left).
    func noteFeedFlushed(_ id: SubscriptionID?) {
        if let id { startFeedsPending?.remove(id) }
        guard let pending = startFeedsPending, pending.isEmpty else { return }
        if started, !caughtUpReported {
            caughtUpReported = true
            emit(.caughtUp)
        }
        caughtUpWaiters.forEach { $0.resume() }
        caughtUpWaiters = []
    }

    /// Ends every subscription (the pool stays connected; it belongs to the caller).
    public func stop() async {
        started = false
        expirySweep?.cancel()
        expirySweep = nil
        expirySweepAt = nil
        housekeeping?.cancel()
        housekeeping = nil
        startFeedsPending = []
        noteFeedFlushed(nil)
        for group in settleWaiters.keys { openOutbound(group) }
        for group in parked.keys { saveParked(group) }
        let current = feeds
        feeds = [:]
        for (id, feed) in current {
            feed.tasks.forEach { $0.cancel() }
            await pool.unsubscribe(id)
        }
    }

    // MARK: Queries

    /// All chats, most recent activity first.
    public func chats() throws -> [Chat] {
        let rows = try storage { try store.groups() }
        try loadStoredGroups(rows)
        return rows.filter { $0.status != .pending }.map { row in
            sessions[row.mlsGroupID].map { Chat(session: $0, stored: row) } ?? Chat(stored: row, members: [])
        }
    }

    /// One chat by its MLS group id.
    public func chat(_ id: GroupID) throws -> Chat? {
        guard let row = try storage({ try store.group(mlsGroupID: id) }) else { return nil }
        return sessions[id].map { Chat(session: $0, stored: row) } ?? Chat(stored: row, members: [])
    }

    /// The 1:1 chat with `peer`, if there is one.
    public func chat(with peer: PublicKey) -> Chat? {
        oneToOne(with: peer)?.chat
    }

    /// A page of a chat's messages, newest first (`before` from the previous page's `nextCursor`).
    public func messages(in chat: GroupID, before: MessageCursor? = nil, limit: Int = 50) throws -> MessagePage {
        var page = try storage { try store.messages(mlsGroupID: chat, before: before, limit: limit) }
        page.messages = withAttachments(withModerationGrants(page.messages))
        return page
    }

    /// One stored message of a chat by its rumor id.
    public func message(_ id: EventID, in chat: GroupID) throws -> StoredMessage? {
        try storage { try store.message(mlsGroupID: chat, rumorID: id) }.map { withAttachments(withModerationGrants([$0]))[0] }
    }

    /// Sets the chat's unread count to zero.
    public func markRead(_ chat: GroupID) throws {
        try storage { try store.markGroupRead(mlsGroupID: chat) }
    }

    /// The active 1:1 group with `peer`: one whose peer was proven when it began (we invited them, or
    /// they sealed the Welcome) and whose members are still exactly the two of us. A group a stranger
    /// built around someone's public key package never qualifies, so it is never reused.
    func oneToOne(with peer: PublicKey) -> GroupSession? {
        sessions.values
            .filter { $0.stored.status == .active && $0.mls.isActive && $0.chat.peer == peer }
            .min { $0.stored.createdAt < $1.stored.createdAt }
    }

    // MARK: Subscriptions

    /// Subscribes (once) for a target; stored events are buffered until catch-up. The id is random
    /// (it tells a relay nothing about us) and each relay is sent only its share (`routes(for:)`).
    @discardableResult
    func subscribe(_ target: Feed.Target) async -> SubscriptionID? {
        guard started, !feeds.values.contains(where: { $0.target == target }) else { return nil }
        let routes = routes(for: target)
        guard !routes.isEmpty else { return nil }
        let id = SubscriptionID.random()
        feeds[id] = Feed(target: target)
        let subscription = await pool.subscribe(routes: routes, id: id)
        let reader = Task { [weak self] in
            for await message in subscription {
                guard let self else { return }
                await self.receive(id, message)
            }
        }
        let timeout = options.catchUpTimeout
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            guard !Task.isCancelled else { return }
            await self?.flush(id)
        }
        feeds[id]?.tasks = [reader, timer]
        return id
    }

    func unsubscribe(_ target: Feed.Target) async {
        guard let id = feeds.first(where: { $0.value.target == target })?.key, let feed = feeds.removeValue(forKey: id) else {
            return
        }
        feed.tasks.forEach { $0.cancel() }
        await pool.unsubscribe(id)
    }

    private func receive(_ id: SubscriptionID, _ message: PoolSubscriptionMessage) async {
        guard let feed = feeds[id] else { return }
        switch message {
        case .event(let event, _):
            if feed.buffering {
                feeds[id]?.buffer.append(event)
                if feed.buffer.count + 1 >= options.catchUpBufferLimit {
                    logger.notice("catch-up buffer of \(id) full: handling its events now")
                    await flush(id)
                }
            } else {
                await handle(event)
            }
        case .caughtUp:
            await flush(id)
        case .closed(let relay, let reason):
            logger.info("subscription \(id) closed by \(relay): \(reason)")
        case .endOfStoredEvents:
            break
        }
    }

    /// Handles the buffered stored events oldest first (created_at, then id), including any that
    /// arrive meanwhile, then goes live; a group's catch-up may trigger its post-join self-update.
    private func flush(_ id: SubscriptionID) async {
        guard let feed = feeds[id], feed.buffering, !feed.flushing else { return }
        feeds[id]?.flushing = true
        while let batch = feeds[id]?.buffer, !batch.isEmpty {
            feeds[id]?.buffer = []
            for event in batch.sorted(by: Self.chronological) { await handle(event) }
        }
        guard feeds[id] != nil else { return }
        feeds[id]?.buffering = false
        feeds[id]?.flushing = false
        noteFeedFlushed(id)
        switch feed.target {
        case .group(let group):
            await commitPendingSelfRemoves(group)
            await performDueSelfUpdate(group)
        case .groups(let groups):
            for group in groups {
                await commitPendingSelfRemoves(group)
                await performDueSelfUpdate(group)
                await rotateIfStale(group)
            }
        case .giftWraps: break
        }
    }

    static func chronological(_ a: Event, _ b: Event) -> Bool { ParkedEvents.chronological(a, b) }

    /// Takes one event as if a relay had delivered it: for benches that feed a client a bag of
    /// events without the network between (the same path as a subscription's events).
    package func take(_ event: Event) async {
        await handle(event)
    }

    func handle(_ event: Event) async {
        switch event.kind {
        case .giftWrap: await handleGiftWrap(event)
        case .groupMessage: await handleGroupEvent(event)
        default: logger.debug("ignoring kind \(event.kind) event \(event.id.hex)")
        }
    }

    // MARK: Exclusive section

    /// Serialises MLS state changes: incoming events, sends and commits never interleave, even
    /// across the awaits of publishing.
    func acquire() async {
        guard exclusive else {
            exclusive = true
            return
        }
        await withCheckedContinuation { exclusiveWaiters.append($0) }
    }

    func release() {
        if exclusiveWaiters.isEmpty {
            exclusive = false
        } else {
            exclusiveWaiters.removeFirst().resume()
        }
    }

    // MARK: Persistence helpers

    func emit(_ event: MarmotClientEvent) { eventSink.yield(event) }

    func requireStarted() throws {
        guard started else { throw MarmotClientError.notStarted }
    }

    /// Runs a store call, mapping its error to `.storage`.
    func storage<T>(_ body: () throws -> T) throws(MarmotClientError) -> T {
        do { return try body() } catch let error as MarmotClientError { throw error } catch {
            throw .storage("\(error)")
        }
    }

    func session(_ id: GroupID) throws(MarmotClientError) -> GroupSession {
        guard let session = sessions[id] else { throw .unknownChat(id) }
        return session
    }

    /// Persists `mls` as the group's state and adopts it. The row is re-read first so counters that
    /// `saveMessage` maintains are kept.
    func persist(_ mls: MLSGroup, for id: GroupID, groupData: GroupMetadata? = nil, status: GroupStatus? = nil) throws {
        guard var session = sessions[id] else { throw MarmotClientError.unknownChat(id) }
        // A group on the engine changes only through it (`MarmotClient+Engine`).
        guard engines[id] == nil else { throw MarmotClientError.storage("the state of \(id) is its engine's") }
        // The store moves the activity columns as messages arrive; the rest of the row is ours.
        var row = session.stored
        if let activity = try store.groupActivity(mlsGroupID: id) { row.activity = activity }
        row.setState(mls)
        if let groupData {
            row.nostrGroupID = groupData.nostrGroupID
            row.name = groupData.name
            row.groupDescription = groupData.groupDescription
            row.admins = groupData.admins
            row.relays = groupData.relays
        }
        if let status { row.status = status }
        try store.saveGroup(row)
        session.mls = mls
        session.stored = row
        sessions[id] = session
    }

    /// Re-reads the row's activity columns (after `saveMessage` or the expiry sweep changed them).
    func refreshRow(_ id: GroupID) {
        if let activity = try? store.groupActivity(mlsGroupID: id) { sessions[id]?.stored.activity = activity }
    }

    /// Stores what an application message changed in `mls`: only its secret trees (a ratchet step,
    /// a used key deleted), not the whole group, when the group is stored apart (issue 27); a group
    /// still stored whole (before its first save in this format) is saved whole, once.
    func persistRatchets(_ mls: MLSGroup, for id: GroupID) throws {
        guard sessions[id]?.stored.mlsRatchets != nil else { return try persist(mls, for: id) }
        let ratchets = mls.serializedRatchets()
        try store.saveGroupRatchets(mlsGroupID: id, ratchets: ratchets)
        sessions[id]?.mls = mls
        sessions[id]?.stored.mlsRatchets = ratchets
    }

    /// Stores the group-event key of the group's current epoch and forgets keys older than five
    /// epochs back (MDK's lookback, marmot-wire §5.2).
    func storeCurrentEventKey(_ id: GroupID) throws {
        guard let session = sessions[id] else { throw MarmotClientError.unknownChat(id) }
        let epoch = session.mls.epoch
        let key = try GroupEventKey(exporter: { try session.mls.exporter(label: $0, context: $1, length: $2) })
        try store.saveGroupEventKey(key, epoch: epoch, mlsGroupID: id)
        try store.pruneGroupEventKeys(mlsGroupID: id, keepingFrom: epoch >= 5 ? epoch - 5 : 0)
        sessions[id]?.eventKeys = try store.groupEventKeys(mlsGroupID: id).filter { $0.epoch <= epoch }
        storeCurrentMediaSecret(id)
    }

    func record(_ id: EventID, _ outcome: ProcessedOutcome, group: GroupID?) {
        do {
            try store.recordProcessedEvent(ProcessedEvent(eventID: id, outcome: outcome, processedAt: now(), mlsGroupID: group))
        } catch {
            logger.error("cannot record event \(id.hex) as \(outcome): \(error)")
        }
    }

    func isProcessed(_ id: EventID) -> Bool {
        (try? store.processedEvent(id: id)) != nil
    }

    /// Reports an event we cannot use and, with `record`, remembers it so it is never tried again.
    func drop(_ event: Event, _ reason: DropReason, group: GroupID?, record: Bool = true) {
        // A reason may quote what the event's author wrote (a parse error): printed as one clean line.
        logger.notice("dropped kind \(event.kind) \(event.id.hex): \(UntrustedText.line("\(reason)", limit: 300))")
        if record { self.record(event.id, .failed, group: group) }
        emit(.dropped(eventID: event.id, reason: reason))
    }
}

/// The results of `MarmotClient.decodeStates`, written from the decoding threads (one slot each).
private final class DecodedStates: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [Result<MLSGroup, any Error>?]

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ result: Result<MLSGroup, any Error>) {
        lock.withLock { slots[index] = result }
    }

    /// Every slot, in order; a slot never written (cannot happen) reads as a failure, not a crash.
    var values: [Result<MLSGroup, any Error>] {
        lock.withLock { slots.map { $0 ?? .failure(GroupError.invalidState("not decoded")) } }
    }
}
