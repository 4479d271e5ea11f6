import Foundation
import MarmotCore
import Testing

@testable import MarmotAppKit

/// What the views call: navigation binding, paging trigger, plain dispatch.
@MainActor
@Suite("AppManager intents")
struct AppManagerIntentTests {
    @Test("dispatch forwards other actions unchanged")
    func forwards() {
        let core = ScriptedCore(state: Fixtures.loggedIn(rev: 1))
        let manager = AppManager(core: core, secretStore: InMemorySecretStore())
        let actions: [AppAction] = [
            .createAccount, .pushScreen(.newChat), .createChat(peerNpub: Fixtures.npub),
            .sendMessage(chatID: "c", content: "hi"), .openChat(chatID: "c"), .clearToast,
        ]
        for action in actions { manager.dispatch(action) }
        #expect(core.dispatched == actions)
    }

    @Test("the navigation binding reports a changed stack and ignores the router's own")
    func screenStack() {
        var state = Fixtures.loggedIn(rev: 1)
        state.router.screenStack = [.newChat]
        let core = ScriptedCore(state: state)
        let manager = AppManager(core: core, secretStore: InMemorySecretStore())
        manager.setScreenStack([.newChat])
        #expect(core.dispatched.isEmpty)
        manager.setScreenStack([])
        #expect(core.dispatched == [.updateScreenStack([])])
    }

    @Test("the oldest loaded message appearing asks for older messages by the core's rule, without a size")
    func loadOlder() {
        var state = Fixtures.loggedIn(rev: 1)
        state.currentChat = ChatViewState(
            chatID: "c", peerNpub: Fixtures.npub, peerName: nil, displayName: "peer",
            messages: [Fixtures.message("m1"), Fixtures.message("m2")], canLoadOlder: true)
        let core = ScriptedCore(state: state)
        let manager = AppManager(core: core, secretStore: InMemorySecretStore())

        manager.messageAppeared("m2")
        #expect(core.dispatched.isEmpty)
        manager.messageAppeared("m1")
        #expect(core.dispatched == [.loadOlder(chatID: "c")])

        state.rev = 2
        state.currentChat?.isLoadingOlder = true
        manager.receive(.fullState(state))
        manager.messageAppeared("m1")
        state.rev = 3
        state.currentChat?.isLoadingOlder = false
        state.currentChat?.canLoadOlder = false
        manager.receive(.fullState(state))
        manager.messageAppeared("m1")
        #expect(core.dispatched.count == 1)
    }

    @Test("the manager never clears a toast by itself: that is the core's timer")
    func noToastTimer() async {
        let core = ScriptedCore(state: Fixtures.loggedIn(rev: 1, toast: "shown"))
        let manager = AppManager(core: core, secretStore: InMemorySecretStore())
        manager.receive(.toastChanged(rev: 2, toast: "second"))
        await Task.yield()
        #expect(core.dispatched.isEmpty)
        #expect(manager.state.toast == "second")
    }
}
