import Foundation
import MarmotCore
import Testing

@testable import MarmotAppKit

/// Launch, key storage and restore (MVP spec, Key Storage; bible §4.1.2.1, §6.6), with a scripted core.
@MainActor
@Suite("AppManager boot and secrets")
struct AppManagerBootTests {
    @Test("a stored nsec is restored at launch, and the manager shows restoring until the core settles")
    func restoresStoredSession() {
        let core = ScriptedCore()
        let manager = AppManager(core: core, secretStore: InMemorySecretStore(secret: Fixtures.nsec))
        #expect(core.dispatched == [.restoreSession(nsec: Fixtures.nsec)])
        // The core has not reacted yet: its state still says Login, the manager says restoring.
        #expect(manager.state.router.defaultScreen == .login)
        #expect(manager.isRestoring)

        manager.receive(.busyChanged(rev: 1, busy: BusyState(restoringSession: true)))
        #expect(manager.isRestoring)
        #expect(manager.restorePendingAfterRev == nil)

        manager.receive(.fullState(Fixtures.loggedIn(rev: 2)))
        #expect(!manager.isRestoring)
        #expect(manager.state.router.defaultScreen == .chatList)
    }

    @Test("a restore the core rejects ends on Login with its toast")
    func rejectedRestore() {
        let core = ScriptedCore()
        let manager = AppManager(core: core, secretStore: InMemorySecretStore(secret: "nsec1bad"))
        manager.receive(.busyChanged(rev: 1, busy: BusyState(restoringSession: true)))
        manager.receive(.fullState(Fixtures.loggedOut(rev: 2, toast: "Invalid nsec")))
        #expect(!manager.isRestoring)
        #expect(manager.state.router.defaultScreen == .login)
        #expect(manager.state.toast == "Invalid nsec")
    }

    @Test("a resync that skips the busy rev still ends the restoring state")
    func restoreSeenThroughResync() async throws {
        let core = ScriptedCore()
        let manager = AppManager(core: core, secretStore: InMemorySecretStore(secret: Fixtures.nsec))
        core.setState(Fixtures.loggedIn(rev: 2))
        manager.receive(.authChanged(rev: 2, auth: .loggedIn(npub: Fixtures.npub, pubkey: Fixtures.pubkey)))
        #expect(manager.isRestoring)
        try await settle("resynced") { manager.lastRevApplied == 2 }
        #expect(!manager.isRestoring)
    }

    @Test("without a stored nsec the login screen shows at once and nothing is dispatched")
    func noStoredSession() {
        let core = ScriptedCore()
        let manager = AppManager(core: core, secretStore: InMemorySecretStore())
        #expect(core.dispatched.isEmpty)
        #expect(!manager.isRestoring)
        #expect(manager.state.router.defaultScreen == .login)
        #expect(manager.secretStoreProblem == nil)
    }

    @Test("an unreadable store shows Login and reports the problem")
    func unreadableStore() {
        let core = ScriptedCore()
        let manager = AppManager(core: core, secretStore: FailingSecretStore())
        #expect(core.dispatched.isEmpty)
        #expect(!manager.isRestoring)
        #expect(manager.secretStoreProblem == SecretStoreProblem(operation: .load, error: FailingSecretStore.failure))
        manager.dismissSecretStoreProblem()
        #expect(manager.secretStoreProblem == nil)
    }

    @Test("accountCreated saves the nsec, even when its rev is stale")
    func accountCreatedSideEffect() throws {
        let core = ScriptedCore(state: Fixtures.loggedIn(rev: 5))
        let store = InMemorySecretStore()
        let manager = AppManager(core: core, secretStore: store)

        manager.receive(.accountCreated(rev: 3, nsec: "nsec1stale", pubkey: Fixtures.pubkey, npub: Fixtures.npub))
        #expect(try store.load() == "nsec1stale")
        #expect(manager.lastRevApplied == 5)

        manager.receive(.accountCreated(rev: 6, nsec: "nsec1next", pubkey: Fixtures.pubkey, npub: Fixtures.npub))
        #expect(try store.load() == "nsec1next")
        #expect(manager.lastRevApplied == 6)
        #expect(manager.state == Fixtures.loggedIn(rev: 6))
    }

    @Test("accountCreated runs while a resync is pending, not after it")
    func accountCreatedDuringResync() async throws {
        let core = ScriptedCore(state: Fixtures.loggedOut(rev: 1))
        let store = InMemorySecretStore()
        let manager = AppManager(core: core, secretStore: store)
        core.setState(Fixtures.loggedIn(rev: 4))
        core.hold()
        manager.receive(.toastChanged(rev: 3, toast: nil))
        manager.receive(.accountCreated(rev: 4, nsec: Fixtures.nsec, pubkey: Fixtures.pubkey, npub: Fixtures.npub))
        #expect(try store.load() == Fixtures.nsec)
        core.release()
        try await settle("resynced") { manager.lastRevApplied == 4 }
    }

    @Test("a failed save is reported without the secret in the message")
    func saveFailure() {
        let core = ScriptedCore()
        let manager = AppManager(core: core, secretStore: FailingSecretStore())
        manager.receive(.accountCreated(rev: 1, nsec: Fixtures.nsec, pubkey: Fixtures.pubkey, npub: Fixtures.npub))
        let problem = manager.secretStoreProblem
        #expect(problem?.operation == .save)
        #expect(problem?.message.contains(Fixtures.nsec) == false)
        #expect(problem?.message.isEmpty == false)
        #expect(manager.lastRevApplied == 1)
    }

    @Test("login stores the nsec before the core receives it")
    func loginStoresFirst() throws {
        let store = InMemorySecretStore()
        let seen = LockedBox<[String?]>([])
        let core = ScriptedCore { action in
            if case .login = action { seen.mutate { $0.append(try? store.load()) } }
        }
        let manager = AppManager(core: core, secretStore: store)
        manager.login(nsec: Fixtures.nsec)
        manager.dispatch(.login(nsec: "nsec1second"))
        #expect(seen.value == [Fixtures.nsec, "nsec1second"])
        #expect(core.dispatched == [.login(nsec: Fixtures.nsec), .login(nsec: "nsec1second")])
        #expect(try store.load() == "nsec1second")
    }

    @Test("a login the core refuses removes the nsec it stored; an accepted one keeps it")
    func refusedLoginForgetsTheSecret() throws {
        let store = InMemorySecretStore()
        let core = ScriptedCore()
        let manager = AppManager(core: core, secretStore: store)
        manager.login(nsec: "nsec1typo")
        #expect(try store.load() == "nsec1typo")
        manager.receive(.busyChanged(rev: 1, busy: BusyState(loggingIn: true)))
        #expect(try store.load() == "nsec1typo")
        var refused = manager.state
        refused.rev = 2
        refused.busy = BusyState()
        refused.toast = "Invalid nsec"
        manager.receive(.fullState(refused))
        #expect(try store.load() == nil)

        manager.login(nsec: Fixtures.nsec)
        var accepted = manager.state
        accepted.rev = 3
        accepted.toast = nil
        accepted.auth = .loggedIn(npub: Fixtures.npub, pubkey: Fixtures.pubkey)
        manager.receive(.fullState(accepted))
        var later = accepted
        later.rev = 4
        later.toast = "Chat not found"
        manager.receive(.fullState(later))
        #expect(try store.load() == Fixtures.nsec)
    }

    @Test("logout dispatches logout and deletes the stored nsec, from either entry point")
    func logoutDeletes() throws {
        let store = InMemorySecretStore(secret: Fixtures.nsec)
        let core = ScriptedCore()
        let manager = AppManager(core: core, secretStore: store)
        manager.logout()
        #expect(try store.load() == nil)
        #expect(!manager.isRestoring)
        try store.save(Fixtures.nsec)
        manager.dispatch(.logout)
        #expect(try store.load() == nil)
        #expect(core.dispatched == [.restoreSession(nsec: Fixtures.nsec), .logout, .logout])
    }

    @Test("a failed delete on logout is reported")
    func deleteFailure() {
        let manager = AppManager(core: ScriptedCore(), secretStore: FailingSecretStore())
        manager.dismissSecretStoreProblem()
        manager.logout()
        #expect(manager.secretStoreProblem?.operation == .delete)
    }
}

/// A lock-guarded value for closures the scripted core runs.
final class LockedBox<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) { self.stored = value }

    var value: Value {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }

    func mutate(_ body: (inout Value) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        body(&stored)
    }
}
