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

    @Test("login stores nothing until the core accepts it: secretAccepted saves, even when its rev is stale")
    func loginStoresOnlyOnTheCoresWord() throws {
        let store = InMemorySecretStore()
        let core = ScriptedCore()
        let manager = AppManager(core: core, secretStore: store)
        manager.login(nsec: Fixtures.nsec)
        #expect(core.dispatched == [.login(nsec: Fixtures.nsec)])
        #expect(try store.load() == nil)
        manager.receive(.busyChanged(rev: 1, busy: BusyState(loggingIn: true)))
        manager.receive(.fullState(Fixtures.loggedIn(rev: 5)))
        manager.receive(.secretAccepted(rev: 2, nsec: Fixtures.nsec, npub: Fixtures.npub))
        #expect(try store.load() == Fixtures.nsec)
    }

    @Test("a refused login with a toast showing deletes nothing: no guessing from toasts")
    func refusedLoginLeavesTheStoreAlone() throws {
        let store = InMemorySecretStore(secret: Fixtures.nsec)
        let core = ScriptedCore()
        let manager = AppManager(core: core, secretStore: store)
        manager.receive(.fullState(Fixtures.loggedOut(rev: 1)))
        manager.login(nsec: "nsec1typo")
        var refused = manager.state
        refused.rev = 2
        refused.toast = "Invalid nsec"
        refused.lastOutcome = OperationOutcome(operation: .login, code: .invalidNsec, message: "Invalid nsec", sequence: 1)
        manager.receive(.fullState(refused))
        #expect(try store.load() == Fixtures.nsec)
    }

    @Test("logout only dispatches; secretForgotten from the core deletes the stored nsec")
    func logoutDeletesOnTheCoresWord() throws {
        let store = InMemorySecretStore(secret: Fixtures.nsec)
        let core = ScriptedCore()
        let manager = AppManager(core: core, secretStore: store)
        manager.logout()
        #expect(try store.load() == Fixtures.nsec)
        #expect(!manager.isRestoring)
        manager.receive(.secretForgotten(rev: 1))
        #expect(try store.load() == nil)
        manager.dispatch(.logout)
        #expect(core.dispatched == [.restoreSession(nsec: Fixtures.nsec), .logout, .logout])
    }

    @Test("a failed delete on secretForgotten is reported")
    func deleteFailure() {
        let manager = AppManager(core: ScriptedCore(), secretStore: FailingSecretStore())
        manager.dismissSecretStoreProblem()
        manager.receive(.secretForgotten(rev: 1))
        #expect(manager.secretStoreProblem?.operation == .delete)
    }

    @Test("secretExported is held for the view until cleared, and never stored")
    func export() throws {
        let store = InMemorySecretStore(secret: Fixtures.nsec)
        let core = ScriptedCore(state: Fixtures.loggedIn(rev: 1))
        let manager = AppManager(core: core, secretStore: store)
        manager.exportSecret()
        #expect(core.dispatched.last == .exportSecret)
        manager.receive(.secretExported(rev: 2, nsec: Fixtures.nsec))
        #expect(manager.exportedSecret == Fixtures.nsec)
        #expect(manager.lastRevApplied == 2)
        manager.clearExportedSecret()
        #expect(manager.exportedSecret == nil)
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
