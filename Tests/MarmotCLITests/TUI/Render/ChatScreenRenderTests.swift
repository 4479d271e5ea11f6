import MarmotCore
import Testing

@testable import MarmotCLI

/// The chat screen: bubbles, delivery marks, wrapping, scrolling and the input line.
struct ChatScreenRenderTests {
    typealias F = TUIFixtures

    static let sizes = TUIRendererTests.sizes

    @Test(arguments: sizes)
    func chatBubblesAndDeliveryMarks(size: TerminalSize) {
        let state = F.inChat()
        let lines = F.renderFitting(state, size)
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
            let lines = F.renderFitting(state, size)
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

    @Test func peerTextCannotReachTheTerminalAsEscapes() {
        let state = F.inChat(messages: [F.message("e", "x\u{1B}[2J\u{1B}]0;title\u{07}y", mine: false)])
        let frame = TUIRenderer.render(state, F.ui(for: state), RenderContext())
        let output = frame.lines.map(\.ansi).joined()
        #expect(!output.contains("\u{1B}[2J"))
        #expect(!output.contains("\u{1B}]"))
        #expect(!output.contains("\u{07}"))
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
