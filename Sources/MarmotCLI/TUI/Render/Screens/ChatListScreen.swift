import MarmotCore

/// The chat list: the account's npub to share, then one two-line row per chat (name, time and unread
/// badge; last-message preview), in the core's order.
enum ChatListScreen {
    static let keys = "↑↓/jk move  Enter open  n new chat  L log out  q quit"

    /// Lines each chat row takes.
    static let rowHeight = 2

    static func body(_ state: AppState, _ ui: TUIViewState, _ layout: TUILayout) -> [StyledLine] {
        let width = layout.width
        var body: [StyledLine] = []
        if case .loggedIn(let npub, _) = state.auth {
            let label = " Your npub: "
            if TextWidth.of(label + npub) <= width {
                body.append(StyledLine([Span(label, .dim), Span(npub, .bold)]))
            } else {
                body.append(StyledLine(label, .dim))
                body += TextWidth.wrapped(npub, width: width - 1).map { StyledLine(" " + $0, .bold) }
            }
        }
        body.append(StyledLine(String(repeating: "─", count: width), .dim))
        guard !state.chatList.isEmpty else {
            body.append(.blank)
            body.append(StyledLine(" No chats yet.", .bold))
            body += TextWidth.wrapped("Press n to start one with someone's npub; chats others start with you appear here.", width: width - 2)
                .map { StyledLine(" " + $0) }
            return body
        }
        let room = max(layout.bodyRows - body.count, rowHeight)
        let visibleChats = max(room / rowHeight, 1)
        let selected = ui.selectedChatIndex(in: state.chatList) ?? 0
        let first = min(max(selected - visibleChats + 1, 0), max(state.chatList.count - visibleChats, 0))
        for index in first..<min(first + visibleChats, state.chatList.count) {
            body += row(state.chatList[index], selected: index == selected, width: width)
        }
        return body
    }

    static func row(_ chat: ChatSummary, selected: Bool, width: Int) -> [StyledLine] {
        var nameStyle: TextStyle = chat.unreadCount > 0 ? .bold : .plain
        if selected { nameStyle.reverse = true }
        var right: [Span] = [Span(TextWidth.sanitized(chat.lastMessageTimeDisplay), .dim)]
        if chat.unreadCount > 0 {
            right.append(Span(" "))
            right.append(Span(" \(chat.unreadCount) ", TextStyle(bold: true, reverse: true, foreground: .green)))
        }
        right.append(Span(" "))
        let first = StyledLine.justified(
            [Span(selected ? " > " : "   ", .bold), Span(TextWidth.sanitized(chat.displayName), nameStyle)], right,
            width: width)
        let previewStyle: TextStyle = chat.unreadCount > 0 ? .plain : .dim
        let second = StyledLine("     " + TextWidth.sanitized(chat.lastMessagePreview), previewStyle).clipped(to: width)
        return [first, second]
    }
}
