import Foundation
import Testing
import Nostr
@testable import MarmotCore

@Suite("Navigation")
struct NavigationTests {
    @Test("push and pop: pushScreen stacks, updateScreenStack adopts the platform's pop")
    func pushAndPop() async throws {
        let h = AppHarness()
        try await h.createAccount()
        #expect(h.state().router == Router(defaultScreen: .chatList, screenStack: []))

        h.dispatch(.pushScreen(.newChat))
        try await h.waitFor("pushed") { $0.router.screenStack == [.newChat] }

        h.dispatch(.updateScreenStack([]))
        try await h.waitFor("popped") { $0.router.screenStack.isEmpty }
        #expect(h.state().router.defaultScreen == .chatList)
    }

    @Test("relays and profile are pushed like New Chat and popped by the platform's stack")
    func relaysAndProfileScreens() async throws {
        let h = AppHarness()
        try await h.createAccount()
        h.dispatch(.pushScreen(.relays))
        h.dispatch(.pushScreen(.relays))
        try await h.waitFor("relays pushed") { $0.router.topScreen == .relays }
        h.dispatch(.pushScreen(.profile))
        try await h.waitFor("profile on top") { $0.router.screenStack == [.relays, .profile] }
        #expect(h.state().currentChat == nil)
        h.dispatch(.updateScreenStack([.relays]))
        try await h.waitFor("profile popped") { $0.router.screenStack == [.relays] }
        h.dispatch(.updateScreenStack([]))
        try await h.waitFor("back to the list") { $0.router.topScreen == .chatList }
    }

    @Test("devices is pushed like Relays (issue 29) and popped by the platform's stack")
    func devicesScreen() async throws {
        let h = AppHarness()
        try await h.createAccount()
        h.dispatch(.pushScreen(.devices))
        h.dispatch(.pushScreen(.devices))
        try await h.waitFor("devices pushed") { $0.router.topScreen == .devices }
        #expect(h.state().router.screenStack == [.devices])
        h.dispatch(.updateScreenStack([]))
        try await h.waitFor("back to the list") { $0.router.topScreen == .chatList }
    }

    @Test("pushing the screen already on top, or a root screen, changes nothing")
    func redundantPushes() async throws {
        let h = AppHarness()
        try await h.createAccount()
        h.dispatch(.pushScreen(.newChat))
        h.dispatch(.pushScreen(.newChat))
        h.dispatch(.pushScreen(.chatList))
        h.dispatch(.pushScreen(.login))
        h.dispatch(.updateScreenStack([.chatList, .newChat, .login]))
        try await h.waitFor("pushed") { $0.router.screenStack == [.newChat] }
        try await h.waitForListener()
        #expect(h.state().router.screenStack == [.newChat])
    }

    @Test("navigation is ignored while logged out")
    func loggedOutNavigation() async throws {
        let h = AppHarness()
        h.dispatch(.pushScreen(.newChat))
        h.dispatch(.openChat(chatID: "nope"))
        h.dispatch(.updateScreenStack([.newChat]))
        h.dispatch(.login(nsec: "bad"))
        try await h.waitFor("processed") { $0.toast != nil }
        #expect(h.state().router == Router(defaultScreen: .login))
    }

    @Test("opening an unknown chat shows a toast and does not navigate")
    func unknownChat() async throws {
        let h = AppHarness()
        try await h.createAccount()
        h.dispatch(.openChat(chatID: "missing"))
        try await h.waitFor("toast") { $0.toast == "Chat not found" }
        #expect(h.state().router.screenStack.isEmpty)
        #expect(h.state().currentChat == nil)
    }

    @Test("clearToast removes the toast")
    func clearToast() async throws {
        let h = AppHarness()
        h.dispatch(.login(nsec: "nsec1bad"))
        try await h.waitFor("toast") { $0.toast != nil }
        h.dispatch(.clearToast)
        try await h.waitFor("cleared") { $0.toast == nil }
        try await h.waitForListener()
        #expect(h.recorder.updates.last == .toastChanged(rev: h.state().rev, toast: nil))
    }

    @Test("currentChat is the top chat's view exactly when a chat is on top")
    func currentChatInvariant() async throws {
        let h = AppHarness()
        try await h.createAccount()
        let first = try await h.createChat()
        let second = try await h.createChat()
        #expect(h.state().router.screenStack == [.chat(chatID: first), .chat(chatID: second)])
        #expect(h.state().currentChat?.chatID == second)

        h.dispatch(.updateScreenStack([.chat(chatID: first)]))
        try await h.waitFor("first on top") { $0.currentChat?.chatID == first }

        h.dispatch(.pushScreen(.newChat))
        try await h.waitFor("new chat on top") { $0.router.topScreen == .newChat }
        #expect(h.state().currentChat == nil)

        h.dispatch(.updateScreenStack([.chat(chatID: "gone")]))
        try await h.waitFor("unknown chat on top") { $0.router.topScreen == .chat(chatID: "gone") }
        #expect(h.state().currentChat == nil)

        h.dispatch(.openChat(chatID: second))
        try await h.waitFor("second opened") { $0.currentChat?.chatID == second }

        h.dispatch(.updateScreenStack([]))
        try await h.waitFor("list") { $0.router.screenStack.isEmpty }
        #expect(h.state().currentChat == nil)

        // Every committed state along the way kept the invariant.
        try await h.waitForListener()
        var mirror = AppState.initial
        for update in h.recorder.updates {
            mirror = try #require(replay(update, onto: mirror))
            let top = mirror.router.topScreen
            if case .chat(let chatID) = top, mirror.chatList.contains(where: { $0.chatID == chatID }) {
                #expect(mirror.currentChat?.chatID == chatID)
            } else {
                #expect(mirror.currentChat == nil)
            }
        }
    }
}
