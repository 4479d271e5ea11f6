import MarmotCore

/// The new-chat screen: one npub field; Enter asks the core to create (or find) the chat.
enum NewChatScreen {
    static let keys = "Enter start chat  Esc back  Ctrl-U clear  Ctrl-C quit"

    static func body(_ state: AppState, _ ui: TUIViewState, _ layout: TUILayout) -> [StyledLine] {
        let width = layout.width
        var body: [StyledLine] = [.blank, StyledLine(" Start a chat", .bold)]
        body += TextWidth.wrapped("Enter the other person's npub and press Enter.", width: width - 2)
            .map { StyledLine(" " + $0) }
        body.append(.blank)
        body.append(TUIRenderer.field(" npub: ", ui.npubInput, width: width, focused: !state.busy.creatingChat))
        return body
    }
}
