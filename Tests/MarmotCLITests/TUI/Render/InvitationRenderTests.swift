import MarmotCore
import Testing

@testable import MarmotCLI

/// Pending invitations above the chats, group chats and system lines, as the renderer draws them.
struct InvitationRenderTests {
    typealias F = TUIFixtures

    static let sizes = TUIRendererTests.sizes

    @Test(arguments: sizes)
    func invitationsComeFirstWithTitleTimeAndKeys(size: TerminalSize) {
        let state = F.withInvites()
        let lines = F.renderFitting(state, size)
        let header = try! #require(lines.firstIndex { $0.hasPrefix(" Invitations (1)") })
        let invite = try! #require(lines.firstIndex { $0.contains("✉ npub1caro…wxyz") })
        let chats = try! #require(lines.firstIndex { $0.hasPrefix(" Chats") })
        #expect(header < invite && invite < chats)
        // The first row is highlighted: the invitation, with its time and how to answer it.
        #expect(lines[invite].hasPrefix(" > ✉ npub1caro…wxyz invites you"))
        if size.columns >= 80 { #expect(lines[invite].contains("invites you to a chat")) }
        #expect(lines[invite].hasSuffix("09:30 "))
        #expect(lines[invite + 1].contains("a accept · d decline"))
        #expect(lines[size.rows - 1].contains("a accept  d decline"))
        #expect(TextWidth.of(lines[size.rows - 1]) <= size.columns)
        #expect(lines.contains { $0.contains("Alice") && !$0.hasPrefix(" > ") })
    }

    @Test func theKeyLineFitsIn80Columns() {
        #expect(TextWidth.of(" " + ChatListScreen.inviteKeys) <= 80)
        #expect(TextWidth.of(" " + ChatListScreen.keys) <= 80)
    }

    @Test func aSelectedChatBelowInvitationsShowsTheChatKeys() {
        let state = F.withInvites()
        let lines = F.render(state, F.ui(for: state) { $0.selectedChat = F.bob })
        #expect(lines.contains { $0.hasPrefix(" > npub1bobx…wxyz") })
        #expect(lines.contains { $0.hasPrefix("   ✉ npub1caro…wxyz") })
        #expect(lines[23].contains("Enter open"))
        #expect(!lines[23].contains("a accept"))
    }

    @Test func anInvitationBeingAnsweredShowsASpinner() {
        let state = F.withInvites(answering: [F.carolInvite])
        let lines = TUIRenderer.render(state, F.ui(for: state), RenderContext(spinnerPhase: 1)).text
        let invite = try! #require(lines.firstIndex { $0.contains("invites you to a chat") })
        #expect(lines[invite + 1].contains("/ answering…"))
        #expect(!lines[invite + 1].contains("a accept"))
        #expect(lines[21].contains("Answering invitation…"))
    }

    @Test func enterShowsTheAcceptOrDeclinePrompt() {
        let state = F.withInvites()
        let lines = F.render(state, F.ui(for: state) { $0.promptedInvite = F.carolInvite })
        #expect(lines[21].hasPrefix(" ? npub1caro…wxyz invites you to a chat"))
        #expect(lines[21].contains("a accept  d decline  Esc cancel"))
    }

    @Test func onlyInvitationsStillShowTheList() {
        let state = F.withInvites(chats: [])
        let text = F.render(state).joined(separator: "\n")
        #expect(text.contains("invites you to a chat"))
        #expect(!text.contains("No chats yet."))
        #expect(!text.contains(" Chats\n"))
    }

    @Test func manyInvitationsKeepTheSelectedRowInView() {
        let invites = (0..<15).map { index in
            InviteSummary(
                inviteID: InviteID("i\(index)"), inviterNpub: "npub1x", inviterDisplayName: "x", groupName: "",
                memberCount: 2, title: "invite number \(index)", receivedTimeDisplay: "10:00")
        }
        let state = F.withInvites(invites)
        let lines = F.render(state, F.ui(for: state) { $0.selectedInvite = "i14" })
        F.expectFits(lines, .standard)
        #expect(lines.contains { $0.hasPrefix(" > ✉ invite number 14") })
    }

    @Test(arguments: sizes)
    func groupChatsShowTheirMemberCount(size: TerminalSize) {
        let state = F.loggedIn(chats: [F.groupSummary, F.aliceSummary])
        let lines = F.renderFitting(state, size)
        #expect(lines.contains { $0.hasPrefix(" > Climbing · 3 members") })
        #expect(!lines.contains { $0.contains("Alice ·") })
    }

    @Test(arguments: sizes)
    func systemLinesAreCentredAndDimWithoutBubbleOrMark(size: TerminalSize) {
        var notice = F.message("s1", "npub1dave… added you", mine: false, time: "14:00")
        notice.kind = .system
        var state = F.inChat(messages: [notice] + F.conversation)
        state.currentChat?.isGroup = true
        state.currentChat?.memberNpubs = ["npub1alice", "npub1dave"]
        state.currentChat?.memberCount = 3
        state.currentChat?.displayName = "Climbing"
        let frame = TUIRenderer.render(state, F.ui(for: state, size), RenderContext())
        let lines = frame.text
        F.expectFits(lines, size)
        #expect(lines[0].contains(size.columns >= 80 ? "Marmot · Climbing (3 members)" : "Marmot · Climbing (3 m"))
        let row = try! #require(lines.firstIndex { $0.contains("npub1dave… added you") })
        let line = lines[row]
        let text = "· npub1dave… added you · 14:00 ·"
        #expect(line.trimmingCharacters(in: .whitespaces) == text)
        let left = line.prefix { $0 == " " }.count
        let right = size.columns - TextWidth.of(line)
        #expect(abs(left - right) <= 2, "not centred: \(line)")
        #expect(!line.contains("✓"))
        // Dim, and no bubble colour.
        let styled = frame.lines[row].spans.filter { $0.text.contains("added you") }
        #expect(styled.allSatisfy { $0.style.dim && $0.style.foreground == nil })
    }

    @Test func oneToOneChatHeaderHasNoMemberCount() {
        let lines = F.render(F.inChat())
        #expect(lines[0].contains("Marmot · Alice"))
        #expect(!lines[0].contains("members"))
    }
}
