import MarmotCore

/// The group screens' keys: New Group (name and members fields) and Group Info (members, and the
/// management keys the core allows with `ChatViewState.canManage`; leaving for everyone).
extension TUIKeyMap {
    // MARK: New group

    /// Tab/↑↓ switch between the name and the members field, Enter in the name field goes to the
    /// members, Enter in the members field asks the core to create the group, Esc goes back.
    static func newGroup(_ key: Key, state: AppState, ui: TUIViewState) -> Result {
        var ui = ui
        switch key {
        case .escape:
            return (ui, back(state))
        case .tab, .backTab, .up, .down:
            ui.newGroupField = ui.newGroupField == .name ? .members : .name
            return (ui, [])
        case .enter where ui.newGroupField == .name:
            ui.newGroupField = .members
            return (ui, [])
        case .enter:
            if state.busy.creatingChat { return (ui, []) }
            return (ui, [.createGroup(name: ui.groupNameInput, memberNpubs: npubs(in: ui.groupMembersInput))])
        default:
            if state.busy.creatingChat { return (ui, []) }
            switch ui.newGroupField {
            case .name: ui.groupNameInput = edited(ui.groupNameInput, with: key)
            case .members: ui.groupMembersInput = edited(ui.groupMembersInput, with: key)
            }
            return (ui, [])
        }
    }

    /// The npubs of a members field: the words between commas and spaces (the core validates them).
    static func npubs(in text: String) -> [String] {
        text.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
    }

    // MARK: Group info

    /// ↑↓/jk move over the members, Esc goes back to the chat; with `canManage` a adds (asks an
    /// npub), r removes the highlighted member, p makes them admin or takes it away, n renames (asks
    /// the name), and in a v2 chat t steps disappearing messages through off, 1 hour, 1 day, 1 week
    /// and x closes the group for everyone (asks y/n); l leaves (asks y/n).
    static func groupInfo(_ key: Key, chatID: ChatID, state: AppState, ui: TUIViewState) -> Result {
        var ui = ui
        guard let chat = state.currentChat, chat.chatID == chatID else {
            return (ui, key == .escape ? back(state) : [])
        }
        if let prompt = ui.groupPrompt { return groupPrompt(prompt, key, chat: chat, ui: ui) }
        let members = TUIViewState.members(of: state)
        let index = ui.selectedMemberIndex(in: members)
        let selected = index.map { members[$0] }
        if let row = listMove(key, from: index, count: members.count) {
            ui.selectedMember = members[row]
            return (ui, [])
        }
        switch key {
        case .escape, .left:
            return (ui, back(state))
        case .character("l"):
            ui.groupPrompt = .confirmLeave
        case .character("a") where chat.canManage:
            ui.groupPrompt = .addMember
            ui.groupPromptInput = ""
        case .character("n") where chat.canManage:
            ui.groupPrompt = .rename
            ui.groupPromptInput = ""
        case .character("r") where chat.canManage:
            guard let selected else { return (ui, []) }
            return (ui, [.removeMember(chatID: chatID, npub: selected)])
        case .character("p") where chat.canManage:
            guard let selected else { return (ui, []) }
            return (ui, [.setAdmin(chatID: chatID, npub: selected, isAdmin: !chat.adminNpubs.contains(selected))])
        case .character("t") where chat.canManage && chat.protocolVersion == .v2:
            return (ui, [.setRetention(chatID: chatID, seconds: nextRetention(after: chat.retentionSeconds))])
        case .character("x") where chat.canManage && chat.protocolVersion == .v2:
            ui.groupPrompt = .confirmDisband
        default:
            break
        }
        return (ui, [])
    }

    /// A pending Group Info question: the typed npub or name (Enter sends it, Esc cancels), or y/n
    /// to leaving.
    private static func groupPrompt(_ prompt: TUIViewState.GroupPrompt, _ key: Key, chat: ChatViewState, ui: TUIViewState) -> Result {
        var ui = ui
        switch prompt {
        case .confirmLeave:
            ui.groupPrompt = nil
            return (ui, key == .character("y") || key == .character("Y") ? [.leaveChat(chatID: chat.chatID)] : [])
        case .confirmDisband:
            ui.groupPrompt = nil
            return (ui, key == .character("y") || key == .character("Y") ? [.disbandChat(chatID: chat.chatID)] : [])
        case .addMember, .rename:
            switch promptStep(key, input: ui.groupPromptInput) {
            case .editing(let text):
                ui.groupPromptInput = text
                return (ui, [])
            case .cancelled:
                ui.groupPrompt = nil
                ui.groupPromptInput = ""
                return (ui, [])
            case .submitted(let text):
                ui.groupPrompt = nil
                ui.groupPromptInput = ""
                return (ui, prompt == .rename
                    ? [.renameChat(chatID: chat.chatID, name: text)]
                    : [.addMembers(chatID: chat.chatID, npubs: npubs(in: text))])
            }
        }
    }

    /// The retention `t` sets next: off → 1 hour → 1 day → 1 week → off (another value goes to off).
    static func nextRetention(after seconds: UInt64) -> UInt64 {
        let steps: [UInt64] = [0, 3_600, 86_400, 604_800]
        guard let index = steps.firstIndex(of: seconds) else { return 0 }
        return steps[(index + 1) % steps.count]
    }
}
