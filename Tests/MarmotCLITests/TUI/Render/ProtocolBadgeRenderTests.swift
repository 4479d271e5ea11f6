import MarmotCore
import Testing

@testable import MarmotCLI

/// Issue 18: the chat list rows and the chat header show the core's protocol label, small, and the
/// layout still fits every terminal width.
struct ProtocolBadgeRenderTests {
    typealias F = TUIFixtures

    static let sizes = [
        TerminalSize.standard, TerminalSize(columns: 40, rows: 16), TerminalSize(columns: 48, rows: 12),
        TerminalSize(columns: 132, rows: 40), TerminalSize(columns: 30, rows: 16),
    ]

    @Test("Each chat row shows its protocol label before the time (80×24)")
    func chatListRowsShowTheProtocol() throws {
        let state = F.loggedIn()
        let lines = F.render(state)
        F.expectFits(lines, .standard)
        let alice = try #require(lines.first { $0.contains("Alice") })
        #expect(alice.contains("Marmot v2  14:05"), "\(alice)")
        let bob = try #require(lines.first { $0.contains("npub1bobx…wxyz") })
        #expect(bob.contains("Marmot v1  Yesterday"), "\(bob)")
        // The label is the core's: a changed label is drawn as given.
        #expect(state.chatList.map(\.protocolLabel) == ["Marmot v2", "Marmot v1"])
    }

    @Test("The badge is dim, never bold or reversed in the row")
    func theRowBadgeIsUnobtrusive() throws {
        let frame = TUIRenderer.render(F.loggedIn(), F.ui(for: F.loggedIn()), RenderContext())
        let row = try #require(frame.lines.first { line in line.spans.contains { $0.text.contains("Alice") } })
        let badge = try #require(row.spans.first { $0.text.contains("Marmot v2") })
        #expect(badge.style == .dim)
    }

    @Test("The open chat's header shows its protocol beside the account")
    func chatHeaderShowsTheProtocol() {
        var state = F.inChat()
        state.currentChat?.protocolVersion = .v2
        let lines = F.render(state)
        F.expectFits(lines, .standard)
        #expect(lines[0].contains("Marmot · Alice"), "\(lines[0])")
        #expect(lines[0].contains("Marmot v2  npub1qqqs…fqzu"), "\(lines[0])")
        state.currentChat?.protocolVersion = .v1
        #expect(F.render(state)[0].contains("Marmot v1  npub1qqqs…fqzu"))
    }

    @Test("A group's header keeps its member count with the badge")
    func groupHeaderShowsCountAndProtocol() {
        var state = F.inChat()
        state.currentChat?.isGroup = true
        state.currentChat?.memberCount = 3
        state.currentChat?.protocolVersion = .v2
        let header = F.render(state)[0]
        #expect(header.contains("Alice (3 members)") && header.contains("Marmot v2"), "\(header)")
    }

    @Test("Other screens' headers carry no protocol badge")
    func noBadgeOutsideAChat() {
        let list = F.render(F.loggedIn())[0]
        #expect(!list.contains("Marmot v"))
        let newChat = F.render(F.loggedIn(stack: [.newChat]))[0]
        #expect(!newChat.contains("Marmot v"))
    }

    @Test("Rows and header fit at every size; a narrow terminal drops the badge for the name", arguments: sizes)
    func layoutsFit(size: TerminalSize) {
        let list = F.render(F.loggedIn(), F.ui(for: F.loggedIn(), size))
        F.expectFits(list, size)
        var chat = F.inChat()
        chat.currentChat?.protocolVersion = .v2
        let header = F.render(chat, F.ui(for: chat, size))
        F.expectFits(header, size)
        let wide = size.columns >= TUILayout.badgeMinimumWidth
        #expect(list.contains { $0.contains("Marmot v2") } == wide)
        #expect(header[0].contains("Marmot v2") == wide)
        // The name stays readable when the badge would crowd it out.
        #expect(list.contains { $0.contains("Alice") })
    }
}
