import MarmotCore
import Testing

@testable import MarmotCLI

/// Group states for the New Group and Group Info tests, as the core would project them.
enum GroupFixtures {
    typealias F = TUIFixtures

    static let group: ChatID = "dd44"
    static let bob = "npub1bob0000000000000000000000000000000000000000000000000000bob"
    static let carol = "npub1carol00000000000000000000000000000000000000000000000carol"

    /// Group Info of "Climbing" (us, Bob, Carol) on top of its chat; `admins` are the core's admins.
    static func groupInfo(canManage: Bool, admins: [String]? = nil) -> AppState {
        var state = F.loggedIn(chats: [F.groupSummary], stack: [.chat(chatID: group), .groupInfo(chatID: group)])
        var chat = ChatViewState(
            chatID: group, peerNpub: bob, peerName: nil, displayName: "Climbing", messages: [], canLoadOlder: false,
            isGroup: true, memberNpubs: [bob, carol])
        chat.adminNpubs = admins ?? (canManage ? [F.npub] : [bob])
        chat.canManage = canManage
        state.currentChat = chat
        return state
    }

    /// The group's chat screen (not Group Info).
    static func groupChat() -> AppState {
        var state = groupInfo(canManage: true)
        state.router.screenStack = [.chat(chatID: group)]
        return state
    }

    static func newGroup() -> AppState {
        F.loggedIn(stack: [.newGroup])
    }
}
