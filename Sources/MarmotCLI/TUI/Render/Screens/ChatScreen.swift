import MarmotCore

/// The chat screen: the transcript, a separator, and the line being typed.
enum ChatScreen {
    static let keys = "Enter send  Esc back  ↑↓ select  r retry  PgUp/PgDn/Home/End scroll  ^C quit"
    /// The help line of a group chat: Ctrl-G opens Group Info.
    static let groupKeys = "Enter send  Esc back  ↑↓ select  r retry  PgUp/PgDn  ^G group info  ^C quit"

    static func body(_ state: AppState, _ ui: TUIViewState, _ layout: TUILayout) -> [StyledLine] {
        let width = layout.width
        // While the group has not settled on one history, the core's reason heads the transcript.
        let settling = state.currentChat?.convergenceLabel
        let height = layout.transcriptRows - (settling == nil ? 0 : 1)
        var body: [StyledLine] = []
        if let settling { body.append(StyledLine(" " + TextWidth.sanitized(settling), .dim).clipped(to: width)) }
        if let chat = state.currentChat {
            let transcript = ChatTranscript(chat: chat, width: width, selected: ui.selectedMessage)
            let start = transcript.window(height: height, scroll: ui.chatScroll, selected: ui.selectedMessage).start
            let shown = transcript.lines[start..<min(start + height, transcript.lines.count)]
            // Bottom-anchored, like a messenger: blank lines above a short conversation.
            body += Array(repeating: StyledLine.blank, count: max(height - shown.count, 0))
            body += shown
        } else {
            body += Array(repeating: StyledLine.blank, count: max(height - 1, 0))
            body.append(StyledLine("Loading…", .dim).centered(in: width))
        }
        body.append(StyledLine(String(repeating: "─", count: width), .dim))
        if ui.selectedMessage != nil {
            body.append(StyledLine(" ↑↓ select  + 👍  ^Y reply  ^E edit  ^D delete  r retry  Esc back to typing", .dim))
        } else {
            let prompt: String =
                switch ui.composing {
                case .reply: " reply > "
                case .edit: " edit > "
                case nil: " > "
                }
            body.append(TUIRenderer.field(prompt, ui.draft, width: width))
        }
        return body
    }
}
