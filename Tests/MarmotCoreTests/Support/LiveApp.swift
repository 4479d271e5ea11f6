import Foundation
import Logging
import MarmotCore
import Nostr
import NostrClient
import NostrRelay
import Testing

/// A `MarmotApp` wired to the real Marmot messaging service and relays, in a directory that
/// survives `restarted()` (the directory is removed by `LiveWorld` at the end).
final class LiveApp: Sendable {
    let name: String
    let app: MarmotApp
    let recorder = UpdateRecorder()
    /// The snapshot before any update, which the recorded updates replay onto.
    let initial: AppState
    let directory: URL
    let relays: [URL]
    let options: MarmotMessagingOptions
    /// The platform's installation secret: kept across `restarted()`, as a device keeps it.
    let installationSecret: InstallationSecret

    init(
        _ name: String, directory: URL, relays: [URL], options: MarmotMessagingOptions = LiveApp.testOptions,
        installationSecret: InstallationSecret = .generate()
    ) {
        self.name = name
        self.directory = directory
        self.relays = relays
        self.options = options
        self.installationSecret = installationSecret
        let configuration = AppConfiguration(
            relayURLs: relays, messagingServiceFactory: MarmotMessaging.factory(options), logLevel: .notice,
            installationSecret: installationSecret, toastDuration: .seconds(600))
        app = MarmotApp(dataDirectory: directory, configuration: configuration)
        initial = app.state()
        app.listenForUpdates(recorder)
    }

    /// Fast reconnects; timeouts generous enough for a CI machine running every suite at once.
    static var testOptions: MarmotMessagingOptions {
        var options = MarmotMessagingOptions()
        options.publishTimeout = .seconds(15)
        options.keyPackageFetchTimeout = .seconds(10)
        options.catchUpTimeout = .seconds(2)
        options.reconnectBackoff = Backoff(initial: .milliseconds(100), maximum: .milliseconds(500))
        options.logLevel = .warning
        return options
    }

    /// `testOptions` with a shorter publish timeout, for tests where the relay goes away or never
    /// answers; still long enough that the pair's own set-up does not time out on a busy CI machine.
    static var quickFailureOptions: MarmotMessagingOptions {
        var options = testOptions
        options.publishTimeout = .seconds(10)
        return options
    }

    func state() -> AppState { app.state() }
    func dispatch(_ action: AppAction) { app.dispatch(action) }

    func waitFor(_ what: String, timeout: Duration = .seconds(60), _ condition: @escaping @Sendable (AppState) -> Bool)
        async throws
    {
        let app = self.app
        do {
            try await waitUntil("\(name): \(what)", timeout: timeout) { condition(app.state()) }
        } catch {
            let state = app.state()
            print("\(name) state at timeout: auth=\(state.auth) busy=\(state.busy) toast=\(state.toast ?? "-") "
                + "top=\(state.router.topScreen) chats=\(state.chatList.map { "\($0.lastMessagePreview)/\($0.unreadCount)" }) "
                + "thread=\(state.currentChat?.messages.count ?? -1)")
            throw error
        }
    }

    /// Waits for `inviter`'s invitation, accepts it as the user would, waits for the chat it leads
    /// to, then goes back to the chat list; returns the chat's id.
    @discardableResult
    func acceptInvite(from inviter: PublicKey) async throws -> ChatID {
        let npub = inviter.npub
        try await waitFor("invitation from \(npub.prefix(12))") { $0.invites.contains { $0.inviterNpub == npub } }
        let invite = try #require(state().invites.first { $0.inviterNpub == npub })
        dispatch(.acceptInvite(inviteID: invite.inviteID))
        let chatID = ChatID(invite.inviteID.rawValue)
        try await waitFor("invited chat open") { $0.currentChat?.chatID == chatID && !$0.invites.contains { $0.inviteID == invite.inviteID } }
        try await waitFor("join finished (history read, key update made)") { !$0.busy.finishingJoins.contains(chatID) }
        dispatch(.updateScreenStack([]))
        try await waitFor("back on the chat list") { $0.currentChat == nil }
        return chatID
    }

    /// Waits until the listener has every committed update.
    func waitForListener() async throws {
        let app = self.app
        let recorder = self.recorder
        try await waitUntil("\(name): listener caught up") { recorder.lastRev == app.state().rev }
    }

    /// Creates an account; returns its keys (from the AccountCreated side effect, as a platform would).
    func createAccount() async throws -> Keys {
        dispatch(.createAccount)
        try await waitFor("logged in") { $0.auth.isLoggedIn && !$0.busy.creatingAccount }
        try await waitForListener()
        for update in recorder.updates {
            if case .accountCreated(_, let nsec, _, _) = update { return try Keys(importing: nsec) }
        }
        throw WaitTimeout(what: "\(name): AccountCreated")
    }

    /// Logs out (stopping the messaging service) and makes a new app over the same directory that
    /// restores the session, as a platform does at launch.
    func restarted(keys: Keys) async throws -> LiveApp {
        dispatch(.logout)
        try await waitFor("logged out") { !$0.auth.isLoggedIn }
        let next = LiveApp(name, directory: directory, relays: relays, options: options, installationSecret: installationSecret)
        next.dispatch(.restoreSession(nsec: keys.secretKey.nsecEncoded()))
        try await next.waitFor("restored") { $0.auth.isLoggedIn && !$0.busy.restoringSession }
        return next
    }

    var chatID: ChatID? { state().chatList.first?.chatID }
}

/// Relays and temporary directories of one live test; `close()` stops and removes them.
final class LiveWorld: Sendable {
    let root: URL
    private let servers = Locked<[RelayServer]>([])

    init() {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("marmot-live-\(UUID().uuidString)")
    }

    /// Starts an embedded relay (in memory, or in `file` so it can be restarted with its events).
    func startRelay(port: Int = 0, file: String? = nil, faults: RelayFaults = .none) async throws -> (RelayServer, URL) {
        var logger = Logger(label: "test.relay")
        logger.logLevel = .warning
        let storage: RelayStorage = file.map { .file(path: root.appendingPathComponent($0).path) } ?? .inMemory
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        var configuration = RelayConfiguration(port: port, storage: storage)
        configuration.faults = faults
        let server = RelayServer(configuration: configuration, logger: logger)
        let bound = try await server.start()
        servers.update { $0.append(server) }
        guard let url = URL(string: "ws://127.0.0.1:\(bound)") else { throw WaitTimeout(what: "relay url") }
        return (server, url)
    }

    func app(_ name: String, relays: [URL], options: MarmotMessagingOptions = LiveApp.testOptions) -> LiveApp {
        LiveApp(name, directory: root.appendingPathComponent(name), relays: relays, options: options)
    }

    func close() async {
        for server in servers.current { await server.stop() }
        try? FileManager.default.removeItem(at: root)
    }

    /// Waits until `relay` holds a key package (kind 30443) of `author`, so a chat can be created.
    static func waitForKeyPackage(of author: PublicKey, on relay: URL) async throws {
        let pool = RelayPool(relays: [relay.absoluteString])
        await pool.connect()
        defer { Task { await pool.disconnect() } }
        try await waitUntil("key package of \(author.hex.prefix(8)) on the relay") {
            try await query(pool, Filter(authors: [author], kinds: [.addressableKeyPackage])).count > 0
        }
    }

    /// The stored events matching `filter` (up to EOSE).
    static func query(_ pool: RelayPool, _ filter: Filter) async throws -> [Event] {
        let subscription = await pool.subscribe([filter])
        defer { Task { await pool.unsubscribe(subscription.id) } }
        var events: [Event] = []
        for await message in subscription {
            switch message {
            case .event(let event, _): events.append(event)
            case .caughtUp: return events
            default: continue
            }
        }
        return events
    }
}
