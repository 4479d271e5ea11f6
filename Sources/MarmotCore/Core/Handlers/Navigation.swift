/// The router: core-initiated pushes and platform-reported stacks (MVP spec, Router).
///
/// Only the logged-in screens (`.newChat`, `.newGroup`, `.relays`, `.profile`, `.devices`, `.chat`,
/// `.groupInfo`) are ever stacked; `.login` and `.chatList` are roots chosen by the auth state. Which
/// chat is shown follows from the stack in `reconcileDerivedState`.
extension AppCore {
    func pushScreen(_ screen: Screen) {
        guard let session else {
            logger.debug("navigation ignored while logged out")
            return
        }
        switch screen {
        case .login, .chatList:
            logger.debug("root screens are not pushed", metadata: ["screen": "\(screen.tag)"])
        case .newChat, .newGroup, .relays, .profile, .devices:
            if state.router.topScreen != screen { state.router.screenStack.append(screen) }
        case .chat(let chatID), .groupInfo(let chatID):
            guard session.chats[chatID] != nil else {
                finish(.openChat, .unknownChat, "Chat not found")
                return
            }
            if state.router.topScreen != screen { state.router.screenStack.append(screen) }
        }
    }

    /// Adopts the stack the platform shows after its own navigation (swipe back, system back).
    func updateScreenStack(_ stack: [Screen]) {
        guard session != nil else {
            logger.debug("navigation ignored while logged out")
            return
        }
        state.router.screenStack = stack.filter { $0 != .login && $0 != .chatList }
    }

    /// Shows `chatID` after creating or finding it: replaces a New Chat screen on top, so going back
    /// returns to the chat list.
    func showChat(_ chatID: ChatID) {
        if state.router.screenStack.last == .newChat || state.router.screenStack.last == .newGroup {
            state.router.screenStack.removeLast()
        }
        pushScreen(.chat(chatID: chatID))
    }
}
