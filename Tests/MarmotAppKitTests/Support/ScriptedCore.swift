import Foundation
import MarmotAppKit
import MarmotCore

/// A core whose state and updates the test scripts: it counts `state()` calls, can hold them until
/// released, records dispatched actions and emits updates to the registered reconciler.
///
/// `@unchecked Sendable` is sound because every field is accessed under `condition`.
final class ScriptedCore: AppCoreHandle, @unchecked Sendable {
    private let condition = NSCondition()
    private var snapshot: AppState
    private var upcoming: [AppState] = []
    private var held = false
    private var calls = 0
    private var actions: [AppAction] = []
    private var reconciler: (any AppReconciler)?
    private let onDispatch: (@Sendable (AppAction) -> Void)?

    /// `onDispatch` runs inside `dispatch(_:)`, e.g. to check what was stored before an action.
    init(state: AppState = .initial, onDispatch: (@Sendable (AppAction) -> Void)? = nil) {
        self.snapshot = state
        self.onDispatch = onDispatch
    }

    func state() -> AppState {
        condition.lock()
        defer { condition.unlock() }
        calls += 1
        while held { condition.wait() }
        if !upcoming.isEmpty { snapshot = upcoming.removeFirst() }
        return snapshot
    }

    /// Scripted cores hold no files.
    func attachmentData(chatID: ChatID, messageID: MessageID, index: Int) async throws(AttachmentError) -> Data {
        throw AttachmentError(code: .failed, reason: "no files in a scripted core")
    }

    func dispatch(_ action: AppAction) {
        onDispatch?(action)
        condition.lock()
        defer { condition.unlock() }
        actions.append(action)
    }

    func listenForUpdates(_ reconciler: any AppReconciler) {
        condition.lock()
        defer { condition.unlock() }
        self.reconciler = reconciler
    }

    // MARK: Script

    /// Sets what `state()` returns next.
    func setState(_ state: AppState) {
        condition.lock()
        defer { condition.unlock() }
        snapshot = state
    }

    /// Makes the next `state()` calls return `states`, one per call, then the last one.
    func setStates(_ states: [AppState]) {
        condition.lock()
        defer { condition.unlock() }
        upcoming = states
    }

    /// Makes `state()` calls wait until `release()`.
    func hold() {
        condition.lock()
        defer { condition.unlock() }
        held = true
    }

    func release() {
        condition.lock()
        defer { condition.unlock() }
        held = false
        condition.broadcast()
    }

    /// Sends `update` to the registered reconciler, as the core's listener task would.
    func emit(_ update: AppUpdate) {
        condition.lock()
        let reconciler = self.reconciler
        condition.unlock()
        reconciler?.reconcile(update)
    }

    var stateCalls: Int {
        condition.lock()
        defer { condition.unlock() }
        return calls
    }

    var dispatched: [AppAction] {
        condition.lock()
        defer { condition.unlock() }
        return actions
    }
}

/// A store whose every call fails, to test how failures reach the user.
struct FailingSecretStore: SecretStore {
    static let failure = SecretStoreError.keychain(operation: "test", status: -25300)

    func load() throws(SecretStoreError) -> String? { throw Self.failure }
    func save(_ secret: String) throws(SecretStoreError) { throw Self.failure }
    func delete() throws(SecretStoreError) { throw Self.failure }
}
