import MarmotCore
import Testing

@testable import MarmotCLI

/// The New Group and Group Info screens as the renderer draws them, at 80x24 and larger.
struct GroupRenderTests {
    typealias F = TUIFixtures
    typealias G = GroupFixtures

    static let sizes = TUIFixtures.screenSizes

    @Test(arguments: sizes)
    func newGroupShowsBothFieldsAndItsKeys(size: TerminalSize) {
        let state = G.newGroup()
        let lines = F.renderFitting(state, size) {
            $0.groupNameInput = "Climbing"
            $0.groupMembersInput = "npub1b, npub1c"
            $0.newGroupField = .members
        }
        #expect(lines[0].contains("New group"))
        #expect(lines.contains { $0.hasPrefix(" Name:    Climbing") })
        #expect(lines.contains { $0.hasPrefix(" Members: npub1b, npub1c") })
        #expect(lines.contains { $0.contains("2 npubs typed") })
        #expect(lines[size.rows - 1].contains("Enter next/create"))
    }

    @Test(arguments: sizes)
    func groupInfoListsMembersWithAdminAndYouMarks(size: TerminalSize) {
        let state = G.groupInfo(canManage: true)
        let lines = F.renderFitting(state, size)
        #expect(lines[0].contains("Climbing · Info"))
        #expect(lines.contains { $0.contains("Climbing · 3 members") })
        let me = try! #require(lines.firstIndex { $0.contains(F.npub) })
        #expect(lines[me].hasPrefix(" > "))
        #expect(lines[me].contains("admin (you)"))
        let bob = try! #require(lines.firstIndex { $0.contains(G.bob) })
        #expect(bob == me + 1)
        #expect(!lines[bob].contains("admin"))
        #expect(!lines[bob].contains("(you)"))
        #expect(lines.contains { $0.contains(G.carol) })
        #expect(lines[size.rows - 1].contains("a add  r remove  p admin on/off  n rename  l leave  Esc back"))
    }

    @Test func aMemberWhoMayNotManageSeesOnlyLeaveAndBack() {
        let state = G.groupInfo(canManage: false)
        let lines = F.render(state)
        let bob = try! #require(lines.firstIndex { $0.contains(G.bob) })
        #expect(lines[bob].contains("admin"))
        #expect(lines[23].contains("l leave  Esc back"))
        #expect(!lines[23].contains("a add"))
        #expect(lines.contains { $0.contains("Only admins") })
    }

    @Test func promptsShowTheirFieldOrQuestion() {
        let state = G.groupInfo(canManage: true)
        let rename = F.render(state, F.ui(for: state) {
            $0.groupPrompt = .rename
            $0.groupPromptInput = "Summit"
        })
        #expect(rename.contains { $0.hasPrefix(" New name: Summit") })
        #expect(rename[23].contains("Enter confirm  Esc cancel"))
        let add = F.render(state, F.ui(for: state) { $0.groupPrompt = .addMember })
        #expect(add.contains { $0.hasPrefix(" Add npub: ") })
        let leave = F.render(state, F.ui(for: state) { $0.groupPrompt = .confirmLeave })
        #expect(leave[21].contains("Leave this group?"))
    }

    @Test func manyMembersKeepTheSelectedOneInView() {
        var state = G.groupInfo(canManage: true)
        let many = (0..<40).map { "npub1member\($0)" }
        state.currentChat?.memberNpubs = many
        let lines = F.render(state, F.ui(for: state) { $0.selectedMember = "npub1member39" })
        F.expectFits(lines, .standard)
        #expect(lines.contains { $0.hasPrefix(" > npub1member39") })
    }

    @Test func helpLinesFitIn80Columns() {
        for keys in [
            GroupInfoScreen.manageKeys, GroupInfoScreen.memberKeys, GroupInfoScreen.promptKeys, NewGroupScreen.keys,
            ChatScreen.groupKeys, ChatListScreen.keys, ChatListScreen.inviteKeys,
        ] {
            #expect(TextWidth.of(" " + keys) <= 80, "too wide: \(keys)")
        }
    }

    @Test func aGroupChatOffersGroupInfo() {
        let lines = F.render(G.groupChat())
        #expect(lines[23].contains("^G group info"))
        #expect(!F.render(F.inChat())[23].contains("^G"))
    }
}
