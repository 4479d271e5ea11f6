import MarmotCore

/// Maps a key to the view-state change and the `AppAction`s it means on the screen shown:
/// `(Key, AppState, TUIViewState) -> (TUIViewState, [AppAction])`, pure.
///
/// Navigation goes through the core: "back" reports the popped stack with `updateScreenStack`, opening
/// a chat or the new-chat screen dispatches `openChat`/`pushScreen`. A key that means nothing on the
/// screen shown produces no action.
///
/// Keys (also on each screen's help line):
/// - everywhere: Ctrl-C quits; Esc dismisses a toast before anything else.
/// - login: ↑↓/jk/Tab choose, Enter selects, c creates an account, i imports an nsec, q quits; in the
///   nsec field Enter logs in, Esc cancels, Ctrl-U clears.
/// - chat list: ↑↓/jk/Home/End move over the invitations and chats, Enter/→ open a chat, n new chat,
///   N new group, o Notes (made on first use), D devices, R relays, P profile (your name), L log out
///   (then y), q quits; on an invitation a accepts, d declines, Enter asks (then a, d or Esc).
/// - new chat: type the npub, Enter creates the chat, Esc goes back, Ctrl-U clears.
/// - chat: type, Enter sends, Esc goes back (or leaves message selection), ↑↓ select messages, r or
///   Ctrl-R retries the selected failed message, PgUp/PgDn scroll (PgUp at the top loads older
///   messages), Home goes to the oldest loaded message (and loads older ones), End to the newest;
///   in a group Ctrl-G opens Group Info.
/// - new group: type the name, Tab (or Enter) to the members field, type npubs separated by commas or
///   spaces, Enter creates the group, Esc goes back.
/// - group info: ↑↓/jk move over the members, Esc back; when the core says we may manage: a add
///   (asks an npub), r remove, p promote/demote, n rename (asks the name); l leave (then y).
/// - relays: ↑↓/jk move over the relays, a add (asks the URL; Enter adds, Esc cancels), r or Delete
///   remove the highlighted relay, Esc back.
/// - profile: type the name others see, Enter saves it, Esc back, Ctrl-U clears.
/// - devices: ↑↓/jk move over this account's devices, l links the highlighted waiting device, r or
///   Delete removes the highlighted linked device (then y), u reads the list again, Esc back.
enum TUIKeyMap {
    typealias Result = (ui: TUIViewState, actions: [AppAction])

    /// `restoring` is the manager's `isRestoring`: while a stored session is restored only Ctrl-C works.
    static func handle(_ key: Key, state: AppState, ui: TUIViewState, restoring: Bool = false) -> Result {
        var ui = ui
        if key == .control("c") {
            ui.shouldQuit = true
            return (ui, [])
        }
        if restoring { return (ui, []) }
        if ui.confirmingLogout {
            ui.confirmingLogout = false
            return (ui, key == .character("y") || key == .character("Y") ? [.logout] : [])
        }
        if key == .escape, state.toast != nil, !(ui.selectedMessage != nil && isChat(state)) {
            return (ui, [.clearToast])
        }
        switch state.router.topScreen {
        case .login: return login(key, state: state, ui: ui)
        case .chatList: return chatList(key, state: state, ui: ui)
        case .newChat: return newChat(key, state: state, ui: ui)
        case .chat(let chatID): return chat(key, chatID: chatID, state: state, ui: ui)
        case .newGroup: return newGroup(key, state: state, ui: ui)
        case .groupInfo(let chatID): return groupInfo(key, chatID: chatID, state: state, ui: ui)
        case .relays: return relays(key, state: state, ui: ui)
        case .profile: return profile(key, state: state, ui: ui)
        case .devices: return devices(key, state: state, ui: ui)
        }
    }

    private static func isChat(_ state: AppState) -> Bool {
        if case .chat = state.router.topScreen { return true }
        return false
    }

    /// The stack with its top screen removed: what "back" reports to the core.
    static func back(_ state: AppState) -> [AppAction] {
        let stack = state.router.screenStack
        guard !stack.isEmpty else { return [] }
        return [.updateScreenStack(Array(stack.dropLast()))]
    }

    // MARK: Login

    private static func login(_ key: Key, state: AppState, ui: TUIViewState) -> Result {
        var ui = ui
        if state.busy.isAuthenticating { return (ui, []) }
        if ui.importingKey {
            switch key {
            case .enter:
                let nsec = ui.nsecInput
                ui.nsecInput = ""
                return (ui, state.busy.canLogin(nsec: nsec) ? [.login(nsec: nsec)] : [])
            case .escape:
                ui.importingKey = false
                ui.nsecInput = ""
            default:
                ui.nsecInput = edited(ui.nsecInput, with: key)
            }
            return (ui, [])
        }
        let choices = TUIViewState.LoginChoice.allCases
        switch key {
        case .up, .character("k"), .backTab:
            ui.loginChoice = choices[max(ui.loginChoice.rawValue - 1, 0)]
        case .down, .character("j"):
            ui.loginChoice = choices[min(ui.loginChoice.rawValue + 1, choices.count - 1)]
        case .tab:
            ui.loginChoice = choices[(ui.loginChoice.rawValue + 1) % choices.count]
        case .character("c"):
            return (ui, [.createAccount])
        case .character("i"):
            ui.importingKey = true
        case .enter:
            switch ui.loginChoice {
            case .createAccount: return (ui, [.createAccount])
            case .importKey: ui.importingKey = true
            }
        case .character("q"):
            ui.shouldQuit = true
        default:
            break
        }
        return (ui, [])
    }

    // MARK: Chat list

    private static func chatList(_ key: Key, state: AppState, ui: TUIViewState) -> Result {
        var ui = ui
        if let prompted = ui.promptedInvite {
            ui.promptedInvite = nil
            switch key {
            case .character("a"), .character("y"), .enter: return (ui, answer(prompted, accept: true, state: state))
            case .character("d"): return (ui, answer(prompted, accept: false, state: state))
            default: return (ui, [])
            }
        }
        let items = ChatListItem.all(in: state)
        let index = ui.selectedItemIndex(in: items)
        func select(_ target: Int) {
            guard !items.isEmpty else { return }
            ui.select(items[min(max(target, 0), items.count - 1)])
        }
        let selected = index.map { items[$0] }
        switch key {
        case .up, .character("k"): select((index ?? 0) - 1)
        case .down, .character("j"): select((index ?? -1) + 1)
        case .home, .character("g"): select(0)
        case .end, .character("G"): select(items.count - 1)
        case .pageUp: select((index ?? 0) - 5)
        case .pageDown: select((index ?? 0) + 5)
        case .enter, .right, .character("l"):
            switch selected {
            case .chat(let chatID):
                ui.select(.chat(chatID))
                return (ui, [.openChat(chatID: chatID)])
            case .invite(let inviteID):
                ui.select(.invite(inviteID))
                if state.invites.first(where: { $0.inviteID == inviteID })?.canAnswer == true { ui.promptedInvite = inviteID }
            case nil:
                break
            }
        case .character("a"), .character("d"):
            guard case .invite(let inviteID) = selected else { return (ui, []) }
            return (ui, answer(inviteID, accept: key == .character("a"), state: state))
        case .character("n"):
            return (ui, [.pushScreen(.newChat)])
        case .character("N"):
            return (ui, [.pushScreen(.newGroup)])
        case .character("o"):
            return (ui, [.openNotes])
        case .character("D"):
            return (ui, [.pushScreen(.devices), .loadDevices])
        case .character("R"):
            return (ui, [.pushScreen(.relays)])
        case .character("P"):
            return (ui, [.pushScreen(.profile)])
        case .character("L"):
            ui.confirmingLogout = true
        case .character("q"):
            ui.shouldQuit = true
        default:
            break
        }
        return (ui, [])
    }

    /// The answer to a pending invitation, unless the core is already answering it.
    private static func answer(_ id: InviteID, accept: Bool, state: AppState) -> [AppAction] {
        guard state.invites.first(where: { $0.inviteID == id })?.canAnswer == true else { return [] }
        return [accept ? .acceptInvite(inviteID: id) : .declineInvite(inviteID: id)]
    }

    // MARK: New chat

    private static func newChat(_ key: Key, state: AppState, ui: TUIViewState) -> Result {
        var ui = ui
        switch key {
        case .escape:
            return (ui, back(state))
        case .enter:
            guard state.busy.canCreateChat(peerNpub: ui.npubInput) else { return (ui, []) }
            return (ui, [.createChat(peerNpub: ui.npubInput)])
        default:
            if state.busy.creatingChat { return (ui, []) }
            ui.npubInput = edited(ui.npubInput, with: key)
            return (ui, [])
        }
    }
}

extension TUIKeyMap {
    /// The row a movement key (↑↓ or k/j, Home, End) moves to from `index` in a list of `count`
    /// rows, clamped to the list; nil for any other key or an empty list. One rule for every
    /// screen that lists rows to pick from (Relays, group members, Devices).
    static func listMove(_ key: Key, from index: Int?, count: Int) -> Int? {
        guard count > 0 else { return nil }
        let target: Int
        switch key {
        case .up, .character("k"): target = (index ?? 0) - 1
        case .down, .character("j"): target = (index ?? -1) + 1
        case .home: target = 0
        case .end: target = count - 1
        default: return nil
        }
        return min(max(target, 0), count - 1)
    }
}
