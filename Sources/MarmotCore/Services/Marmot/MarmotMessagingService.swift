import Foundation
import Logging
import MLS
import Marmot
import Nostr
import NostrClient

/// `MessagingService` over a `MarmotClient` and a `RelayPool`: one encrypted store file, one set of
/// relay connections and one Marmot client per session (MIP-00..03).
///
/// `start()` opens storage and returns at once; connecting, subscribing and publishing the key
/// package run in the background, so the chat list comes from the database before the network is
/// touched and an unreachable relay never delays the UI. Calls that need the network wait for that
/// start-up first.
actor MarmotMessagingService: MessagingService {
    /// The store file inside the account directory.
    static let storeFileName = "marmot.sqlite"

    let context: SessionContext
    let options: MarmotMessagingOptions
    let logger: Logger

    var client: MarmotClient?
    var pool: RelayPool?
    var store: GRDBMarmotStore?
    var online: Task<Void, any Error>?
    var background: [Task<Void, Never>] = []
    var continuation: AsyncStream<MessagingEvent>.Continuation?
    var ids = LocalMessageIDs()
    var relayStates: [String: Bool] = [:]
    /// Each relay's state and last activity as last reported to the core (issue 17).
    var relayDetails: [String: RelayDetail] = [:]
    /// The relays chats brought, as the client last reported them (issue 26).
    var groupRelays: [GroupRelayOrigin] = []
    /// Calls that arrived before `start()`; the core may ask for chats while the service starts.
    var startWaiters: [CheckedContinuation<Void, Never>] = []
    var stopped = false
    /// The task that reports `.syncStatus(.live)`.
    var catchUpWatch: Task<Void, Never>?
    var catchUpDeadline: Task<Void, Never>?
    var reportedLive = false

    init(context: SessionContext, options: MarmotMessagingOptions) {
        self.context = context
        self.options = options
        self.logger = options.logger("marmot.messaging")
    }

    // MARK: Life cycle

    func start() async throws -> AsyncStream<MessagingEvent> {
        guard client == nil, !stopped else { throw MarmotMessagingError.alreadyStarted }
        let relays = try context.relayURLs.map { url in
            do { return try RelayURL(url.absoluteString) } catch { throw MarmotMessagingError.invalidRelay(url.absoluteString) }
        }
        guard !relays.isEmpty else { throw MarmotMessagingError.noRelays }
        guard let installationSecret = context.installationSecret else {
            throw MarmotMessagingError.storage("no installation secret (AppConfiguration.installationSecret)")
        }
        let store: GRDBMarmotStore
        do {
            let path = context.accountDirectory.appendingPathComponent(Self.storeFileName).path
            // A database of an earlier version, keyed by the nsec alone, is rekeyed on first open.
            let secretKey = context.keys.secretKey
            store = try GRDBMarmotStore(
                path: path, key: StorageKey(deriving: secretKey, installationSecret: installationSecret),
                legacyKey: .legacy(deriving: secretKey))
        } catch {
            throw MarmotMessagingError.storage("\(error)")
        }
        var configuration = RelayClientConfiguration()
        configuration.publishTimeout = options.publishTimeout
        configuration.connectTimeout = options.publishTimeout
        configuration.backoff = options.reconnectBackoff
        // The relays screen shows activity to the minute: a busy relay reports it every 10 s at most.
        configuration.activityReportInterval = .seconds(10)
        // NIP-42: the account key answers on our relays only, a throw-away key elsewhere (README).
        let authPolicy = MarmotClient.relayAuthPolicy(keys: context.keys) { [weak self] url in
            await self?.isOwnRelay(url) ?? false
        }
        let pool = RelayPool(
            relays: relays.map(\.string), configuration: configuration, logger: options.logger("marmot.relays"),
            authPolicy: authPolicy)
        var clientOptions = MarmotClient.Options()
        clientOptions.keyPackageFetchTimeout = options.keyPackageFetchTimeout
        clientOptions.catchUpTimeout = options.catchUpTimeout
        clientOptions.crashPoint = options.crashPoint
        for (old, current) in options.relayAliases {
            guard let old = try? RelayURL(old), let current = try? RelayURL(current), old != current else { continue }
            clientOptions.relayAliases[old] = current
        }
        let clock = context.clock
        let client = MarmotClient(
            keys: context.keys, store: store, pool: pool, relays: relays, options: clientOptions,
            now: { clock.unixSeconds() }, logger: options.logger("marmot.client"))
        self.client = client
        self.pool = pool
        self.store = store

        let (stream, continuation) = AsyncStream.makeStream(of: MessagingEvent.self, bufferingPolicy: .unbounded)
        self.continuation = continuation
        // Catching up from now; `.live` follows the client's `.caughtUp` (or the deadline).
        continuation.yield(.syncStatus(.catchingUp))
        let publishKeyPackage = options.publishKeyPackageOnStart
        let catchUp = options.catchUpTimeout
        online = Task { [weak self] in
            do {
                try await client.start()
            } catch {
                // Nothing more will arrive: what storage holds is all there is, so waiters go on.
                await self?.yieldInvites(client)
                await self?.endCatchUp()
                throw error
            }
            await self?.yieldInvites(client)
            await self?.trackCatchUp(limit: catchUp, client: client)
            // The outbox of a previous run (a crash before a relay's OK) goes out without the user.
            _ = await client.resumeOutbox()
            // Names are a nicety: looked up beside the key package upkeep, never before it.
            Task { [weak self] in await self?.refreshNames(client) }
            guard publishKeyPackage else { return }
            await self?.announce(client: client, relays: relays)
        }
        startWaiters.forEach { $0.resume() }
        startWaiters = []
        background.append(Task { [weak self] in
            for await event in client.events { await self?.forward(event) }
        })
        let statuses = await pool.statusUpdates()
        background.append(Task { [weak self] in
            for await change in statuses { await self?.relayChanged(change) }
        })
        return stream
    }

    func stop() async {
        guard !stopped else { return }
        stopped = true
        startWaiters.forEach { $0.resume() }
        startWaiters = []
        online?.cancel()
        catchUpWatch?.cancel()
        catchUpDeadline?.cancel()
        background.forEach { $0.cancel() }
        background = []
        await client?.stop()
        await pool?.disconnect()
        do {
            try store?.close()
        } catch {
            logger.warning("store not closed", metadata: ["reason": "\(error)"])
        }
        continuation?.finish()
        continuation = nil
    }

    func reconnect() async {
        await pool?.connect()
    }

    /// Keeps one key package of ours per protocol version visible (MIP-00 upkeep) and publishes the relay lists peers use to reach this account (MIP-00
    /// kind 10051 for key packages, NIP-17 kind 10050 for gift-wrapped Welcomes).
    private func announce(client: MarmotClient, relays: [RelayURL]) async {
        // Without any relay, looking up and publishing could only time out one step after another:
        // say at once (after the connection wait) that the key package is not out.
        guard await awaitConnection() else {
            logger.warning("no relay reachable: key package not published", metadata: ["relays": "\(relays.count)"])
            continuation?.yield(.keyPackagePublished(false))
            return
        }
        do {
            // One per protocol version (v1 and v2), so peers of either can invite us.
            let upkeep = try await client.ensureKeyPackages()
            let available = !upkeep.isEmpty && upkeep.values.allSatisfy(\.isAvailable)
            if !available {
                logger.warning("key package not accepted by any relay", metadata: ["relays": "\(relays.count)"])
            }
            continuation?.yield(.keyPackagePublished(available))
        } catch {
            logger.warning("key package not published", metadata: ["reason": "\(error)"])
            continuation?.yield(.keyPackagePublished(false))
        }
        // NIP-65 10002, NIP-17 10050 and MIP-00 10051: how peers on other relays find us.
        if !(await client.publishRelayLists()) {
            logger.warning("relay lists not accepted by any relay", metadata: ["relays": "\(relays.count)"])
        }
    }

    /// The client once connected and subscribed; throws what start-up threw.
    func connectedClient() async throws -> MarmotClient {
        await waitForStart()
        guard let client, let online, !stopped else { throw MarmotMessagingError.notStarted }
        do {
            try await online.value
        } catch {
            throw MarmotMessagingError.friendly(error)
        }
        return client
    }

    /// The client for reading storage, which needs no network.
    func storedClient() async throws -> MarmotClient {
        await waitForStart()
        guard let client, !stopped else { throw MarmotMessagingError.notStarted }
        return client
    }

    /// Whether some relay is connected, waiting up to the publish timeout for one to come up.
    private func awaitConnection() async -> Bool {
        let deadline = ContinuousClock.now + options.publishTimeout
        while !relayStates.values.contains(true) {
            guard ContinuousClock.now < deadline, !stopped else { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    /// Returns once `start()` has made the client (or the service stopped).
    private func waitForStart() async {
        while online == nil, !stopped {
            await withCheckedContinuation { startWaiters.append($0) }
        }
    }

    // MARK: Queries

    func listChats() async throws -> [ChatInfo] {
        // Chats we left or were removed from stay listed, readable and marked (`isMember`).
        try await withPreferences(try await infos(client: try await storedClient()))
    }

    func loadMessages(chatID: ChatID, before: MessageID?, limit: Int) async throws -> MessagePage {
        let client = try await storedClient()
        let group = try Self.groupID(chatID)
        var cursor: MessageCursor?
        if let before {
            guard let rumor = ids.rumor(for: before), let anchor = try await client.message(rumor, in: group) else {
                throw MarmotMessagingError.unknownMessage
            }
            cursor = anchor.cursor
        }
        let page = try await client.messages(in: group, before: cursor, limit: limit)
        let shown = page.messages.reversed().compactMap(record)
        return MessagePage(messages: shown, hasOlder: page.nextCursor != nil)
    }

    func markRead(chatID: ChatID) async throws {
        try await storedClient().markRead(Self.groupID(chatID))
    }

    func unreadMessages(chatID: ChatID) async throws -> [MessageRecord] {
        try await storedClient().unreadMessages(in: Self.groupID(chatID)).compactMap(record)
    }

    // MARK: Commands

    func createChat(with peer: PublicKey, relayHints: [URL]) async throws -> ChatInfo {
        let client = try await connectedClient()
        let hints = relayHints.compactMap { try? RelayURL($0.absoluteString) }
        // Without any relay the key package lookup could only end in a misleading "not found".
        guard await awaitConnection() else { throw MarmotMessagingError.noRelayReachable }
        do {
            let created = try await client.createChat(with: peer, relayHints: hints)
            guard let info = try await info(created.chat, client: client) else { throw MarmotMessagingError.notOneToOne }
            return info
        } catch {
            throw MarmotMessagingError.friendly(error)
        }
    }

    func queue(_ message: OutgoingMessage) async throws {
        let client = try await connectedClient()
        let group = try Self.groupID(message.chatID)
        do {
            if let file = message.attachment {
                let queued = try await client.queueMedia(
                    OutgoingMedia(data: file.data, mimeType: file.mimeType, filename: file.filename), caption: message.content,
                    to: group)
                ids.bind(message.id, to: queued.rumorID)
                return
            }
            let form = try wireForm(message)
            let queued = try await client.queue(kind: form.kind, content: form.content, tags: form.tags, to: group)
            ids.bind(message.id, to: queued.rumorID)
            // Our deletion is durable in the outbox: what it deletes goes from the store now.
            if !message.role.deletes.isEmpty { await applyDeletion(queued, targets: message.role.deletes) }
        } catch {
            throw MarmotMessagingError.friendly(error)
        }
    }

    func send(_ message: OutgoingMessage) async throws -> DeliveryOutcome {
        let client = try await connectedClient()
        let group = try Self.groupID(message.chatID)
        do {
            if let rumor = ids.boundRumor(for: message.id) {
                return Self.outcome(try await client.deliverQueued(rumor, in: group))
            }
            if message.attachment != nil {
                try await queue(message)
                guard let rumor = ids.boundRumor(for: message.id) else { throw MarmotMessagingError.unknownMessage }
                return Self.outcome(try await client.deliverQueued(rumor, in: group))
            }
            let form = try wireForm(message)
            let sent = try await client.send(kind: form.kind, content: form.content, tags: form.tags, to: group)
            ids.bind(message.id, to: sent.id)
            if !message.role.deletes.isEmpty { await applyDeletion(sent.message, targets: message.role.deletes) }
            return Self.outcome(sent)
        } catch {
            throw MarmotMessagingError.friendly(error)
        }
    }

    func retry(_ message: OutgoingMessage) async throws -> DeliveryOutcome {
        let client = try await connectedClient()
        let group = try Self.groupID(message.chatID)
        guard let rumor = ids.rumor(for: message.id), try await client.message(rumor, in: group) != nil else {
            // The failed attempt never stored the message (for example the chat was not ready): send anew.
            return try await send(message)
        }
        do {
            return Self.outcome(try await client.retry(rumor, in: group))
        } catch MarmotClientError.nothingToRetry {
            let stored = try await client.message(rumor, in: group)
            guard stored?.deliveryState == .sent else { throw MarmotMessagingError.nothingToRetry }
            return .sent
        } catch {
            throw MarmotMessagingError.friendly(error)
        }
    }

    // MARK: Events

    private func forward(_ event: MarmotClientEvent) async {
        guard let continuation, let client else { return }
        switch event {
        case .inviteReceived, .invitesExpired:
            await yieldInvites(client)
        case .welcomeJoined(let chat, _):
            await yieldChat(chat, client: client)
        case .messagesInvalidated(let chat, let rumors):
            continuation.yield(.messagesInvalidated(chatID: Self.chatID(chat.id), messageIDs: rumors.map { ids.local(for: $0) }))
        case .messagesExpired(let chat, let rumors):
            continuation.yield(.messagesExpired(chatID: Self.chatID(chat.id), messageIDs: rumors.map { ids.local(for: $0) }))
            await yieldChat(chat, client: client)
        case .joinSettled(let chat):
            continuation.yield(.joinSettled(Self.chatID(chat.id)))
        case .membershipChanged(let chat, let message):
            await yieldChat(chat, client: client)
            if let record = record(message) { continuation.yield(.messageReceived(record)) }
        case .messageReceived(_, let message):
            guard let record = record(message) else {
                logger.debug("rumor kind not shown", metadata: ["kind": "\(message.kind)"])
                return
            }
            if !record.role.deletes.isEmpty {
                await applyDeletion(message, targets: record.role.deletes)
                continuation.yield(.messageReceived(record))
                return
            }
            continuation.yield(.messageReceived(record))
        case .deliveryChanged(let chat, let message):
            // Failures come back with their reason from the `send`/`retry` call that caused them.
            guard message.deliveryState == .sent else { return }
            continuation.yield(.deliveryChanged(
                chatID: Self.chatID(chat.id), messageID: ids.local(for: message.rumorID), outcome: .sent))
        case .uploadProgress(let chat, let rumorID, let percent):
            continuation.yield(.uploadProgress(chatID: Self.chatID(chat), messageID: ids.local(for: rumorID), percent: percent))
        case .commitApplied(let chat, let epoch, _):
            logger.debug("commit applied", metadata: ["chat": "\(chat.id)", "epoch": "\(epoch)"])
            await yieldChat(chat, client: client)
        case .convergenceChanged(let chat, let status):
            logger.info("convergence", metadata: ["chat": "\(chat.id)", "status": "\(status)"])
            await yieldChat(chat, client: client)
        case .dropped(let eventID, let reason):
            logger.notice("event dropped", metadata: ["event": "\(eventID.hex)", "reason": "\(reason)"])
        case .caughtUp:
            // Everything the stored events caused was forwarded before this: the core may say live.
            await reportLiveOnce(client)
        case .failure(let chat, let reason):
            logger.warning("background step failed", metadata: ["chat": "\(chat?.description ?? "-")", "reason": "\(reason)"])
        case .groupRelaysChanged(let foreign):
            groupRelays = foreign.map { GroupRelayOrigin(url: $0.url.string, chats: $0.groups.map(Self.chatID)) }
            let inUse = Set(await client.relays.map(\.string)).union(groupRelays.map(\.url))
            for url in relayStates.keys where !inUse.contains(url) { relayStates[url] = nil }
            for url in relayDetails.keys where !inUse.contains(url) { relayDetails[url] = nil }
            continuation.yield(.relayStatus(relayStatus(total: max(relayStates.count, context.relayURLs.count))))
        }
    }

    /// Reports the start-up catch-up: `.catchingUp` now (the client is subscribed), then `.live` when
    /// the client's `.caughtUp` event is forwarded (after every event the stored events caused), or
    /// at the latest `limit` plus a second later.
    func trackCatchUp(limit: Duration, client: MarmotClient) {
        catchUpDeadline = Task { [weak self] in
            try? await Task.sleep(for: limit + .seconds(1))
            guard !Task.isCancelled else { return }
            await self?.reportLiveOnce(client)
        }
    }

    /// Reports `.live` the first time it is called after `trackCatchUp`, with the invitations as
    /// the client has them then.
    private func reportLiveOnce(_ client: MarmotClient) async {
        guard !reportedLive, !stopped else { return }
        reportedLive = true
        catchUpDeadline?.cancel()
        await yieldInvites(client)
        continuation?.yield(.syncStatus(.live))
    }

    /// Reports `.live` at once (start-up failed: the catch-up is over without the network).
    func endCatchUp() {
        continuation?.yield(.syncStatus(.live))
    }

    private func relayChanged(_ change: RelayStatusChange) {
        let detail = Self.detail(change.report)
        guard relayDetails[change.relay] != detail else { return }
        relayDetails[change.relay] = detail
        relayStates[change.relay] = change.status.isConnected
        continuation?.yield(.relayStatus(relayStatus(total: max(relayStates.count, context.relayURLs.count))))
    }

    /// The relays as last reported, for the core.
    func relayStatus(total: Int) -> RelayStatus {
        RelayStatus(
            connected: relayStates.values.filter { $0 }.count, total: total, relays: relayStates, details: relayDetails,
            groupRelays: groupRelays)
    }

    /// Whether the user chose `url` (NIP-42 answers there are signed as the account).
    func isOwnRelay(_ url: String) async -> Bool {
        await client?.isOwnRelay(url) ?? false
    }

    /// A pool report in the core's terms: failing (with the failure's words) while down after a
    /// failure, the last activity in Unix seconds, and NIP-42 authentication.

    static func detail(_ report: RelayReport) -> RelayDetail {
        let state: RelayEntry.State =
            if let failure = report.failingReason {
                .failing(reason: failure.description)
            } else {
                switch report.status {
                case .connected: .connected
                case .disconnected: .disconnected
                case .connecting, .waitingToReconnect: .connecting
                }
            }
        let seconds = { (date: Date) in Int64(date.timeIntervalSince1970.rounded(.down)) }
        let downSince = if case .failing = state { report.downSince.map(seconds) } else { Int64?.none }
        let auth: RelayEntry.Auth =
            switch report.auth {
            case .notAsked: .notAsked
            case .authenticated: .authenticated
            case .refused(let reason): .refused(reason: reason)
            }
        return RelayDetail(state: state, lastEventAt: report.lastMessageAt.map(seconds), downSince: downSince, auth: auth)
    }
}
