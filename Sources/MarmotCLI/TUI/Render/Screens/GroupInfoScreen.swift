import MarmotCore

/// The Group Info screen: the members (this account first, marked "(you)"; admins marked "admin"),
/// the question being asked (an npub to add, a new name, leaving), and which keys apply: the
/// management keys only when the core says `canManage`.
enum GroupInfoScreen {
    static let manageKeys = "↑↓ move  a add  r remove  p admin on/off  n rename  l leave  Esc back"
    /// v2 groups add disappearing messages and closing the group.
    static let manageKeysV2 = "↑↓ move  a add  r remove  p admin  n rename  t timer  x close  l leave  Esc back"
    static let memberKeys = "↑↓ move  l leave  Esc back  Ctrl-C quit"
    static let promptKeys = "Enter confirm  Esc cancel  Ctrl-U clear"

    /// The help line for the screen shown.
    static func keys(_ state: AppState, _ ui: TUIViewState) -> String {
        if ui.groupPrompt == .addMember || ui.groupPrompt == .rename { return promptKeys }
        guard let chat = state.currentChat, chat.canManage else { return memberKeys }
        return chat.protocolVersion == .v2 ? manageKeysV2 : manageKeys
    }

    static func body(_ state: AppState, _ ui: TUIViewState, _ layout: TUILayout) -> [StyledLine] {
        let width = layout.width
        guard let chat = state.currentChat else {
            return [.blank, StyledLine("Loading…", .dim).centered(in: width)]
        }
        var head: [StyledLine] = [
            StyledLine([Span(" " + TextWidth.sanitized(chat.displayName), .bold), Span(" · \(chat.memberCount) members", .dim)])
                .clipped(to: width),
            StyledLine(String(repeating: "─", count: width), .dim),
        ]
        var tail: [StyledLine] = [StyledLine(String(repeating: "─", count: width), .dim)]
        switch ui.groupPrompt {
        case .addMember:
            tail.append(TUIRenderer.field(" Add npub: ", ui.groupPromptInput, width: width))
        case .rename:
            tail.append(TUIRenderer.field(" New name: ", ui.groupPromptInput, width: width))
        case .confirmLeave, .confirmDisband, nil:
            let note =
                chat.canManage
                ? "You are an admin: you may add, remove, rename and change admins."
                : "Only admins add, remove, rename and change admins."
            tail.append(StyledLine(" " + note, .dim).clipped(to: width))
            if let retention = chat.retentionLabel { tail.append(StyledLine(" " + retention, .dim).clipped(to: width)) }
        }
        let members = TUIViewState.members(of: state)
        let selected = ui.selectedMemberIndex(in: members) ?? 0
        var me: String?
        if case .loggedIn(let npub, _) = state.auth { me = npub }
        let rows = members.enumerated().map { index, npub in
            row(npub, isAdmin: chat.adminNpubs.contains(npub), isMe: npub == me, selected: index == selected, width: width)
        }
        head.append(StyledLine(" Members", .color(.yellow, bold: true)))
        let room = max(layout.bodyRows - head.count - tail.count, 1)
        let first = selected >= room ? selected - room + 1 : 0
        head += rows[min(first, rows.count)..<min(first + room, rows.count)]
        let padding = max(layout.bodyRows - head.count - tail.count, 0)
        return head + Array(repeating: StyledLine.blank, count: padding) + tail
    }

    /// One member: a marker, the npub, and "admin" / "(you)".
    static func row(_ npub: String, isAdmin: Bool, isMe: Bool, selected: Bool, width: Int) -> StyledLine {
        var style: TextStyle = isMe ? .bold : .plain
        if selected { style.reverse = true }
        var spans = [Span(selected ? " > " : "   ", .bold), Span(TextWidth.sanitized(npub), style)]
        if isAdmin { spans.append(Span(" admin", .color(.green, bold: true))) }
        if isMe { spans.append(Span(" (you)", .dim)) }
        return StyledLine(spans).clipped(to: width)
    }
}
