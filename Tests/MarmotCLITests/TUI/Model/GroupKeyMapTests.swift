import MarmotCore
import Testing

@testable import MarmotCLI

/// The group keys: N opens New Group, its fields create a group; Ctrl-G opens Group Info, whose
/// management keys work only when the core says `canManage`, and leaving asks first.
struct GroupKeyMapTests {
    typealias F = TUIFixtures
    typealias G = GroupFixtures

    @Test func shiftNOnTheChatListOpensNewGroup() {
        #expect(F.press([.character("N")], on: F.loggedIn()).actions == [.pushScreen(.newGroup)])
    }

    @Test func newGroupSendsTheNameAndEveryNpubSeparatedByCommasOrSpaces() {
        let keys = F.typing("Climbing") + [.tab] + F.typing("npub1b, npub1c  npub1d,") + [.enter]
        let result = F.press(keys, on: G.newGroup())
        #expect(result.actions == [.createGroup(name: "Climbing", memberNpubs: ["npub1b", "npub1c", "npub1d"])])
    }

    @Test func enterInTheNameFieldMovesToTheMembers() {
        let result = F.press(F.typing("Trip") + [.enter] + F.typing("npub1x"), on: G.newGroup())
        #expect(result.actions.isEmpty)
        #expect(result.ui.groupNameInput == "Trip")
        #expect(result.ui.groupMembersInput == "npub1x")
        #expect(result.ui.newGroupField == .members)
    }

    @Test func newGroupIgnoresKeysWhileTheCoreCreatesAndEscGoesBack() {
        var busy = G.newGroup()
        busy.busy.creatingChat = true
        let ui = F.ui(for: busy) { $0.newGroupField = .members }
        #expect(F.press(F.typing("x") + [.enter], on: busy, ui: ui).actions.isEmpty)
        #expect(F.press([.escape], on: G.newGroup()).actions == [.updateScreenStack([])])
    }

    @Test func ctrlGOpensGroupInfoOnlyInAGroup() {
        #expect(F.press([.control("g")], on: G.groupChat()).actions == [.pushScreen(.groupInfo(chatID: G.group))])
        #expect(F.press([.control("g")], on: F.inChat()).actions.isEmpty)
    }

    @Test func anAdminAddsRemovesPromotesAndRenames() {
        let state = G.groupInfo(canManage: true)
        let add = F.press([.character("a")] + F.typing("npub1dave") + [.enter], on: state)
        #expect(add.actions == [.addMembers(chatID: G.group, npubs: ["npub1dave"])])
        #expect(add.ui.groupPrompt == nil)
        // The first row is us; j moves to Bob.
        #expect(F.press([.character("j"), .character("r")], on: state).actions == [.removeMember(chatID: G.group, npub: G.bob)])
        #expect(
            F.press([.down, .down, .character("p")], on: state).actions
                == [.setAdmin(chatID: G.group, npub: G.carol, isAdmin: true)])
        // p on an admin (us) takes it away.
        #expect(F.press([.character("p")], on: state).actions == [.setAdmin(chatID: G.group, npub: F.npub, isAdmin: false)])
        let rename = F.press([.character("n")] + F.typing("Summit") + [.enter], on: state)
        #expect(rename.actions == [.renameChat(chatID: G.group, name: "Summit")])
    }

    @Test func aPromptCancelsWithEsc() {
        let state = G.groupInfo(canManage: true)
        let cancelled = F.press([.character("n")] + F.typing("x") + [.escape, .enter], on: state)
        #expect(cancelled.actions.isEmpty)
        #expect(cancelled.ui.groupPrompt == nil)
    }

    @Test func aMemberWhoMayNotManageHasNoManagementKeys() {
        let state = G.groupInfo(canManage: false)
        for key in ["a", "r", "p", "n"] {
            let result = F.press([.character(Character(key)), .character("j"), .enter], on: state)
            #expect(result.actions.isEmpty, "key \(key)")
            #expect(result.ui.groupPrompt == nil)
        }
    }

    @Test func leavingAsksFirstForEveryone() {
        for canManage in [true, false] {
            let state = G.groupInfo(canManage: canManage)
            let asked = F.press([.character("l")], on: state)
            #expect(asked.actions.isEmpty)
            #expect(asked.ui.groupPrompt == .confirmLeave)
            #expect(F.press([.character("y")], on: state, ui: asked.ui).actions == [.leaveChat(chatID: G.group)])
            let declined = F.press([.character("n")], on: state, ui: asked.ui)
            #expect(declined.actions.isEmpty)
            #expect(declined.ui.groupPrompt == nil)
        }
    }

    /// In a v2 group an admin steps disappearing messages with t and closes the group with x (asked
    /// first); neither applies to a v1 group or to a member who is not an admin.
    @Test func adminOfAV2GroupSetsTheTimerAndClosesTheGroup() {
        var state = G.groupInfo(canManage: true)
        state.currentChat?.protocolVersion = .v2
        #expect(F.press([.character("t")], on: state).actions == [.setRetention(chatID: G.group, seconds: 3_600)])
        state.currentChat?.retentionSeconds = 604_800
        #expect(F.press([.character("t")], on: state).actions == [.setRetention(chatID: G.group, seconds: 0)])
        let asked = F.press([.character("x")], on: state)
        #expect(asked.actions.isEmpty && asked.ui.groupPrompt == .confirmDisband)
        #expect(F.press([.character("y")], on: state, ui: asked.ui).actions == [.disbandChat(chatID: G.group)])
        #expect(F.press([.character("n")], on: state, ui: asked.ui).actions.isEmpty)

        var v1 = G.groupInfo(canManage: true)
        v1.currentChat?.protocolVersion = .v1
        var member = G.groupInfo(canManage: false)
        member.currentChat?.protocolVersion = .v2
        for other in [v1, member] {
            #expect(F.press([.character("t")], on: other).actions.isEmpty)
            #expect(F.press([.character("x")], on: other).ui.groupPrompt == nil)
        }
    }

    @Test func escGoesBackToTheChat() {
        #expect(F.press([.escape], on: G.groupInfo(canManage: false)).actions == [.updateScreenStack([.chat(chatID: G.group)])])
    }
}
