import Foundation
import Logging
import MLS
import Nostr
import NostrClient
import NostrRelay
import TestSupport
@testable import Marmot

/// One account in a client test: keys, a database file, and the running client with its events.
final class TestAccount: Sendable {
    let name: String
    let keys: Keys
    let databasePath: String
    let relayURLs: [String]
    let clock: @Sendable () -> Int64
    let options: MarmotClient.Options
    let client: MarmotClient
    let pool: RelayPool
    let store: GRDBMarmotStore
    let inbox: Inbox<MarmotClientEvent>
    private let pump: Task<Void, Never>

    /// Opens (or reopens) the account's store and starts a client on `relayURLs`.
    init(
        _ name: String, keys: Keys = .generate(), databasePath: String? = nil, relayURLs: [String],
        clock: @escaping @Sendable () -> Int64 = { UnsignedEvent.now() }, options: MarmotClient.Options = ClientHarness.options
    ) async throws {
        self.name = name
        self.options = options
        self.keys = keys
        self.databasePath = databasePath ?? ClientHarness.temporaryDatabasePath(name)
        self.relayURLs = relayURLs
        self.clock = clock
        store = try GRDBMarmotStore(
            path: self.databasePath, key: StorageKey(deriving: keys.secretKey, installationSecret: ClientHarness.installationSecret))
        pool = RelayPool(
            relays: relayURLs, configuration: ClientHarness.poolConfiguration, logger: ClientHarness.logger("\(name).pool"))
        client = MarmotClient(
            keys: keys, store: store, pool: pool, relays: try relayURLs.map { try RelayURL($0) },
            options: options, now: clock, logger: ClientHarness.logger(name))
        let inbox = Inbox<MarmotClientEvent>()
        self.inbox = inbox
        let events = client.events
        pump = Task {
            for await event in events { await inbox.put(event) }
        }
        try await client.start()
    }

    /// A new client over the same database file and keys (the previous one is stopped first).
    func restarted() async throws -> TestAccount {
        await shutdown()
        return try await TestAccount(
            name, keys: keys, databasePath: databasePath, relayURLs: relayURLs, clock: clock, options: options)
    }

    func shutdown() async {
        await client.stop()
        await pool.disconnect()
        pump.cancel()
        try? store.close()
    }

    var publicKey: PublicKey { keys.publicKey }

    // MARK: Waiting for events

    /// Waits for an invitation, accepts it as the user would, and returns the joined chat.
    func waitForWelcome(timeout: Double = 30) async throws -> (Chat, PublicKey) {
        let invite = try await waitForInvite(timeout: timeout)
        _ = try await client.acceptInvite(invite.id)
        let event = await inbox.first(timeout: timeout) { if case .welcomeJoined = $0 { true } else { false } }
        guard case .welcomeJoined(let chat, let inviter) = event else { throw HarnessError.timeout("\(name): welcome") }
        return (chat, inviter)
    }

    /// Waits for an invitation to arrive (not accepted).
    func waitForInvite(timeout: Double = 30) async throws -> Invite {
        let event = await inbox.first(timeout: timeout) { if case .inviteReceived = $0 { true } else { false } }
        guard case .inviteReceived(let invite) = event else { throw HarnessError.timeout("\(name): invitation") }
        return invite
    }

    func waitForMessage(_ text: String, timeout: Double = 30) async throws -> StoredMessage {
        let event = await inbox.first(timeout: timeout) {
            if case .messageReceived(_, let message) = $0 { message.content == text } else { false }
        }
        guard case .messageReceived(_, let message) = event else { throw HarnessError.timeout("\(name): message \(text)") }
        return message
    }

    func waitForCommit(epoch: UInt64, by committer: PublicKey? = nil, timeout: Double = 30) async throws -> PublicKey? {
        let event = await inbox.first(timeout: timeout) {
            if case .commitApplied(_, let e, let c) = $0 { e == epoch && (committer == nil || c == committer) } else { false }
        }
        guard case .commitApplied(_, _, let committer) = event else {
            throw HarnessError.timeout("\(name): commit to epoch \(epoch)")
        }
        return committer
    }

    func waitForDrop(timeout: Double = 30, _ predicate: @escaping @Sendable (DropReason) -> Bool = { _ in true }) async throws
        -> (EventID, DropReason)
    {
        let event = await inbox.first(timeout: timeout) {
            if case .dropped(_, let reason) = $0 { predicate(reason) } else { false }
        }
        guard case .dropped(let id, let reason) = event else { throw HarnessError.timeout("\(name): dropped event") }
        return (id, reason)
    }

    /// Events received so far and not yet consumed.
    func pendingEvents() async -> [MarmotClientEvent] { await inbox.drain() }

    /// The chat's MLS epoch and epoch authenticator (equal on two members iff they agree on the epoch).
    func epochState(_ chat: GroupID) async -> (epoch: UInt64, authenticator: Data)? {
        await client.epochStateForTesting(chat)
    }

    /// All stored messages of a chat, oldest first.
    func allMessages(_ chat: GroupID) async throws -> [StoredMessage] {
        var out: [StoredMessage] = []
        var cursor: MessageCursor?
        repeat {
            let page = try await client.messages(in: chat, before: cursor, limit: 7)
            out += page.messages
            cursor = page.nextCursor
        } while cursor != nil
        return out.reversed()
    }
}

enum HarnessError: Error, CustomStringConvertible {
    case timeout(String)
    case unexpected(String)

    var description: String {
        switch self {
        case .timeout(let what): "timed out waiting for \(what)"
        case .unexpected(let what): what
        }
    }
}

enum ClientHarness {
    /// One installation secret for every account of a test run (each account has its own nsec).
    static let installationSecret = InstallationSecret.generate()

    static var poolConfiguration: RelayClientConfiguration {
        var configuration = RelayClientConfiguration()
        configuration.backoff = Backoff(initial: .milliseconds(200), maximum: .seconds(1))
        configuration.publishTimeout = .seconds(15)
        configuration.connectTimeout = .seconds(5)
        return configuration
    }

    static var options: MarmotClient.Options {
        var options = MarmotClient.Options()
        options.catchUpTimeout = .seconds(3)
        options.keyPackageFetchTimeout = .seconds(8)
        return options
    }

    static func logger(_ label: String) -> Logger {
        var logger = Logger(label: "test.\(label)")
        logger.logLevel = Logger.Level(rawValue: testLogLevel) ?? .warning
        return logger
    }

    static func temporaryDatabasePath(_ name: String) -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("marmot-client-tests-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent("\(name).sqlite").path
    }

    /// An embedded relay on a free loopback port.
    static func startRelay(_ configure: (inout RelayConfiguration) -> Void = { _ in }) async throws -> (RelayServer, String) {
        // No event rates: FloodTests floods from one connection on purpose, to test the client.
        var configuration = RelayConfiguration()
        configuration.connectionEventRate = nil
        configuration.globalEventRate = nil
        configure(&configuration)
        let server = RelayServer(configuration: configuration, logger: logger("relay"))
        let port = try await server.start()
        return (server, "ws://127.0.0.1:\(port)")
    }

    /// A raw relay connection for injecting events.
    static func rawClient(_ url: String) async throws -> RelayClient {
        let client = RelayClient(url: url, configuration: poolConfiguration, logger: logger("raw"))
        await client.connect()
        _ = try await withTimeout(60, "raw connect") {
            for await status in await client.statusUpdates() where status == .connected { return true }
            return false
        }
        return client
    }
}

extension MarmotClient {
    /// Test view of a chat's MLS epoch and epoch authenticator.
    func epochStateForTesting(_ id: GroupID) -> (epoch: UInt64, authenticator: Data)? {
        sessions[id].map { ($0.mls.epoch, $0.mls.epochAuthenticator) }
    }

    /// The snapshot kept for `epoch` (the commit that ended it).
    func snapshotForTesting(_ id: GroupID, epoch: UInt64) throws -> (eventID: EventID, createdAt: Int64)? {
        try loadSnapshot(group: id, epoch: epoch).map { ($0.commitEventID, $0.commitCreatedAt) }
    }

    /// For a group on the engine (v2): the commit its selected branch took out of `epoch` (its
    /// committer, and the SHA-256 of its MLS bytes as its digest).
    func canonicalCommitForTesting(_ id: GroupID, epoch: UInt64) -> CommitOrderingKey? {
        guard let graph = engines[id]?.graph else { return nil }
        return graph.path(to: graph.canonical).compactMap { graph.nodes[$0] }.first { $0.epoch == epoch + 1 }?.commit?.key
    }

    /// For a group on the engine: the messages it parked (they opened and wait for a state).
    func engineParkedForTesting(_ id: GroupID) -> Int { engines[id]?.parked.count ?? 0 }

    /// Deletes the snapshot kept for `epoch`, as its age limit (`Options.snapshotMaxAge`) does.
    func forgetSnapshotForTesting(_ id: GroupID, epoch: UInt64) throws {
        try store.setSetting(EpochSnapshot.settingKey(id, epoch: epoch), nil)
    }

    /// Feeds an event as if a relay delivered it again.
    func deliverForTesting(_ event: Event) async {
        switch event.kind {
        case .giftWrap: await handleGiftWrap(event)
        default: await handleGroupEvent(event)
        }
    }
}
