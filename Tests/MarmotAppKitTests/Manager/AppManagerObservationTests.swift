import Foundation
import MarmotCore
import Observation
import Testing

@testable import MarmotAppKit

/// `@Observable` works here as on iOS: what SwiftUI relies on to re-render.
@MainActor
@Suite("AppManager observation")
struct AppManagerObservationTests {
    @Test("an applied update notifies readers of state; a stale one does not")
    func stateChanges() {
        let manager = AppManager(
            core: ScriptedCore(state: Fixtures.loggedIn(rev: 2)), secretStore: InMemorySecretStore())
        let stale = observe { _ = manager.state.toast }
        manager.receive(.toastChanged(rev: 1, toast: "stale"))
        #expect(!stale.value)

        let fresh = observe { _ = manager.state.toast }
        manager.receive(.toastChanged(rev: 3, toast: "fresh"))
        #expect(fresh.value)
    }

    @Test("readers of isRestoring are notified when the core acknowledges a restore")
    func restoringChanges() {
        let manager = AppManager(core: ScriptedCore(), secretStore: InMemorySecretStore(secret: Fixtures.nsec))
        let changed = observe { _ = manager.isRestoring }
        manager.receive(.fullState(Fixtures.loggedIn(rev: 1)))
        #expect(changed.value)
        #expect(!manager.isRestoring)
    }

    /// Tracks what `read` touches and reports whether any of it changed since.
    private func observe(_ read: () -> Void) -> LockedBox<Bool> {
        let changed = LockedBox(false)
        withObservationTracking(read) { changed.mutate { $0 = true } }
        return changed
    }
}
