import MarmotCore
import Testing

@testable import MarmotCLI

struct TUIKeyMapTests {
    typealias F = TUIFixtures

    /// Presses `keys` in order on `state` (which does not change), returning the final view state and
    /// every action dispatched.
    private func press(_ keys: [Key], on state: AppState, ui: TUIViewState? = nil) -> TUIKeyMap.Result {
        var current = ui ?? F.ui(for: state)
        var actions: [AppAction] = []
        for key in keys {
            let result = TUIKeyMap.handle(key, state: state, ui: current)
            current = result.ui
            actions += result.actions
        }
        return (current, actions)
    }

    private func typing(_ text: String) -> [Key] { text.map { .character($0) } }

    // MARK: Everywhere

    @Test(arguments: [F.loggedOut, F.loggedIn(), F.loggedIn(stack: [.newChat]), F.inChat()])
    func ctrlCQuitsWithoutActions(state: AppState) {
        let result = press([.control("c")], on: state)
        #expect(result.ui.shouldQuit)
        #expect(result.actions.isEmpty)
    }

    @Test func escapeDismissesAToastFirst() {
        var state = F.loggedIn(stack: [.newChat])
        state.toast = "Messaging unavailable"
        #expect(press([.escape], on: state).actions == [.clearToast])
    }

    @Test func onlyCtrlCWorksWhileRestoring() {
        let state = F.loggedOut
        #expect(TUIKeyMap.handle(.character("c"), state: state, ui: F.ui(for: state), restoring: true).actions.isEmpty)
        #expect(TUIKeyMap.handle(.control("c"), state: state, ui: F.ui(for: state), restoring: true).ui.shouldQuit)
    }

    // MARK: Login

    @Test func createAccountByKeyOrByEnter() {
        #expect(press([.character("c")], on: F.loggedOut).actions == [.createAccount])
        #expect(press([.enter], on: F.loggedOut).actions == [.createAccount])
    }

    @Test func importTypesAMaskedNsecAndLogsIn() {
        let result = press([.down, .enter] + typing(" nsec1abc") + [.backspace] + typing("d ") + [.enter], on: F.loggedOut)
        // Sent as typed; the core trims it.
        #expect(result.actions == [.login(nsec: " nsec1abd ")])
        #expect(result.ui.nsecInput.isEmpty)
        #expect(result.ui.importingKey)
    }

    @Test func escapeLeavesTheNsecFieldAndForgetsIt() {
        let result = press([.character("i")] + typing("nsec1xyz") + [.escape], on: F.loggedOut)
        #expect(result.actions.isEmpty)
        #expect(!result.ui.importingKey)
        #expect(result.ui.nsecInput.isEmpty)
        #expect(!"\(press([.character("i")] + typing("nsec1xyz"), on: F.loggedOut).ui)".contains("xyz"))
    }

    @Test func keysThatMeanNothingOnLogin() {
        #expect(press([.character("x"), .escape, .pageUp, .character("n")], on: F.loggedOut).actions.isEmpty)
        #expect(press([.enter], on: F.loggedOut, ui: F.ui(for: F.loggedOut) { $0.importingKey = true }).actions.isEmpty)
    }

    @Test func noLoginActionWhileAuthenticating() {
        var state = F.loggedOut
        state.busy.creatingAccount = true
        #expect(press([.character("c"), .enter], on: state).actions.isEmpty)
    }

    @Test func qQuitsFromTheLoginMenuButTypesInTheField() {
        #expect(press([.character("q")], on: F.loggedOut).ui.shouldQuit)
        let typed = press([.character("i"), .character("q")], on: F.loggedOut).ui
        #expect(!typed.shouldQuit)
        #expect(typed.nsecInput == "q")
    }

    // MARK: Chat list

    @Test func moveAndOpen() {
        let state = F.loggedIn()
        #expect(press([.enter], on: state).actions == [.openChat(chatID: F.alice)])
        #expect(press([.down, .enter], on: state).actions == [.openChat(chatID: F.bob)])
        #expect(press([.character("j"), .character("j"), .character("k"), .enter], on: state).actions == [.openChat(chatID: F.alice)])
        #expect(press([.end, .right], on: state).actions == [.openChat(chatID: F.bob)])
    }

    @Test func newChatAndLogoutWithConfirmation() {
        let state = F.loggedIn()
        #expect(press([.character("n")], on: state).actions == [.pushScreen(.newChat)])
        let asked = press([.character("L")], on: state)
        #expect(asked.actions.isEmpty)
        #expect(asked.ui.confirmingLogout)
        #expect(press([.character("L"), .character("y")], on: state).actions == [.logout])
        let declined = press([.character("L"), .character("n")], on: state)
        #expect(declined.actions.isEmpty)
        #expect(!declined.ui.confirmingLogout)
    }

    @Test func keysThatMeanNothingOnTheChatList() {
        #expect(press([.escape, .character("x"), .backspace, .pageUp, .control("r")], on: F.loggedIn()).actions.isEmpty)
        #expect(press([.enter, .down, .up], on: F.loggedIn(chats: [])).actions.isEmpty)
    }

    // MARK: New chat

    @Test func typeAnNpubAndCreate() {
        let state = F.loggedIn(stack: [.newChat])
        let result = press(typing("npub1xyz ") + [.enter], on: state)
        // Sent as typed; the core trims it.
        #expect(result.actions == [.createChat(peerNpub: "npub1xyz ")])
        #expect(press([.enter], on: state).actions.isEmpty)
    }

    @Test func backPopsTheStack() {
        #expect(press([.escape], on: F.loggedIn(stack: [.newChat])).actions == [.updateScreenStack([])])
        let deeper = F.loggedIn(stack: [.chat(chatID: F.alice), .newChat])
        #expect(press([.escape], on: deeper).actions == [.updateScreenStack([.chat(chatID: F.alice)])])
    }

    @Test func noSecondCreateWhileCreating() {
        var state = F.loggedIn(stack: [.newChat])
        state.busy.creatingChat = true
        #expect(press([.enter], on: state, ui: F.ui(for: state) { $0.npubInput = "npub1xyz" }).actions.isEmpty)
    }

    // MARK: Chat

    @Test func typeAndSend() {
        let state = F.inChat()
        let result = press(typing("hello q r") + [.enter], on: state)
        #expect(result.actions == [.sendMessage(chatID: F.alice, content: "hello q r")])
        #expect(result.ui.draft.isEmpty)
        #expect(press(typing("   ") + [.enter], on: state).actions.isEmpty)
    }

    @Test func escapeGoesBackWithThePoppedStack() {
        #expect(press([.escape], on: F.inChat()).actions == [.updateScreenStack([])])
    }

    @Test func selectAndRetryAFailedMessage() {
        let state = F.inChat()
        let selected = press([.up], on: state)
        #expect(selected.ui.selectedMessage == "m4")
        #expect(press([.up, .character("r")], on: state).actions == [.retryMessage(chatID: F.alice, messageID: "m4")])
        #expect(press([.up, .control("r")], on: state).actions == [.retryMessage(chatID: F.alice, messageID: "m4")])
    }

    @Test func rOnAMessageThatDidNotFailTypes() {
        let result = press([.up, .up, .character("r")], on: F.inChat())
        #expect(result.actions.isEmpty)
        #expect(result.ui.selectedMessage == nil)
        #expect(result.ui.draft == "r")
        #expect(press([.up, .up, .control("r")], on: F.inChat()).actions.isEmpty)
    }

    @Test func escapeLeavesSelectionBeforeGoingBack() {
        let result = press([.up, .escape], on: F.inChat())
        #expect(result.actions.isEmpty)
        #expect(result.ui.selectedMessage == nil)
    }

    @Test func downPastTheNewestMessageReturnsToTyping() {
        let result = press([.up, .up, .down, .down], on: F.inChat())
        #expect(result.ui.selectedMessage == nil)
    }

    @Test func pageUpAtTheTopLoadsOlderWhenTheCoreHasMore() {
        let older = F.inChat(canLoadOlder: true)
        let action = AppAction.loadOlder(chatID: F.alice)
        #expect(press([.pageUp], on: older).actions == [action])
        #expect(press([.pageUp], on: F.inChat(canLoadOlder: false)).actions.isEmpty)
        #expect(press([.up, .up, .up, .up], on: older).actions == [action])
    }

    @Test func pageUpScrollsALongConversationBeforeLoadingOlder() {
        let messages = (0..<60).map { F.message(MessageID("m\($0)"), "message \($0)", mine: $0 % 3 == 0) }
        let state = F.inChat(messages: messages, canLoadOlder: true)
        let first = press([.pageUp], on: state)
        #expect(first.actions.isEmpty)
        #expect(first.ui.chatScroll == TUILayout(size: .standard).pageRows)
        let all = press(Array(repeating: .pageUp, count: 20), on: state)
        #expect(all.actions.contains(.loadOlder(chatID: F.alice)))
        #expect(press(Array(repeating: .pageUp, count: 3) + [.end], on: state).ui.chatScroll == 0)
        #expect(press([.pageUp, .pageUp, .pageDown, .pageDown, .pageDown], on: state).ui.chatScroll == 0)
        let top = press([.home], on: state)
        #expect(top.actions == [.loadOlder(chatID: F.alice)])
        #expect(ChatTranscript(chat: try! #require(state.currentChat), width: 80, selected: nil)
            .window(height: TUILayout(size: .standard).transcriptRows, scroll: top.ui.chatScroll, selected: nil).start == 0)
    }

    // MARK: Reconciling with state

    @Test func leavingAScreenClearsWhatWasTypedThere() {
        let chat = F.inChat()
        let typed = press(typing("half a thought"), on: chat).ui
        #expect(typed.reconciled(with: F.loggedIn()).draft.isEmpty)
        let nsec = press([.character("i")] + typing("nsec1secret"), on: F.loggedOut).ui
        #expect(nsec.reconciled(with: F.loggedIn()).nsecInput.isEmpty)
    }

    @Test func selectionOfAChatThatWentAwayIsDropped() {
        let ui = F.ui(for: F.loggedIn()) { $0.selectedChat = F.bob }
        #expect(ui.reconciled(with: F.loggedIn(chats: [F.aliceSummary])).selectedChat == nil)
    }
}
