import Foundation
import MarmotCore
import Nostr

/// One `MarmotApp` over a fresh temporary directory, with its update recorder, captured logs and
/// (optionally) the test messaging service; removes the directory when released.
final class AppHarness: Sendable {
    /// 2026-03-04 12:00:00 UTC, a Wednesday: "now" for every harness.
    static let now = Date(timeIntervalSince1970: 1_772_625_600)
    static let nowSeconds: Int64 = 1_772_625_600

    let app: MarmotApp
    let recorder = UpdateRecorder()
    let logs = LogCapture()
    /// The core's timer: toasts expire only when a test fires it.
    let timer = ManualTimer()
    let directory: URL
    private let services = Locked<[TestMessagingService]>([])

    /// - Parameters:
    ///   - messaging: whether a messaging service is configured.
    ///   - seeds: chats the service knows at start, given the account's public key.
    ///   - clock: the core's clock (fixed at `now` unless a test moves time itself).
    init(
        messaging: Bool = true, relays: [URL] = [], clock: AppClock = .fixed(AppHarness.now),
        seeds: @escaping @Sendable (PublicKey) -> [ChatSeed] = { _ in [] }
    ) {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("marmot-core-tests-\(UUID().uuidString)", isDirectory: true)
        var configuration = AppConfiguration(
            clock: clock, timeZone: TimeZone(identifier: "UTC") ?? .current, logLevel: .trace)
        configuration.logHandlerFactory = logs.factory
        configuration.relayURLs = relays
        configuration.timer = timer.timer
        if messaging {
            let services = self.services
            configuration.messagingServiceFactory = { context in
                let service = TestMessagingService(context: context, seeds: seeds(context.keys.publicKey))
                services.update { $0.append(service) }
                return service
            }
        }
        app = MarmotApp(dataDirectory: directory, configuration: configuration)
        app.listenForUpdates(recorder)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// The service of the current session.
    var service: TestMessagingService? { services.current.last }
    var serviceCount: Int { services.current.count }

    func state() -> AppState { app.state() }
    func dispatch(_ action: AppAction) { app.dispatch(action) }

    /// Waits until the committed state satisfies `condition`.
    func waitFor(_ what: String, _ condition: @escaping @Sendable (AppState) -> Bool) async throws {
        let app = self.app
        try await waitUntil(what) { condition(app.state()) }
    }

    /// Waits until the listener has received every committed update.
    func waitForListener() async throws {
        let app = self.app
        let recorder = self.recorder
        try await waitUntil("listener caught up") { (recorder.lastRev ?? 0) == app.state().rev }
    }

    /// Creates an account and waits for the chat list (and, with messaging, the service's chats).
    @discardableResult
    func createAccount() async throws -> (pubkey: String, npub: String) {
        dispatch(.createAccount)
        try await waitFor("logged in") { $0.auth.isLoggedIn && !$0.busy.creatingAccount }
        if serviceCount > 0 {
            let services = self.services
            try await waitUntil("service started") { await services.current.last?.started ?? false }
        }
        guard case .loggedIn(let npub, let pubkey) = state().auth else { throw WaitTimeout(what: "auth") }
        return (pubkey, npub)
    }

    /// Creates a chat with a fresh peer through the UI flow and returns its id (the chat is open).
    func createChat(with peer: Keys = .generate()) async throws -> ChatID {
        dispatch(.pushScreen(.newChat))
        dispatch(.createChat(peerNpub: peer.publicKey.npub))
        try await waitFor("chat created") { state in
            state.chatList.contains { $0.peerNpub == peer.publicKey.npub } && state.currentChat != nil
        }
        guard let chatID = state().currentChat?.chatID else { throw WaitTimeout(what: "current chat") }
        return chatID
    }

    /// Every file under the data directory, as bytes.
    func filesOnDisk() -> [(path: String, contents: Data)] {
        guard let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else {
            return []
        }
        var files: [(String, Data)] = []
        for case let url as URL in walker {
            if let data = try? Data(contentsOf: url) { files.append((url.path, data)) }
        }
        return files
    }
}
