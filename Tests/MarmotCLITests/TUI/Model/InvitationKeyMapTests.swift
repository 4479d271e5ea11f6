import MarmotCore
import Testing

@testable import MarmotCLI

/// The chat list's keys over pending invitations: move, accept, decline, ask.
struct InvitationKeyMapTests {
    typealias F = TUIFixtures

    @Test func aAcceptsAndDDeclinesTheHighlightedInvitation() {
        let state = F.withInvites()
        #expect(F.press([.character("a")], on: state).actions == [.acceptInvite(inviteID: F.carolInvite)])
        #expect(F.press([.character("d")], on: state).actions == [.declineInvite(inviteID: F.carolInvite)])
    }

    @Test func enterAsksThenAnswers() {
        let state = F.withInvites()
        let asked = F.press([.enter], on: state)
        #expect(asked.actions.isEmpty)
        #expect(asked.ui.promptedInvite == F.carolInvite)
        #expect(F.press([.character("a")], on: state, ui: asked.ui).actions == [.acceptInvite(inviteID: F.carolInvite)])
        #expect(F.press([.enter], on: state, ui: asked.ui).actions == [.acceptInvite(inviteID: F.carolInvite)])
        #expect(F.press([.character("d")], on: state, ui: asked.ui).actions == [.declineInvite(inviteID: F.carolInvite)])
        let cancelled = F.press([.escape], on: state, ui: asked.ui)
        #expect(cancelled.actions.isEmpty)
        #expect(cancelled.ui.promptedInvite == nil)
    }

    @Test func noAnswerWhileTheCoreIsAnswering() {
        let state = F.withInvites(answering: [F.carolInvite])
        #expect(F.press([.character("a")], on: state).actions.isEmpty)
        #expect(F.press([.character("d")], on: state).actions.isEmpty)
        #expect(F.press([.enter], on: state).ui.promptedInvite == nil)
    }

    @Test func movingGoesFromInvitationsToChats() {
        let state = F.withInvites()
        let down = F.press([.down], on: state)
        #expect(down.ui.selectedChat == F.alice && down.ui.selectedInvite == nil)
        #expect(F.press([.down, .enter], on: state).actions == [.openChat(chatID: F.alice)])
        // On a chat, a and d mean nothing.
        #expect(F.press([.down, .character("a"), .character("d")], on: state).actions.isEmpty)
        let back = F.press([.down, .up], on: state)
        #expect(back.ui.selectedInvite == F.carolInvite && back.ui.selectedChat == nil)
        #expect(F.press([.end], on: state).ui.selectedChat == F.bob)
        #expect(F.press([.end, .home], on: state).ui.selectedInvite == F.carolInvite)
    }

    @Test func anAnsweredInvitationIsNoLongerSelectedOrPrompted() {
        let state = F.withInvites()
        let ui = F.ui(for: state) {
            $0.selectedInvite = F.carolInvite
            $0.promptedInvite = F.carolInvite
        }
        let after = ui.reconciled(with: F.loggedIn())
        #expect(after.selectedInvite == nil && after.promptedInvite == nil)
        #expect(after.selectedItemIndex(in: ChatListItem.all(in: F.loggedIn())) == 0)
    }
}
