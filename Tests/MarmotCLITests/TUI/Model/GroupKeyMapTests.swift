import MarmotCore
import Testing

@testable import MarmotCLI

/// The group keys: N opens New Group, its fields create a group; Ctrl-G opens Group Info, whose
/// management keys work only when the core says `canManage`, and leaving asks first.
struct GroupKeyMapTests {
    typealias F = TUIFixtures
    typealias G = GroupFixtures

    @Test func shiftNOnTheChatListOpensNewGroup() {
        #expect(G.press([.character("N")], on: F.loggedIn()).actions == [.pushScreen(.newGroup)])
    }

    @Test func newGroupSendsTheNameAndEveryNpubSeparatedByCommasOrSpaces() {
        let keys = G.typing("Climbing") + [.tab] + G.typing("npub1b, npub1c  npub1d,") + [.enter]
        let result = G.press(keys, on: G.newGroup())
        #expect(result.actions == [.createGroup(name: "Climbing", memberNpubs: ["npub1b", "npub1c", "npub1d"])])
    }

    @Test func enterInTheNameFieldMovesToTheMembers() {
        let result = G.press(G.typing("Trip") + [.enter] + G.typing("npub1x"), on: G.newGroup())
        #expect(result.actions.isEmpty)
        #expect(result.ui.groupNameInput == "Trip")
        #expect(result.ui.groupMembersInput == "npub1x")
        #expect(result.ui.newGroupField == .members)
    }

    @Test func newGroupIgnoresKeysWhileTheCoreCreatesAndEscGoesBack() {
        var busy = G.newGroup()
        busy.busy.creatingChat = true
        let ui = F.ui(for: busy) { $0.newGroupField = .members }
        #expect(G.press(G.typing("x") + [.enter], on: busy, ui: ui).actions.isEmpty)
        #expect(G.press([.escape], on: G.newGroup()).actions == [.updateScreenStack([])])
    }

    @Test func ctrlGOpensGroupInfoOnlyInAGroup() {
        #expect(G.press([.control("g")], on: G.groupChat()).actions == [.pushScreen(.groupInfo(chatID: G.group))])
        #expect(G.press([.control("g")], on: F.inChat()).actions.isEmpty)
    }

    @Test func anAdminAddsRemovesPromotesAndRenames() {
        let state = G.groupInfo(canManage: true)
        let add = G.press([.character("a")] + G.typing("npub1dave") + [.enter], on: state)
        #expect(add.actions == [.addMembers(chatID: G.group, npubs: ["npub1dave"])])
        #expect(add.ui.groupPrompt == nil)
        // The first row is us; j moves to Bob.
        #expect(G.press([.character("j"), .character("r")], on: state).actions == [.removeMember(chatID: G.group, npub: G.bob)])
        #expect(
            G.press([.down, .down, .character("p")], on: state).actions
                == [.setAdmin(chatID: G.group, npub: G.carol, isAdmin: true)])
        // p on an admin (us) takes it away.
        #expect(G.press([.character("p")], on: state).actions == [.setAdmin(chatID: G.group, npub: F.npub, isAdmin: false)])
        let rename = G.press([.character("n")] + G.typing("Summit") + [.enter], on: state)
        #expect(rename.actions == [.renameChat(chatID: G.group, name: "Summit")])
    }

    @Test func aPromptCancelsWithEsc() {
        let state = G.groupInfo(canManage: true)
        let cancelled = G.press([.character("n")] + G.typing("x") + [.escape, .enter], on: state)
        #expect(cancelled.actions.isEmpty)
        #expect(cancelled.ui.groupPrompt == nil)
    }

    @Test func aMemberWhoMayNotManageHasNoManagementKeys() {
        let state = G.groupInfo(canManage: false)
        for key in ["a", "r", "p", "n"] {
            let result = G.press([.character(Character(key)), .character("j"), .enter], on: state)
            #expect(result.actions.isEmpty, "key \(key)")
            #expect(result.ui.groupPrompt == nil)
        }
    }

    @Test func leavingAsksFirstForEveryone() {
        for canManage in [true, false] {
            let state = G.groupInfo(canManage: canManage)
            let asked = G.press([.character("l")], on: state)
            #expect(asked.actions.isEmpty)
            #expect(asked.ui.groupPrompt == .confirmLeave)
            #expect(G.press([.character("y")], on: state, ui: asked.ui).actions == [.leaveChat(chatID: G.group)])
            let declined = G.press([.character("n")], on: state, ui: asked.ui)
            #expect(declined.actions.isEmpty)
            #expect(declined.ui.groupPrompt == nil)
        }
    }

    @Test func escGoesBackToTheChat() {
        #expect(G.press([.escape], on: G.groupInfo(canManage: false)).actions == [.updateScreenStack([.chat(chatID: G.group)])])
    }
}
