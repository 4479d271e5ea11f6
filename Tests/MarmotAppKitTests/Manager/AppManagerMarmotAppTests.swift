import Foundation
import MarmotCore
import Testing

@testable import MarmotAppKit

/// The manager over the real core (no messaging service: auth and navigation only).
@MainActor
@Suite("AppManager with MarmotApp")
struct AppManagerMarmotAppTests {
    @Test("create account: the nsec reaches the store, and restoring it at the next launch logs the same account in")
    func createThenRestore() async throws {
        let directory = Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = InMemorySecretStore()

        let first = AppManager(core: MarmotApp(dataDirectory: directory, configuration: quiet), secretStore: store)
        #expect(!first.isRestoring)
        #expect(first.state.router.defaultScreen == .login)
        first.dispatch(.createAccount)
        try await settle("logged in") { first.state.auth.isLoggedIn && !first.state.busy.creatingAccount }
        #expect(first.state.router.defaultScreen == .chatList)
        let nsec = try #require(try store.load())
        #expect(nsec.hasPrefix("nsec1"))
        guard case .loggedIn(let npub, _) = first.state.auth else { throw SettleTimeout(what: "login") }

        // Next launch: a new core over the same folder and store.
        let second = AppManager(core: MarmotApp(dataDirectory: directory, configuration: quiet), secretStore: store)
        #expect(second.isRestoring)
        try await settle("restored") { second.state.auth.isLoggedIn }
        #expect(!second.isRestoring)
        #expect(second.state.auth == .loggedIn(npub: npub, pubkey: first.state.auth.pubkeyForTest))
        #expect(second.state.router.defaultScreen == .chatList)
    }

    @Test("with a file store: the nsec file is 0600 and the next launch restores from it")
    func fileStoreEndToEnd() async throws {
        let directory = Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = FileSecretStore(fileURL: directory.appendingPathComponent("secrets/nsec"))

        let first = AppManager(core: MarmotApp(dataDirectory: directory, configuration: quiet), secretStore: store)
        first.dispatch(.createAccount)
        try await settle("logged in") { first.state.auth.isLoggedIn }
        try await settle("stored") { (try? store.load()) != nil }
        #expect(try filePermissions(store.fileURL) == 0o600)

        let second = AppManager(
            core: MarmotApp(dataDirectory: directory, configuration: quiet), secretStore: store)
        try await settle("restored") { second.state.auth.isLoggedIn }
        #expect(second.state.auth == first.state.auth)
    }

    @Test("an invalid stored nsec: restoring, then Login with the core's toast")
    func invalidStoredNsec() async throws {
        let directory = Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let manager = AppManager(
            core: MarmotApp(dataDirectory: directory, configuration: quiet),
            secretStore: InMemorySecretStore(secret: "nsec1broken"))
        #expect(manager.isRestoring)
        try await settle("settled") { !manager.isRestoring }
        try await settle("toast") { manager.state.toast != nil }
        #expect(manager.state.router.defaultScreen == .login)
        #expect(!manager.state.auth.isLoggedIn)
    }

    @Test("login from the UI stores the nsec once the core accepts it; logout deletes it and returns to Login")
    func loginLogout() async throws {
        let directory = Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Get a valid nsec from the core itself.
        let source = InMemorySecretStore()
        let creator = AppManager(core: MarmotApp(dataDirectory: directory, configuration: quiet), secretStore: source)
        creator.dispatch(.createAccount)
        try await settle("created") { (try? source.load()) != nil }
        let nsec = try #require(try source.load())

        let store = InMemorySecretStore()
        let manager = AppManager(core: MarmotApp(dataDirectory: directory, configuration: quiet), secretStore: store)
        manager.login(nsec: nsec)
        try await settle("logged in") { manager.state.auth.isLoggedIn }
        // Stored on the core's `secretAccepted`, which comes before the logged-in state.
        #expect(try store.load() == nsec)

        manager.dispatch(.pushScreen(.newChat))
        try await settle("pushed") { manager.state.router.screenStack == [.newChat] }
        manager.setScreenStack([])
        try await settle("popped") { manager.state.router.screenStack.isEmpty }

        manager.logout()
        try await settle("logged out") { !manager.state.auth.isLoggedIn }
        // Deleted on the core's `secretForgotten`, which comes before the logged-out state.
        #expect(try store.load() == nil)
        #expect(manager.state.router == Router(defaultScreen: .login))
    }

    @Test("the mirror equals the core's snapshot after a burst of actions, and foregrounding keeps it so")
    func mirrorMatchesCore() async throws {
        let directory = Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let core = MarmotApp(dataDirectory: directory, configuration: quiet)
        let manager = AppManager(core: core, secretStore: InMemorySecretStore())
        manager.dispatch(.createAccount)
        try await settle("logged in") { manager.state.auth.isLoggedIn }
        for _ in 0..<50 {
            manager.dispatch(.pushScreen(.newChat))
            manager.dispatch(.updateScreenStack([]))
            manager.dispatch(.createChat(peerNpub: "not an npub"))
            manager.dispatch(.clearToast)
        }
        manager.dispatch(.pushScreen(.newChat))
        try await settle("caught up") {
            manager.lastRevApplied == core.state().rev && manager.state.router.screenStack == [.newChat]
        }
        #expect(manager.state == core.state())
        #expect(manager.resyncsStarted == 0)
        manager.onForeground()
        try await settle("foreground resync done") { manager.resyncsStarted == 1 && manager.state == core.state() }
    }
}

/// The core's logger at warning level, so test runs stay quiet.
private let quiet = AppConfiguration(logLevel: .warning)

extension AuthState {
    /// The hex public key of a logged-in state, else empty.
    var pubkeyForTest: String {
        if case .loggedIn(_, let pubkey) = self { return pubkey }
        return ""
    }
}

/// The permission bits of the file at `url`.
func filePermissions(_ url: URL) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
    return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
}
