import MarmotCore
import Testing

@testable import MarmotCLI

struct TUIRendererTests {
    typealias F = TUIFixtures

    static let sizes = [TerminalSize.standard, TerminalSize(columns: 40, rows: 16), TerminalSize(columns: 132, rows: 40)]

    @Test(arguments: sizes)
    func loginMenu(size: TerminalSize) {
        let lines = F.render(F.loggedOut, F.ui(for: F.loggedOut, size))
        F.expectFits(lines, size)
        let text = lines.joined(separator: "\n")
        #expect(lines[0].contains("Log in"))
        #expect(text.contains("> Create a new account"))
        #expect(text.contains("Import an existing key"))
        #expect(lines[size.rows - 2] == " relay: connected")
        #expect(lines[size.rows - 1].contains("c create"))
    }

    @Test func loginImportMasksTheNsec() {
        let state = F.loggedOut
        let secret = "nsec1verysecretvalue"
        let lines = F.render(state, F.ui(for: state) { $0.importingKey = true; $0.nsecInput = secret })
        let text = lines.joined(separator: "\n")
        #expect(!text.contains("verysecret"))
        #expect(text.contains("nsec: " + String(repeating: "•", count: secret.count)))
        #expect(lines[23].contains("Esc cancel"))
    }

    @Test func busyIndicatorWhileCreatingAccount() {
        var state = F.loggedOut
        state.busy.creatingAccount = true
        let lines = F.render(state)
        #expect(lines[21].contains("Creating account…"))
    }

    @Test func restoringShowsNoLoginChoices() {
        let state = F.loggedOut
        let frame = TUIRenderer.render(state, F.ui(for: state), RenderContext(restoring: true)).text
        let text = frame.joined(separator: "\n")
        #expect(text.contains("Restoring your session…"))
        #expect(!text.contains("Create a new account"))
    }

    @Test(arguments: sizes)
    func chatListRows(size: TerminalSize) {
        let state = F.loggedIn()
        let lines = F.renderFitting(state, size)
        let text = lines.joined(separator: "\n")
        #expect(lines[0].contains("Chats"))
        #expect(lines[0].contains("npub1qqqs…fqzu"))
        let aliceRow = try! #require(lines.first { $0.contains("Alice") })
        #expect(aliceRow.hasPrefix(" > "))
        #expect(aliceRow.contains("14:05"))
        #expect(aliceRow.hasSuffix(" 3  "))
        #expect(text.contains("see you at noon"))
        let bobRow = try! #require(lines.first { $0.contains("npub1bobx…wxyz") })
        #expect(bobRow.contains("Yesterday"))
        #expect(!bobRow.hasPrefix(" > "))
        #expect(text.contains("You: hi"))
        #expect(lines[size.rows - 1].contains("n new chat"))
    }

    /// Archived chats are left out of the list and of its rows' order; a muted one says so (issue 48).
    @Test func archivedChatsAreLeftOutAndMutedOnesMarked() {
        var archived = F.bobSummary
        archived.isArchived = true
        var muted = F.aliceSummary
        muted.isMuted = true
        muted.muteLabel = "muted"
        let state = F.loggedIn(chats: [muted, archived])
        let text = F.render(state).joined(separator: "\n")
        #expect(!text.contains("npub1bobx…wxyz") && !text.contains("You: hi"))
        #expect(text.contains("Alice · muted"), "\(text)")
        #expect(ChatListItem.all(in: state) == [.chat(F.aliceSummary.chatID)])
    }

    @Test func chatListShowsTheFullNpubToShare() {
        let wide = F.render(F.loggedIn())
        #expect(wide[1] == " Your npub: " + F.npub)
        let narrow = F.render(F.loggedIn(), F.ui(for: F.loggedIn(), TerminalSize(columns: 40, rows: 16)))
        #expect(narrow.joined().replacingOccurrences(of: " ", with: "").contains(F.npub))
    }

    @Test func chatListSelectionFollowsTheSelectedChat() {
        let state = F.loggedIn()
        let lines = F.render(state, F.ui(for: state) { $0.selectedChat = F.bob })
        #expect(lines.first { $0.contains("npub1bobx") }?.hasPrefix(" > ") == true)
        #expect(lines.first { $0.contains("Alice") }?.hasPrefix(" > ") == false)
    }

    @Test func chatListScrollsToKeepTheSelectionVisible() {
        let chats = (0..<30).map { index in
            ChatSummary(
                chatID: ChatID("c\(index)"), peerNpub: "npub1x", peerName: "Peer \(index)", lastMessage: nil,
                lastMessageAt: nil, unreadCount: 0, displayName: "Peer \(index)", lastMessagePreview: "No messages yet",
                lastMessageTimeDisplay: "")
        }
        let state = F.loggedIn(chats: chats)
        let lines = F.render(state, F.ui(for: state) { $0.selectedChat = "c25" })
        #expect(lines.contains { $0.hasPrefix(" > Peer 25") })
        #expect(!lines.contains { $0.contains("Peer 0 ") || $0.hasSuffix("Peer 0") })
    }

    @Test func anEmptyListWhileCatchingUpSaysSoInsteadOfNoChats() {
        var state = F.loggedIn(chats: [])
        state.network.sync = .catchingUp
        let text = F.render(state).joined(separator: "\n")
        #expect(text.contains("Catching up…"))
        #expect(!text.contains("No chats yet."))
        state.network.sync = .live
        state.network.invitesLoaded = true
        state.network.chatsLoaded = true
        #expect(F.render(state).joined(separator: "\n").contains("No chats yet."))
    }

    @Test func emptyChatListExplainsWhatToDo() {
        let text = F.render(F.loggedIn(chats: [])).joined(separator: "\n")
        #expect(text.contains("No chats yet."))
        #expect(text.contains("Press n"))
    }

    @Test func newChatField() {
        let state = F.loggedIn(stack: [.newChat])
        let lines = F.render(state, F.ui(for: state) { $0.npubInput = "npub1abc" })
        #expect(lines[0].contains("New chat"))
        #expect(lines.contains { $0.hasPrefix(" npub: npub1abc") })
        #expect(lines[23].contains("Esc back"))
    }

    @Test func newChatShowsTheEndOfALongInput() {
        let state = F.loggedIn(stack: [.newChat])
        let size = TerminalSize(columns: 30, rows: 12)
        let lines = F.render(state, F.ui(for: state, size) { $0.npubInput = F.npub })
        let field = try! #require(lines.first { $0.hasPrefix(" npub: ") })
        #expect(F.npub.hasSuffix(field.dropFirst(7).trimmingCharacters(in: .whitespaces)))
        #expect(TextWidth.of(field) <= 30)
    }

    @Test func creatingChatShowsBusy() {
        var state = F.loggedIn(stack: [.newChat])
        state.busy.creatingChat = true
        #expect(F.render(state)[21].contains("Creating chat…"))
    }

    @Test func toastShownWithDismissKey() {
        var state = F.inChat()
        state.toast = "Messaging unavailable"
        let line = F.render(state)[21]
        #expect(line.hasPrefix(" ! Messaging unavailable"))
        #expect(line.hasSuffix("Esc dismiss"))
    }

    @Test func secretStoreProblemComesBeforeTheToast() {
        var state = F.loggedIn()
        state.toast = "Some toast"
        let context = RenderContext(secretStoreProblem: "Could not save the account key (disk full).")
        let line = TUIRenderer.render(state, F.ui(for: state), context).text[21]
        #expect(line.hasPrefix(" ! Could not save the account key"))
        #expect(line.hasSuffix("Esc dismiss"))
    }

    @Test func logoutQuestion() {
        let state = F.loggedIn()
        let line = F.render(state, F.ui(for: state) { $0.confirmingLogout = true })[21]
        #expect(line.contains("Log out?"))
    }

    @Test func helpLinesFitEightyColumns() {
        let login = TUIViewState()
        var importing = TUIViewState()
        importing.importingKey = true
        for keys in [
            LoginScreen.keys(login), LoginScreen.keys(importing), ChatListScreen.keys, NewChatScreen.keys, ChatScreen.keys,
        ] {
            #expect(TextWidth.of(" " + keys) <= 80, "\(keys)")
        }
    }

    @Test func tinyTerminalSaysSo() {
        let size = TerminalSize(columns: 10, rows: 5)
        let lines = F.render(F.loggedIn(), F.ui(for: F.loggedIn(), size))
        #expect(lines.count == 5)
        #expect(lines[0].hasPrefix("Terminal"))
        for line in lines { #expect(TextWidth.of(line) <= 10) }
    }
}
