import Foundation
import MarmotAppKit
import MarmotCore
import Nostr
import Testing

@testable import MarmotCLI

/// The real core and manager driven through the key map, as the terminal driver does, with no
/// messaging service: accounts and navigation work, chat actions end in the core's toast.
@MainActor
struct TUIAppDrivenTests {
    /// A manager over a fresh `MarmotApp`, with the view state the driver would keep.
    @MainActor
    final class Harness {
        let directory: URL
        let store: InMemorySecretStore
        let manager: AppManager
        var ui = TUIViewState()

        init(secret: String? = nil) {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("marmot-tui-\(UUID().uuidString)")
            store = InMemorySecretStore(secret: secret)
            manager = AppManager(
                core: MarmotApp(dataDirectory: directory, configuration: AppConfiguration(logLevel: .warning)),
                secretStore: store)
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        /// Presses `keys` as the driver does: reconcile, map, dispatch.
        func press(_ keys: [Key]) {
            for key in keys {
                let state = manager.state
                let result = TUIKeyMap.handle(key, state: state, ui: ui.reconciled(with: state), restoring: manager.isRestoring)
                ui = result.ui
                for action in result.actions { manager.dispatch(action) }
            }
        }

        func type(_ text: String) { press(text.map { .character($0) }) }

        /// Waits (bounded) until `condition` holds on the manager's state.
        func settle(_ what: String, _ condition: (AppState) -> Bool) async throws {
            let deadline = ContinuousClock.now + .seconds(60)
            while !condition(manager.state) {
                guard ContinuousClock.now < deadline else { throw TimedOut(what: what) }
                try await Task.sleep(for: .milliseconds(5))
            }
        }

        var frame: String {
            let state = manager.state
            ui = ui.reconciled(with: state)
            return TUIRenderer.render(state, ui, RenderContext(restoring: manager.isRestoring)).text.joined(separator: "\n")
        }

        var npub: String? {
            if case .loggedIn(let npub, _) = manager.state.auth { return npub }
            return nil
        }
    }

    struct TimedOut: Error, CustomStringConvertible {
        let what: String
        var description: String { "timed out waiting for \(what)" }
    }

    @Test func createAccountReachesTheChatListAndStoresTheKey() async throws {
        let app = Harness()
        #expect(app.frame.contains("Create a new account"))
        app.press([.character("c")])
        try await app.settle("logged in") { $0.auth.isLoggedIn && !$0.busy.creatingAccount }
        #expect(app.manager.state.router.topScreen == .chatList)
        let npub = try #require(app.npub)
        #expect(try app.store.load()?.hasPrefix("nsec1") == true)
        let frame = app.frame
        #expect(frame.contains("Marmot · Chats"))
        #expect(frame.contains("Your npub: \(npub)"))
        #expect(frame.contains("No chats yet."))
        #expect(!frame.contains("nsec1"))
    }

    @Test func importAnNsecLogsThatAccountIn() async throws {
        let keys = Keys.generate()
        let app = Harness()
        app.press([.character("i")])
        app.type(keys.secretKey.nsecEncoded())
        #expect(!app.frame.contains("nsec1"))
        app.press([.enter])
        try await app.settle("logged in") { $0.auth.isLoggedIn }
        #expect(app.npub == keys.publicKey.npub)
        #expect(try app.store.load() == keys.secretKey.nsecEncoded())
        #expect(app.ui.nsecInput.isEmpty)
    }

    @Test func invalidNsecShowsTheCoreToastAndEscapeDismissesIt() async throws {
        let app = Harness()
        app.press([.character("i")])
        app.type("nsec1notakey")
        app.press([.enter])
        try await app.settle("toast") { $0.toast != nil }
        #expect(app.frame.contains("Invalid nsec"))
        app.press([.escape])
        try await app.settle("toast cleared") { $0.toast == nil }
        #expect(app.manager.state.router.topScreen == .login)
    }

    @Test func newChatWithoutMessagingShowsTheToastAndBackReturnsToTheList() async throws {
        let app = Harness()
        app.press([.character("c")])
        try await app.settle("logged in") { $0.auth.isLoggedIn && !$0.busy.creatingAccount }

        app.press([.character("n")])
        try await app.settle("new chat screen") { $0.router.topScreen == .newChat }
        #expect(app.frame.contains("Start a chat"))

        app.type("npub1bogus")
        app.press([.enter])
        try await app.settle("invalid npub toast") { $0.toast?.hasPrefix("Invalid npub") == true }
        app.press([.escape])
        try await app.settle("toast cleared") { $0.toast == nil }

        app.press([.control("u")])
        app.type(Keys.generate().publicKey.npub)
        app.press([.enter])
        try await app.settle("messaging unavailable toast") { $0.toast != nil }
        #expect(app.frame.contains("Messaging unavailable"))
        #expect(app.manager.state.router.topScreen == .newChat)

        app.press([.escape])
        try await app.settle("toast cleared") { $0.toast == nil }
        app.press([.escape])
        try await app.settle("back on the chat list") { $0.router.topScreen == .chatList }
        #expect(app.manager.state.router.screenStack.isEmpty)
        #expect(app.ui.reconciled(with: app.manager.state).npubInput.isEmpty)
    }

    @Test func logoutAfterConfirmationForgetsTheKey() async throws {
        let app = Harness()
        app.press([.character("c")])
        try await app.settle("logged in") { $0.auth.isLoggedIn && !$0.busy.creatingAccount }
        app.press([.character("L")])
        #expect(app.frame.contains("Log out?"))
        app.press([.character("y")])
        try await app.settle("logged out") { !$0.auth.isLoggedIn }
        #expect(app.manager.state.router.topScreen == .login)
        #expect(try app.store.load() == nil)
        #expect(app.frame.contains("Create a new account"))
    }

    @Test func storedKeyIsRestoredWithoutOfferingLogin() async throws {
        let keys = Keys.generate()
        let app = Harness(secret: keys.secretKey.nsecEncoded())
        #expect(app.manager.isRestoring)
        #expect(!app.frame.contains("Create a new account"))
        app.press([.character("c")])
        try await app.settle("restored") { $0.auth.isLoggedIn }
        #expect(app.npub == keys.publicKey.npub)
        #expect(app.frame.contains("Your npub"))
    }
}
