import MarmotCore

/// What the terminal UI keeps besides `AppState`: text being typed, the highlighted row, scrolling
/// and the terminal size. Nothing here is app logic; it is the part of a view a native UI framework
/// would keep in its widgets (seed 001 §1.2: the platform owns ephemeral UI state).
///
/// The nsec being typed on the login screen is a secret: it is dropped as soon as it is submitted or
/// the field is left, and `description` never shows it.
struct TUIViewState: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The login screen's two choices.
    enum LoginChoice: Int, Sendable, CaseIterable {
        case createAccount
        case importKey
    }

    var size: TerminalSize = .standard
    /// The top screen this state was last reconciled with; per-screen fields reset when it changes.
    var screen: Screen?

    // Login
    var loginChoice: LoginChoice = .createAccount
    /// True while the nsec field is shown instead of the two choices.
    var importingKey = false
    var nsecInput = ""

    // Chat list
    /// The highlighted chat; nil (with no `selectedInvite`) means the first row.
    var selectedChat: ChatID?
    /// The highlighted invitation; takes precedence over `selectedChat`.
    var selectedInvite: InviteID?
    /// The invitation whose "accept or decline?" prompt is shown (Enter on an invitation).
    var promptedInvite: InviteID?
    /// True while "log out?" waits for y/n.
    var confirmingLogout = false

    // New chat
    var npubInput = ""

    // New group
    /// Which New Group field takes the keys typed.
    enum NewGroupField: Sendable, Equatable {
        case name
        case members
    }
    var groupNameInput = ""
    /// The members' npubs as typed, separated by commas or spaces.
    var groupMembersInput = ""
    var newGroupField: NewGroupField = .name

    // Group info
    /// The question the Group Info screen is asking, if any.
    enum GroupPrompt: Sendable, Equatable {
        /// An npub to add, typed into `groupPromptInput`.
        case addMember
        /// A new name, typed into `groupPromptInput`.
        case rename
        /// "Leave this group?" waits for y/n.
        case confirmLeave
        /// "Close this group for every member?" waits for y/n.
        case confirmDisband
    }
    /// The highlighted member's npub; nil means the first row.
    var selectedMember: String?
    var groupPrompt: GroupPrompt?
    var groupPromptInput = ""

    // Relays
    /// The highlighted relay's URL; nil means the first row.
    var selectedRelay: String?
    /// True while the "Add relay" field is shown and takes the keys typed.
    var addingRelay = false
    var relayInput = ""

    // Profile
    /// The new name being typed on the Profile screen.
    var profileNameInput = ""

    // Devices
    /// The highlighted device's id; nil means the first row.
    var selectedDevice: String?
    /// The linked device whose "remove it?" question waits for y/n.
    var confirmingDeviceRemoval: String?

    // Chat
    var draft = ""
    /// The highlighted message; nil while typing (the view follows the newest message).
    var selectedMessage: MessageID?
    /// Lines scrolled up from the newest message, when no message is highlighted.
    var chatScroll = 0
    /// What Enter does with the draft besides sending it: answer or replace a message (issue 25).
    var composing: Composing?

    /// A draft that answers (`reply`) or replaces (`edit`) the named message.
    enum Composing: Sendable, Equatable {
        case reply(MessageID)
        case edit(MessageID)
    }

    /// An attachment the user asked to save (^O); the driver hands it to its saver and clears it.
    var saveRequest: SaveRequest?

    struct SaveRequest: Sendable, Equatable {
        let chatID: ChatID
        let messageID: MessageID
        let index: Int
        let filename: String
    }

    /// Set by Ctrl-C (or q on a root screen): the driver leaves.
    var shouldQuit = false

    init(size: TerminalSize = .standard) {
        self.size = size
    }

    /// This state adjusted to `state`: fields of screens that are no longer on top are cleared, and
    /// selections that point at chats or messages which went away are dropped.
    func reconciled(with state: AppState) -> TUIViewState {
        var next = self
        let top = state.router.topScreen
        if top != screen {
            next.screen = top
            if top != .login {
                next.importingKey = false
                next.nsecInput = ""
                next.loginChoice = .createAccount
            }
            if top != .newChat { next.npubInput = "" }
            if top != .newGroup {
                next.groupNameInput = ""
                next.groupMembersInput = ""
                next.newGroupField = .name
            }
            if case .groupInfo = top {} else {
                next.selectedMember = nil
            }
            if top != .relays {
                next.selectedRelay = nil
                next.addingRelay = false
                next.relayInput = ""
            }
            if top != .profile { next.profileNameInput = "" }
            if top != .devices { next.selectedDevice = nil }
            next.confirmingDeviceRemoval = nil
            next.groupPrompt = nil
            next.groupPromptInput = ""
            switch top {
            case .chat, .groupInfo: break  // Group Info sits on its chat: the draft waits there.
            default: next.draft = ""
            }
            next.selectedMessage = nil
            next.chatScroll = 0
            next.composing = nil
            next.confirmingLogout = false
            next.promptedInvite = nil
        }
        if let chat = selectedChat, !state.chatList.contains(where: { $0.chatID == chat }) {
            next.selectedChat = nil
        }
        if let invite = selectedInvite, !state.invites.contains(where: { $0.inviteID == invite }) {
            next.selectedInvite = nil
        }
        if let invite = promptedInvite, !state.invites.contains(where: { $0.inviteID == invite }) {
            next.promptedInvite = nil
        }
        if let member = selectedMember, !Self.members(of: state).contains(member) {
            next.selectedMember = nil
        }
        if let relay = selectedRelay, !state.network.relays.contains(where: { $0.url == relay }) {
            next.selectedRelay = nil
        }
        if let device = selectedDevice, !state.devices.list.contains(where: { $0.id == device }) {
            next.selectedDevice = nil
        }
        if let device = confirmingDeviceRemoval, !state.devices.list.contains(where: { $0.id == device && $0.isLinked }) {
            next.confirmingDeviceRemoval = nil
        }
        if let message = selectedMessage, state.currentChat?.messages.contains(where: { $0.id == message }) != true {
            next.selectedMessage = nil
        }
        return next
    }

    /// Index of the highlighted chat in `list`.
    func selectedChatIndex(in list: [ChatSummary]) -> Int? {
        guard !list.isEmpty else { return nil }
        guard let selectedChat else { return 0 }
        return list.firstIndex(where: { $0.chatID == selectedChat }) ?? 0
    }

    /// Index of the highlighted row in `items` (invitations, then chats): the selected invitation,
    /// else the selected chat, else the first row.
    func selectedItemIndex(in items: [ChatListItem]) -> Int? {
        guard !items.isEmpty else { return nil }
        if let selectedInvite, let index = items.firstIndex(of: .invite(selectedInvite)) { return index }
        if let selectedChat, let index = items.firstIndex(of: .chat(selectedChat)) { return index }
        return 0
    }

    /// The rows of the Group Info screen: this account first, then the other members, in the core's order.
    static func members(of state: AppState) -> [String] {
        guard let chat = state.currentChat else { return [] }
        var rows: [String] = []
        if case .loggedIn(let npub, _) = state.auth { rows.append(npub) }
        return rows + chat.memberNpubs
    }

    /// Index of the highlighted member in `members`.
    func selectedMemberIndex(in members: [String]) -> Int? {
        guard !members.isEmpty else { return nil }
        guard let selectedMember else { return 0 }
        return members.firstIndex(of: selectedMember) ?? 0
    }

    /// Index of the highlighted relay in `relays`.
    func selectedRelayIndex(in relays: [RelayEntry]) -> Int? {
        guard !relays.isEmpty else { return nil }
        guard let selectedRelay else { return 0 }
        return relays.firstIndex(where: { $0.url == selectedRelay }) ?? 0
    }

    /// Index of the highlighted device in `devices`.
    func selectedDeviceIndex(in devices: [DeviceSummary]) -> Int? {
        guard !devices.isEmpty else { return nil }
        guard let selectedDevice else { return 0 }
        return devices.firstIndex(where: { $0.id == selectedDevice }) ?? 0
    }

    /// Highlights `item`.
    mutating func select(_ item: ChatListItem) {
        switch item {
        case .invite(let id):
            selectedInvite = id
            selectedChat = nil
        case .chat(let id):
            selectedChat = id
            selectedInvite = nil
        }
    }

    var description: String {
        "TUIViewState(screen: \(screen.map { "\($0)" } ?? "none"), size: \(size.columns)x\(size.rows), "
            + "importingKey: \(importingKey), nsecInput: \(nsecInput.isEmpty ? "empty" : "redacted"), "
            + "npubInput: \(npubInput.count) chars, groupNameInput: \(groupNameInput.count) chars, "
            + "groupMembersInput: \(groupMembersInput.count) chars, groupPrompt: \(groupPrompt.map { "\($0)" } ?? "none"), "
            + "addingRelay: \(addingRelay), relayInput: \(relayInput.count) chars, "
            + "profileNameInput: \(profileNameInput.count) chars, "
            + "selectedDevice: \(selectedDevice ?? "none"), confirmingDeviceRemoval: \(confirmingDeviceRemoval ?? "none"), "
            + "draft: \(draft.count) chars, "
            + "selectedChat: \(selectedChat.map(\.rawValue) ?? "none"), "
            + "selectedInvite: \(selectedInvite.map(\.rawValue) ?? "none"), "
            + "promptedInvite: \(promptedInvite.map(\.rawValue) ?? "none"), "
            + "selectedMessage: \(selectedMessage.map(\.rawValue) ?? "none"), chatScroll: \(chatScroll), "
            + "confirmingLogout: \(confirmingLogout), shouldQuit: \(shouldQuit))"
    }

    var debugDescription: String { description }
}

/// One selectable row of the chat list: the pending invitations first, then the chats, each in the
/// core's order.
enum ChatListItem: Sendable, Equatable {
    case invite(InviteID)
    case chat(ChatID)

    /// The rows `state` lists.
    static func all(in state: AppState) -> [ChatListItem] {
        state.invites.map { .invite($0.inviteID) } + state.inboxChats.map { .chat($0.chatID) }
    }
}
