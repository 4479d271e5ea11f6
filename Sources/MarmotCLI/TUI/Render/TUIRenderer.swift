import MarmotCore

/// What the renderer needs beyond `AppState` and the view state: things only the driver knows.
struct RenderContext: Sendable, Equatable {
    /// The status line given by the caller (relay status and the like), shown as is.
    var statusLine: String = ""
    /// True while the manager restores a stored session: the login screen must not be offered then.
    var restoring = false
    /// Advances with time so the busy indicator turns.
    var spinnerPhase = 0
    /// The manager's secret-store problem message, shown above everything until dismissed: it
    /// decides whether the account survives a restart.
    var secretStoreProblem: String?
}

/// Draws a frame from state: `(AppState, TUIViewState, RenderContext) -> Frame`, with no side effects.
///
/// Every string shown comes from `AppState`'s display fields (names, previews, time labels, toasts);
/// the renderer only lays them out, wraps, truncates and sanitizes them.
enum TUIRenderer {
    static func render(_ state: AppState, _ ui: TUIViewState, _ context: RenderContext = RenderContext()) -> Frame {
        let layout = TUILayout(size: ui.size)
        guard !layout.isTooSmall else {
            let note = StyledLine("Terminal too small (\(ui.size.columns)×\(ui.size.rows))", .bold)
            return Frame(size: ui.size, lines: [note])
        }
        let top = state.router.topScreen
        var body: [StyledLine]
        let title: String
        let keys: String
        // The open chat's protocol badge, small beside the account in the header (issue 18).
        var badge: String?
        if context.restoring || (top == .login && state.busy.restoringSession) {
            title = "Marmot"
            body = restoringBody(layout)
            keys = "Ctrl-C quit"
        } else {
            switch top {
            case .login:
                title = "Marmot · Log in"
                body = LoginScreen.body(state, ui, layout)
                keys = LoginScreen.keys(ui)
            case .chatList:
                title = "Marmot · Chats"
                body = ChatListScreen.body(state, ui, layout, spinnerPhase: context.spinnerPhase)
                keys = ChatListScreen.keys(state, ui)
            case .newChat:
                title = "Marmot · New chat"
                body = NewChatScreen.body(state, ui, layout)
                keys = NewChatScreen.keys
            case .chat(let chatID):
                let chat = state.currentChat.flatMap { $0.chatID == chatID ? $0 : nil }
                title = "Marmot · " + TextWidth.sanitized(chat?.displayName ?? "Chat") + (chat.map(memberCount) ?? "")
                body = ChatScreen.body(state, ui, layout)
                keys = chat?.isGroup == true && chat?.isNotes != true ? ChatScreen.groupKeys : ChatScreen.keys
                badge = chat.map { [$0.protocolLabel, $0.retentionLabel, $0.image.label, $0.convergenceBadge].compactMap { $0 }.joined(separator: " · ") }
            case .newGroup:
                title = "Marmot · New group"
                body = NewGroupScreen.body(state, ui, layout)
                keys = NewGroupScreen.keys
            case .groupInfo(let chatID):
                let chat = state.currentChat.flatMap { $0.chatID == chatID ? $0 : nil }
                title = "Marmot · " + TextWidth.sanitized(chat?.displayName ?? "Group") + " · Info"
                body = GroupInfoScreen.body(state, ui, layout)
                keys = GroupInfoScreen.keys(state, ui)
            case .relays:
                title = "Marmot · Relays"
                body = RelaysScreen.body(state, ui, layout)
                keys = RelaysScreen.keys(ui)
            case .profile:
                title = "Marmot · Profile"
                body = ProfileScreen.body(state, ui, layout)
                keys = ProfileScreen.keys
            case .devices:
                title = "Marmot · Devices"
                body = DevicesScreen.body(state, ui, layout)
                keys = DevicesScreen.keys(state, ui)
            }
        }
        body = Array(body.prefix(layout.bodyRows))
        while body.count < layout.bodyRows { body.append(.blank) }
        var lines = [titleBar(title, badge: badge, state: state, width: layout.width)]
        lines += body
        lines.append(notice(state, ui, context, width: layout.width))
        lines.append(StyledLine(" " + TextWidth.sanitized(context.statusLine), .dim))
        lines.append(StyledLine(" " + keys, .dim))
        return Frame(size: ui.size, lines: lines)
    }

    private static func titleBar(_ title: String, badge: String?, state: AppState, width: Int) -> StyledLine {
        var right: [Span] = []
        if let badge, width >= TUILayout.badgeMinimumWidth { right.append(Span(TextWidth.sanitized(badge) + "  ", TextStyle(dim: true, reverse: true))) }
        if let short = state.auth.shortNpub {
            right.append(Span(short + " ", .reverse))
        }
        return StyledLine.justified([Span(" " + title, TextStyle(bold: true, reverse: true))], right, width: width, fill: .reverse)
    }

    /// " (3 members)" for a group, with the core's member count; " (2 devices)" for Notes, whose
    /// members are this account's devices.
    static func memberCount(_ chat: ChatViewState) -> String {
        if chat.isNotes { return " (\(chat.memberCount) device\(chat.memberCount == 1 ? "" : "s"))" }
        return chat.isGroup ? " (\(chat.memberCount) members)" : ""
    }

    private static func restoringBody(_ layout: TUILayout) -> [StyledLine] {
        var body = Array(repeating: StyledLine.blank, count: max(layout.bodyRows / 2 - 1, 0))
        body.append(StyledLine("Restoring your session…", .bold).centered(in: layout.width))
        return body
    }

    /// The notice line: a secret-store problem first, then a pending question, the toast, and what
    /// the core is busy with.
    private static func notice(_ state: AppState, _ ui: TUIViewState, _ context: RenderContext, width: Int) -> StyledLine {
        if let problem = context.secretStoreProblem {
            return StyledLine.justified(
                [Span(" ! " + TextWidth.sanitized(problem), .color(.red, bold: true))], [Span("Esc dismiss", .dim)],
                width: width)
        }
        if ui.confirmingLogout {
            return StyledLine(
                " Log out? The key stored on this machine is deleted: export it first to keep the account. y/n",
                .color(.yellow, bold: true))
        }
        if ui.groupPrompt == .confirmLeave {
            return StyledLine(" Leave this group? You stop receiving its messages. y/n", .color(.yellow, bold: true))
        }
        if ui.groupPrompt == .confirmDisband {
            return StyledLine(" Close this group for every member, for good? y/n", .color(.yellow, bold: true))
        }
        if let removing = ui.confirmingDeviceRemoval {
            let name = state.devices.list.first { $0.id == removing }.map { TextWidth.sanitized($0.name) } ?? removing
            return StyledLine(
                " Remove \(name)? It reads nothing written after. y/n", .color(.yellow, bold: true)
            ).clipped(to: width)
        }
        if let prompted = ui.promptedInvite, let invite = state.invites.first(where: { $0.inviteID == prompted }) {
            return StyledLine.justified(
                [Span(" ? " + TextWidth.sanitized(invite.title), .color(.yellow, bold: true))],
                [Span("a accept  d decline  Esc cancel ", .color(.yellow, bold: true))], width: width)
        }
        if let toast = state.toast {
            return StyledLine.justified(
                [Span(" ! " + TextWidth.sanitized(toast), .color(.yellow, bold: true))], [Span("Esc dismiss", .dim)],
                width: width)
        }
        if let busy = busyText(state.busy, restoring: context.restoring) {
            return StyledLine(" \(spinner(context.spinnerPhase)) \(busy)", .color(.blue, bold: true))
        }
        return .blank
    }

    /// The core's busy text; while the manager hands a stored session over (before the core marks
    /// itself busy) the core's wording for a restore.
    static func busyText(_ busy: BusyState, restoring: Bool) -> String? {
        if let text = busy.statusText { return text }
        return restoring ? BusyState(restoringSession: true).statusText : nil
    }

    private static let spinnerFrames: [Character] = ["|", "/", "-", "\\"]

    static func spinner(_ phase: Int) -> Character {
        spinnerFrames[((phase % spinnerFrames.count) + spinnerFrames.count) % spinnerFrames.count]
    }

    /// An input field: `label`, then the end of `text` that fits, then a block cursor.
    static func field(_ label: String, _ text: String, width: Int, focused: Bool = true) -> StyledLine {
        let room = max(width - TextWidth.of(label) - 2, 1)
        var spans = [Span(label, .bold), Span(TextWidth.tail(TextWidth.sanitized(text), fitting: room))]
        if focused { spans.append(Span(" ", .reverse)) }
        return StyledLine(spans)
    }
}
