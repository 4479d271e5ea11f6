import MarmotCore

/// The chat list: the account's npub to share, then the pending invitations (title and time, with
/// how to answer them or a spinner while the core answers), then one two-line row per chat (name,
/// member count of a group, the core's protocol badge, time and unread badge; last-message
/// preview), in the core's order: the Notes chat first, as "Notes" with no peer (issue 29), or a
/// line saying how to open it before it exists.
enum ChatListScreen {
    /// (L logs out, as the README says; the line keeps the everyday keys within 80 columns.)
    static let keys = "Enter open  n new chat  N group  o notes  D devices  R relays  P name  q quit"
    /// The help line while an invitation is highlighted.
    static let inviteKeys = "↑↓/jk move  a accept  d decline  Enter ask  n chat  N group  L log out  q quit"

    /// Lines each chat (and invitation) row takes.
    static let rowHeight = 2

    /// The help line for the highlighted row.
    static func keys(_ state: AppState, _ ui: TUIViewState) -> String {
        let items = ChatListItem.all(in: state)
        guard let index = ui.selectedItemIndex(in: items), case .invite = items[index] else { return keys }
        return inviteKeys
    }

    static func body(_ state: AppState, _ ui: TUIViewState, _ layout: TUILayout, spinnerPhase: Int = 0) -> [StyledLine] {
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
        guard !state.chatList.isEmpty || !state.invites.isEmpty else {
            body.append(.blank)
            guard state.showsNoChatsPlaceholder else {
                // Empty only because the session has not caught up yet: say so, not "no chats".
                body.append(StyledLine(" " + state.network.sync.statusText, .dim))
                return body
            }
            body.append(StyledLine(" No chats yet.", .bold))
            body.append(notesHint)
            body += TextWidth.wrapped("Press n to start one with someone's npub; invitations others send you appear here.", width: width - 2)
                .map { StyledLine(" " + $0) }
            return body
        }
        // Every row's lines, then a window over them that keeps the highlighted row in view.
        let items = ChatListItem.all(in: state)
        let selected = ui.selectedItemIndex(in: items) ?? 0
        var lines: [StyledLine] = []
        var selectedRange = 0..<0
        if !state.invites.isEmpty {
            lines.append(StyledLine(" Invitations (\(state.invites.count))", .color(.yellow, bold: true)))
            for (index, invite) in state.invites.enumerated() {
                let start = lines.count
                lines += inviteRow(
                    invite, selected: index == selected, answering: !invite.canAnswer,
                    spinnerPhase: spinnerPhase, width: width)
                if index == selected { selectedRange = start..<lines.count }
            }
            if !state.inboxChats.isEmpty { lines.append(StyledLine(" Chats", .color(.yellow, bold: true))) }
        }
        if !state.chatList.contains(where: \.isNotes) { lines.append(notesHint) }
        // Archived chats are left out (issue 48: `marmot chats --archived` lists them).
        for (offset, chat) in state.inboxChats.enumerated() {
            let index = state.invites.count + offset
            let start = lines.count
            lines += row(chat, selected: index == selected, width: width)
            if index == selected { selectedRange = start..<lines.count }
        }
        let room = max(layout.bodyRows - body.count, rowHeight)
        var first = 0
        if selectedRange.upperBound > room { first = selectedRange.upperBound - room }
        body += lines[first..<min(first + room, lines.count)]
        return body
    }

    /// Where the Notes chat will be, until it exists: how to open it.
    static let notesHint = StyledLine([Span("   Notes", .bold), Span(" · notes to self on all your devices · press o", .dim)])

    /// An invitation: a marker, the core's title and time; below it how to answer, or a spinner
    /// while the core accepts or declines it.
    static func inviteRow(_ invite: InviteSummary, selected: Bool, answering: Bool, spinnerPhase: Int, width: Int) -> [StyledLine] {
        var titleStyle = TextStyle.bold
        if selected { titleStyle.reverse = true }
        let first = StyledLine.justified(
            [Span(selected ? " > " : "   ", .bold), Span("✉ ", .color(.yellow, bold: true)),
             Span(TextWidth.sanitized(invite.title), titleStyle)],
            [Span(TextWidth.sanitized(invite.receivedTimeDisplay), .dim), Span(" ")], width: width)
        let second: StyledLine =
            if answering {
                StyledLine("     \(TUIRenderer.spinner(spinnerPhase)) answering…", .color(.blue, bold: true))
            } else if selected {
                StyledLine("     a accept · d decline", .color(.yellow))
            } else {
                StyledLine("     invitation · select it to accept or decline", .dim)
            }
        return [first, second.clipped(to: width)]
    }

    static func row(_ chat: ChatSummary, selected: Bool, width: Int) -> [StyledLine] {
        var nameStyle: TextStyle = chat.unreadCount > 0 ? .bold : .plain
        if selected { nameStyle.reverse = true }
        var right: [Span] = []
        if width >= TUILayout.badgeMinimumWidth { right.append(Span(TextWidth.sanitized(chat.protocolLabel) + "  ", .dim)) }
        right.append(Span(TextWidth.sanitized(chat.lastMessageTimeDisplay), .dim))
        if chat.unreadCount > 0 {
            right.append(Span(" "))
            right.append(Span(" \(chat.unreadCount) ", TextStyle(bold: true, reverse: true, foreground: .green)))
        }
        right.append(Span(" "))
        var left = [Span(selected ? " > " : "   ", .bold), Span(TextWidth.sanitized(chat.displayName), nameStyle)]
        if chat.isNotes {
            left.append(Span(" · notes to self", .dim))
        } else if chat.isGroup {
            left.append(Span(" · \(chat.memberCount) members", .dim))
        }
        if let label = chat.membershipLabel { left.append(Span(" · " + TextWidth.sanitized(label), .dim)) }
        if let picture = chat.image.label { left.append(Span(" · [" + picture + "]", .dim)) }
        if let muted = chat.muteLabel { left.append(Span(" · " + TextWidth.sanitized(muted), .dim)) }
        let first = StyledLine.justified(left, right, width: width)
        let previewStyle: TextStyle = chat.unreadCount > 0 ? .plain : .dim
        let second = StyledLine("     " + TextWidth.sanitized(chat.lastMessagePreview), previewStyle).clipped(to: width)
        return [first, second]
    }
}
