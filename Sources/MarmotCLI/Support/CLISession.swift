import Foundation
import Logging
import MarmotAppKit
import MarmotCore

/// The bootstrap every command (and the interactive UI) shares: one `MarmotApp` per process over
/// `$MARMOT_HOME/data`, wrapped in an `AppManager` whose secret store is `$MARMOT_HOME/nsec` (0600),
/// with the storage key's installation secret beside it in `$MARMOT_HOME/install-secret` (0600).
///
/// The manager saves the nsec when the core reports `accountCreated` and, at start, hands a stored
/// nsec back to the core as `restoreSession`; the CLI itself never writes the secret. Relays come
/// from `RelayPlan`; with none configured, an embedded relay is started on loopback and announced in
/// one line on stderr.
///
/// Usage:
/// ```swift
/// let plan = try RelayPlan.resolve(options: [], home: home)
/// let session = try await CLISession.open(CLISession.Configuration(home: home, relays: plan))
/// try await session.requireAccount()
/// session.manager.dispatch(.createChat(peerNpub: npub))
/// let chatID = try await session.until("the chat") { state in ... }
/// await session.close()
/// ```
@MainActor
final class CLISession {
    /// What a session is opened with.
    struct Configuration {
        /// `$MARMOT_HOME`: `data/`, `nsec` and `relay.sqlite` live here.
        var home: URL
        var relays: RelayPlan
        var logLevel: Logger.Level = .warning
        /// Where the embedded relay keeps events, when it runs; nil keeps them in memory.
        var embeddedRelayDatabase: URL?
        /// Whether to start the real messaging layer (and so the embedded relay when needed).
        var messaging = true
        /// Whether to print the embedded relay's status line.
        var announceEmbeddedRelay = true
        /// Whether the messaging layer publishes a fresh key package when the session starts; one-shot
        /// commands that only read or send turn it off (no publish cut short by the process exiting).
        var publishKeyPackage = true
        /// Whether relay changes the core accepts are saved in `$MARMOT_HOME/relays` as they happen
        /// (the interactive UI and `marmot web`, whose Relays screens change them).
        var savesRelayChanges = false
        /// Whether the first `updates()` returns every update since the session opened (`listen`,
        /// which must see every message however early it arrived) instead of those from the call on.
        var recordsUpdates = false

        init(home: URL, relays: RelayPlan, logLevel: Logger.Level = .warning, messaging: Bool = true) {
            self.home = home
            self.relays = relays
            self.logLevel = logLevel
            self.messaging = messaging
            self.embeddedRelayDatabase = home.appendingPathComponent("relay.sqlite")
        }
    }

    let home: URL
    /// The relays the core uses: the configured ones, or the embedded relay's URL.
    let relayURLs: [URL]
    let relayPlan: RelayPlan
    let embeddedRelay: EmbeddedRelay?
    /// The app manager: mirrored state, dispatch, secret side effects. Hand this to a renderer.
    let manager: AppManager
    let secretStore: FileSecretStore
    private let tap: UpdateTap
    /// The updates since the session opened (`Configuration.recordsUpdates`), until `updates()` takes them.
    private var recorded: AsyncStream<AppUpdate>?
    private let watch: StateWatch
    private var relaySaver: RelaySaver?

    private init(
        home: URL, relayURLs: [URL], relayPlan: RelayPlan, embeddedRelay: EmbeddedRelay?, manager: AppManager,
        secretStore: FileSecretStore, tap: UpdateTap
    ) {
        self.home = home
        self.relayURLs = relayURLs
        self.relayPlan = relayPlan
        self.embeddedRelay = embeddedRelay
        self.manager = manager
        self.secretStore = secretStore
        self.tap = tap
        self.watch = StateWatch(manager: manager)
    }

    /// The secret store of `home`, readable without opening a session (`account export`).
    nonisolated static func secretStore(home: URL) -> FileSecretStore {
        FileSecretStore(fileURL: home.appendingPathComponent("nsec"))
    }

    /// Starts the embedded relay if needed, then the core and its manager (which restores a stored
    /// account at once).
    static func open(_ configuration: Configuration) async throws(CLIError) -> CLISession {
        CLILogging.bootstrap(level: configuration.logLevel)
        var embedded: EmbeddedRelay?
        var relayURLs = configuration.relays.urls
        if configuration.messaging, configuration.relays.usesEmbeddedRelay {
            // The port is kept with the events: a relay in memory starts afresh each time.
            let relay = try await EmbeddedRelay.start(
                database: configuration.embeddedRelayDatabase,
                portFile: configuration.embeddedRelayDatabase.map { _ in configuration.home.appendingPathComponent("relay-port") },
                logLevel: configuration.logLevel)
            if configuration.announceEmbeddedRelay {
                Output.status("marmot: no relay configured; using the embedded relay at \(relay.url.absoluteString) (use --relay URL for real relays)")
            }
            embedded = relay
            relayURLs = [relay.url]
        }
        var appConfiguration = AppConfiguration(relayURLs: relayURLs, logLevel: configuration.logLevel)
        if configuration.messaging {
            var options = MarmotMessagingOptions()
            options.logLevel = configuration.logLevel
            options.publishKeyPackageOnStart = configuration.publishKeyPackage
            options.relayAliases = embedded?.aliases ?? [:]
            // Crash tests only (Tests/MarmotCLITests/CrashRecoveryTests): the process kills itself there.
            options.crashPoint = ProcessInfo.processInfo.environment["MARMOT_TEST_CRASH_AT"].map(CrashPoint.init(rawValue:))
            appConfiguration.messagingServiceFactory = MarmotMessaging.factory(options)
        }
        let dataDirectory = configuration.home.appendingPathComponent("data", isDirectory: true)
        let store = secretStore(home: configuration.home)
        // `$MARMOT_HOME/install-secret` (0600), made at the first start, salts the storage key.
        let (configured, problem) = AppManager.configuration(appConfiguration, withInstallationSecretFrom: store)
        let app = MarmotApp(dataDirectory: dataDirectory, configuration: configured)
        let tap = UpdateTap(app: app)
        // Subscribed before the manager exists, so before it restores the account: nothing is missed.
        let recorded = configuration.recordsUpdates ? tap.subscribe() : nil
        let manager = AppManager(core: tap, secretStore: store, bootProblem: problem)
        let session = CLISession(
            home: configuration.home, relayURLs: relayURLs, relayPlan: configuration.relays, embeddedRelay: embedded,
            manager: manager, secretStore: store, tap: tap)
        session.recorded = recorded
        if configuration.savesRelayChanges {
            session.relaySaver = RelaySaver(
                manager: manager, file: configuration.home.appendingPathComponent("relays"),
                embeddedURL: embedded?.url.absoluteString)
        }
        return session
    }

    /// The mirrored state.
    var state: AppState { manager.state }

    /// The bytes of an attachment, through the core (downloaded and decrypted when not here).
    func attachmentData(chatID: ChatID, messageID: MessageID, index: Int) async throws(AttachmentError) -> Data {
        try await tap.app.attachmentData(chatID: chatID, messageID: messageID, index: index)
    }

    /// The bytes of a chat's group picture, through the core.
    func chatImageData(chatID: ChatID) async throws(AttachmentError) -> Data {
        try await tap.app.chatImageData(chatID: chatID)
    }

    /// Forwards an intent to the core through the manager.
    func dispatch(_ action: AppAction) { manager.dispatch(action) }

    /// Every update from now on, in rev order (for renderers that must not miss one); the first call
    /// of a session opened with `Configuration.recordsUpdates` gets every update since it opened.
    func updates() -> AsyncStream<AppUpdate> {
        if let recorded {
            self.recorded = nil
            return recorded
        }
        return tap.subscribe()
    }

    /// Waits until `check` returns a value for the mirrored state (re-checked on every change), or
    /// throws `.timeout`. `check` may throw to end the wait with an error (e.g. on a toast).
    func until<Value>(
        _ what: String, timeout: Duration = .seconds(30), _ check: (AppState) throws(CLIError) -> Value?
    ) async throws(CLIError) -> Value {
        try await watch.until(what, timeout: timeout) { () throws(CLIError) -> Value? in
            if let problem = manager.secretStoreProblem { throw CLIError(.failure, problem.message) }
            return try check(manager.state)
        }
    }

    /// Waits for the next change of the mirrored state; false when none came within `timeout`.
    func watchForChange(within timeout: Duration) async -> Bool {
        await watch.nextChange(within: timeout)
    }

    /// Waits for the stored account to be logged in and returns its npub and hex pubkey; throws
    /// `.noAccount` when this home has none.
    @discardableResult
    func requireAccount(timeout: Duration = .seconds(30)) async throws(CLIError) -> (npub: String, pubkey: String) {
        let stored: String?
        do { stored = try secretStore.load() } catch { throw CLIError(.failure, "cannot read \(secretStore.fileURL.path): \(error)") }
        guard stored != nil else { throw CLIError.noAccount() }
        return try await untilLoggedIn("the stored account to be restored", timeout: timeout)
    }

    /// Waits for a logged-in state, failing with the outcome code of a refused authentication
    /// recorded after `mark` (see `outcomeMark`).
    func untilLoggedIn(
        _ what: String, after mark: UInt64 = 0, timeout: Duration = .seconds(30)
    ) async throws(CLIError) -> (npub: String, pubkey: String) {
        try await until(what, timeout: timeout) { state throws(CLIError) in
            if case .loggedIn(let npub, let pubkey) = state.auth, !state.busy.isAuthenticating { return (npub, pubkey) }
            if let failure = OutcomeExit.failure(
                in: state, after: mark, of: [.login, .restoreSession, .createAccount])
            {
                throw failure
            }
            return nil
        }
    }

    /// The sequence of the last recorded outcome: note it before dispatching, so the outcome of that
    /// action can be told from an older one (`OutcomeExit.failure(in:after:of:)`).
    var outcomeMark: UInt64 { state.lastOutcome?.sequence ?? 0 }

    /// Stops the embedded relay. The core stops its messaging layer when the process ends.
    func close() async {
        await embeddedRelay?.stop()
    }
}
