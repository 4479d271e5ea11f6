import Foundation
import MarmotCore
import Testing

@testable import MarmotAppKit

/// The rev rule (MVP spec, Revision Counter), driven by a scripted core.
@MainActor
@Suite("AppManager revisions")
struct AppManagerRevisionTests {
    @Test("boot hydrates from state() and registers one listener")
    func hydrates() {
        let core = ScriptedCore(state: Fixtures.loggedIn(rev: 3))
        let manager = AppManager(core: core, secretStore: InMemorySecretStore())
        #expect(manager.state == Fixtures.loggedIn(rev: 3))
        #expect(manager.lastRevApplied == 3)
        #expect(core.stateCalls == 1)
        #expect(core.dispatched.isEmpty)
    }

    @Test("the next rev replaces its slice; revs already applied are dropped")
    func nextAndStale() {
        let core = ScriptedCore(state: Fixtures.loggedIn(rev: 3))
        let manager = AppManager(core: core, secretStore: InMemorySecretStore())

        manager.receive(.toastChanged(rev: 4, toast: "hello"))
        #expect(manager.state.toast == "hello")
        #expect(manager.lastRevApplied == 4)

        manager.receive(.toastChanged(rev: 4, toast: "replayed"))
        manager.receive(.chatListChanged(rev: 2, chatList: [Fixtures.summary("old")]))
        #expect(manager.state == Fixtures.loggedIn(rev: 4, toast: "hello"))

        manager.receive(.chatListChanged(rev: 5, chatList: [Fixtures.summary("a")]))
        manager.receive(.routerChanged(rev: 6, router: Router(defaultScreen: .chatList, screenStack: [.newChat])))
        manager.receive(.busyChanged(rev: 7, busy: BusyState(creatingChat: true)))
        #expect(manager.state.chatList.map(\.chatID) == ["a"])
        #expect(manager.state.router.screenStack == [.newChat])
        #expect(manager.state.busy.creatingChat)
        #expect(manager.state.toast == "hello")
        #expect(manager.lastRevApplied == 7)
        #expect(manager.resyncsStarted == 0)
        #expect(core.stateCalls == 1)
    }

    @Test("a full state past a gap is applied as is, without a resync")
    func fullStateAcrossGap() {
        let core = ScriptedCore(state: Fixtures.loggedOut(rev: 1))
        let manager = AppManager(core: core, secretStore: InMemorySecretStore())
        manager.receive(.fullState(Fixtures.loggedIn(rev: 9)))
        #expect(manager.state == Fixtures.loggedIn(rev: 9))
        #expect(manager.resyncsStarted == 0)
    }

    @Test("a forward gap resyncs once while gaps keep arriving; updates after the snapshot are replayed")
    func gapResyncCoalesced() async throws {
        let core = ScriptedCore(state: Fixtures.loggedIn(rev: 3))
        let manager = AppManager(core: core, secretStore: InMemorySecretStore())
        core.setState(Fixtures.loggedIn(rev: 10, toast: "from snapshot"))
        core.hold()

        manager.receive(.toastChanged(rev: 5, toast: "after a gap"))
        #expect(manager.resyncsStarted == 1)
        try await settle("resync reads state()") { core.stateCalls == 2 }
        // Mirror untouched while the snapshot is pending.
        #expect(manager.state == Fixtures.loggedIn(rev: 3))

        manager.receive(.toastChanged(rev: 7, toast: "another gap"))
        manager.receive(.chatListChanged(rev: 11, chatList: [Fixtures.summary("late")]))
        #expect(manager.resyncsStarted == 1)
        #expect(manager.lastRevApplied == 3)

        core.release()
        try await settle("snapshot and buffered update applied") { manager.lastRevApplied == 11 }
        #expect(manager.state.toast == "from snapshot")
        #expect(manager.state.chatList.map(\.chatID) == ["late"])
        #expect(manager.resyncsStarted == 1)
        #expect(core.stateCalls == 2)

        // After the resync, the next gap starts a new one.
        manager.receive(.toastChanged(rev: 13, toast: nil))
        #expect(manager.resyncsStarted == 2)
        try await settle("second resync") { core.stateCalls == 3 }
    }

    @Test("a gap inside the replayed buffer starts one new resync, with the rest buffered again")
    func gapDuringReplay() async throws {
        let core = ScriptedCore(state: Fixtures.loggedIn(rev: 1))
        let manager = AppManager(core: core, secretStore: InMemorySecretStore())
        core.setStates([Fixtures.loggedIn(rev: 4), Fixtures.loggedIn(rev: 7, toast: "second snapshot")])
        core.hold()
        manager.receive(.toastChanged(rev: 3, toast: "gap"))
        try await settle("first read started") { core.stateCalls == 2 }
        manager.receive(.toastChanged(rev: 5, toast: "next after the first snapshot"))
        manager.receive(.toastChanged(rev: 7, toast: "skips 6"))
        manager.receive(.chatListChanged(rev: 8, chatList: [Fixtures.summary("after the second snapshot")]))
        core.release()
        try await settle("replayed") { manager.lastRevApplied == 8 }
        #expect(manager.state.toast == "second snapshot")
        #expect(manager.state.chatList.map(\.chatID) == ["after the second snapshot"])
        #expect(manager.resyncsStarted == 2)
        #expect(core.stateCalls == 3)
    }

    @Test("updates reconciled from another thread arrive on the main actor in order, without resyncs")
    func orderedDelivery() async throws {
        let core = ScriptedCore(state: Fixtures.loggedIn(rev: 0))
        let manager = AppManager(core: core, secretStore: InMemorySecretStore())
        await Task.detached {
            for rev in 1...500 { core.emit(.toastChanged(rev: UInt64(rev), toast: "toast \(rev)")) }
        }.value
        try await settle("all applied", timeout: .seconds(300)) { manager.lastRevApplied == 500 }
        #expect(manager.state.toast == "toast 500")
        #expect(manager.resyncsStarted == 0)
        #expect(core.stateCalls == 1)
    }

    @Test("foregrounding resyncs the mirror, then dispatches foregrounded")
    func foreground() async throws {
        let core = ScriptedCore(state: Fixtures.loggedIn(rev: 2))
        let manager = AppManager(core: core, secretStore: InMemorySecretStore())
        // Changes the listener never delivered (e.g. while suspended).
        core.setState(Fixtures.loggedIn(rev: 6, toast: "while away"))
        manager.onForeground()
        #expect(core.dispatched == [.foregrounded])
        try await settle("resynced") { manager.lastRevApplied == 6 }
        #expect(manager.state == Fixtures.loggedIn(rev: 6, toast: "while away"))
    }

    @Test("a resync never moves the mirror back to an older snapshot")
    func resyncNeverRegresses() async throws {
        let core = ScriptedCore(state: Fixtures.loggedIn(rev: 2))
        let manager = AppManager(core: core, secretStore: InMemorySecretStore())
        manager.receive(.toastChanged(rev: 3, toast: "newer"))
        manager.onForeground()
        try await settle("resync finished") { core.stateCalls == 2 }
        manager.receive(.toastChanged(rev: 4, toast: "next"))
        try await settle("next applied") { manager.lastRevApplied == 4 }
        #expect(manager.state.toast == "next")
    }

    @Test("releasing the manager ends its update queue; the core's listener does not retain it")
    func noRetainCycle() async {
        let core = ScriptedCore(state: Fixtures.loggedIn(rev: 1))
        weak var weakManager: AppManager?
        do {
            let manager = AppManager(core: core, secretStore: InMemorySecretStore())
            weakManager = manager
            manager.receive(.toastChanged(rev: 2, toast: nil))
        }
        // Updates emitted afterwards go nowhere and do not crash.
        core.emit(.toastChanged(rev: 3, toast: "late"))
        #expect(weakManager == nil)
    }
}
