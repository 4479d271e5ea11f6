import MarmotCore
import Testing

@testable import MarmotCLI

struct TUIRendererTests {
    typealias F = TUIFixtures

    static let sizes = [TerminalSize.standard, TerminalSize(columns: 40, rows: 16), TerminalSize(columns: 132, rows: 40)]

    /// Every frame has exactly the terminal's rows, none wider than its columns.
    private func expectFits(_ lines: [String], _ size: TerminalSize) {
        #expect(lines.count == size.rows)
        for line in lines { #expect(TextWidth.of(line) <= size.columns, "too wide: \(line)") }
    }

    @Test(arguments: sizes)
    func loginMenu(size: TerminalSize) {
        let lines = F.render(F.loggedOut, F.ui(for: F.loggedOut, size))
        expectFits(lines, size)
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
        let lines = F.render(state, F.ui(for: state, size))
        expectFits(lines, size)
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

    @Test(arguments: sizes)
    func chatBubblesAndDeliveryMarks(size: TerminalSize) {
        let state = F.inChat()
        let lines = F.render(state, F.ui(for: state, size))
        expectFits(lines, size)
        #expect(lines[0].contains("Marmot · Alice"))
        let theirs = try! #require(lines.first { $0.contains("Hello from Alice") })
        #expect(theirs.hasPrefix("   Hello"))
        let mine = try! #require(lines.first { $0.contains("how are you") })
        #expect(mine.hasSuffix("you? "))
        #expect(TextWidth.of(mine) == size.columns)
        let text = lines.joined(separator: "\n")
        #expect(text.contains("14:02 ✓"))
        #expect(text.contains("14:03 · sending…"))
        #expect(text.contains("14:04 ✗ not sent"))
        #expect(lines.contains { $0.hasSuffix("relay unreachable") })
        #expect(lines[size.rows - 4].hasPrefix(" > "))
        #expect(lines[size.rows - 5].allSatisfy { $0 == "─" })
    }

    @Test func selectedFailedMessageOffersRetry() {
        let state = F.inChat()
        let lines = F.render(state, F.ui(for: state) { $0.selectedMessage = "m4" })
        #expect(lines.contains { $0.hasSuffix("14:04 ✗ not sent · r: retry") })
        // The gutter marks the highlighted message's lines, also without colour.
        #expect(lines.filter { $0.hasPrefix("▌") }.count == 3)
        #expect(lines.filter { $0.hasPrefix("▌") }[0].hasSuffix(" this one failed "))
        #expect(lines[20].contains("r retry"))
    }

    @Test func longFailureReasonsWrapUnderTheMessage() {
        let reason = "No relay accepted the message (ws://127.0.0.1:33171: not connected), tried twice"
        let state = F.inChat(messages: [F.message("f", "down", mine: true, delivery: .failed(reason: reason))])
        let lines = F.render(state)
        #expect(lines.contains { $0.hasSuffix("14:05 ✗ not sent") })
        let reasonLines = lines.filter { $0.contains("relay") || $0.contains("twice") }
        #expect(reasonLines.count >= 2)
        #expect(reasonLines.allSatisfy { TextWidth.of($0.trimmingCharacters(in: .whitespaces)) <= ChatTranscript.bubbleWidth(for: 80) })
    }

    @Test func longMessagesWrapInsideTheBubble() {
        let long = String(repeating: "lorem ipsum ", count: 20) + "END"
        let state = F.inChat(messages: [F.message("x", long, mine: false), F.message("y", long, mine: true)])
        for size in [TerminalSize.standard, TerminalSize(columns: 32, rows: 30)] {
            let lines = F.render(state, F.ui(for: state, size))
            expectFits(lines, size)
            let bubbleWidth = ChatTranscript.bubbleWidth(for: size.columns)
            let loremLines = lines.filter { $0.contains("lorem") }
            #expect(loremLines.count >= 2 * (240 / bubbleWidth))
            for line in loremLines { #expect(TextWidth.of(line.trimmingCharacters(in: .whitespaces)) <= bubbleWidth) }
            #expect(lines.filter { $0.contains("END") }.count == 2)
        }
    }

    @Test func newestMessagesShowAndOlderOnesScrollOff() {
        let messages = (0..<40).map { F.message(MessageID("m\($0)"), "message number \($0)", mine: $0 % 2 == 0) }
        let state = F.inChat(messages: messages, canLoadOlder: true)
        let bottom = F.render(state).joined(separator: "\n")
        #expect(bottom.contains("message number 39"))
        #expect(!bottom.contains("message number 0\n"))
        let scrolled = F.render(state, F.ui(for: state) { $0.chatScroll = 1000 }).joined(separator: "\n")
        #expect(scrolled.contains("older messages: PgUp"))
        #expect(scrolled.contains("message number 0"))
        #expect(!scrolled.contains("message number 39"))
    }

    @Test func emptyChatInvitesTyping() {
        let state = F.inChat(messages: [])
        #expect(F.render(state).joined().contains("No messages yet."))
    }

    @Test func draftShowsOnTheInputLine() {
        let state = F.inChat()
        let lines = F.render(state, F.ui(for: state) { $0.draft = "typing here" })
        #expect(lines[20] == " > typing here ")
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

    @Test func peerTextCannotReachTheTerminalAsEscapes() {
        let state = F.inChat(messages: [F.message("e", "x\u{1B}[2J\u{1B}]0;title\u{07}y", mine: false)])
        let frame = TUIRenderer.render(state, F.ui(for: state), RenderContext())
        let output = frame.lines.map(\.ansi).joined()
        #expect(!output.contains("\u{1B}[2J"))
        #expect(!output.contains("\u{1B}]"))
        #expect(!output.contains("\u{07}"))
    }

    @Test func tinyTerminalSaysSo() {
        let size = TerminalSize(columns: 10, rows: 5)
        let lines = F.render(F.loggedIn(), F.ui(for: F.loggedIn(), size))
        #expect(lines.count == 5)
        #expect(lines[0].hasPrefix("Terminal"))
        for line in lines { #expect(TextWidth.of(line) <= 10) }
    }

    @Test func screenWriterRewritesOnlyChangedRows() {
        var writer = ScreenWriter()
        let state = F.inChat()
        let first = writer.output(for: TUIRenderer.render(state, F.ui(for: state), RenderContext()))
        #expect(first.hasPrefix("\u{1B}[0m\u{1B}[2J"))
        let same = writer.output(for: TUIRenderer.render(state, F.ui(for: state), RenderContext()))
        #expect(same.isEmpty)
        let typed = writer.output(for: TUIRenderer.render(state, F.ui(for: state) { $0.draft = "a" }, RenderContext()))
        #expect(typed.hasPrefix("\u{1B}[21;1H"))
        #expect(typed.components(separatedBy: ";1H").count == 2)
    }
}
