import MarmotCore

/// The chat screen's keys: typing and sending, message selection and retry, scrolling and paging back.
extension TUIKeyMap {
    static func chat(_ key: Key, chatID: ChatID, state: AppState, ui: TUIViewState) -> Result {
        var ui = ui
        guard let chat = state.currentChat, chat.chatID == chatID else {
            return (ui, key == .escape ? back(state) : [])
        }
        let layout = TUILayout(size: ui.size)
        let messages = chat.messages
        let selectedIndex = ui.selectedMessage.flatMap { id in messages.firstIndex(where: { $0.id == id }) }
        switch key {
        case .escape:
            if ui.selectedMessage != nil {
                ui.selectedMessage = nil
                return (ui, [])
            }
            if ui.composing != nil {
                ui.composing = nil
                ui.draft = ""
                return (ui, [])
            }
            return (ui, back(state))
        case .enter:
            if ui.selectedMessage != nil {
                ui.selectedMessage = nil
                return (ui, [])
            }
            guard chat.canSend(draft: ui.draft) else { return (ui, []) }
            let text = ui.draft
            let composing = ui.composing
            ui.draft = ""
            ui.chatScroll = 0
            ui.composing = nil
            switch composing {
            case .reply(let target): return (ui, [.reply(chatID: chatID, messageID: target, content: text)])
            case .edit(let target): return (ui, [.editMessage(chatID: chatID, messageID: target, content: text)])
            case nil: return (ui, [.sendMessage(chatID: chatID, content: text)])
            }
        case .up:
            guard !messages.isEmpty else { return (ui, loadOlder(chat)) }
            let target = (selectedIndex ?? messages.count) - 1
            if target < 0 { return (ui, loadOlder(chat)) }
            ui.selectedMessage = messages[target].id
            return (ui, target == 0 ? loadOlder(chat) : [])
        case .down:
            guard let selectedIndex else { return (ui, []) }
            ui.selectedMessage = selectedIndex + 1 < messages.count ? messages[selectedIndex + 1].id : nil
            if ui.selectedMessage == nil { ui.chatScroll = 0 }
            return (ui, [])
        case .pageUp:
            let transcript = ChatTranscript(chat: chat, width: layout.width, selected: ui.selectedMessage)
            let current = transcript.window(height: layout.transcriptRows, scroll: ui.chatScroll, selected: ui.selectedMessage)
            ui.selectedMessage = nil
            let next = transcript.window(height: layout.transcriptRows, scroll: current.scroll + layout.pageRows, selected: nil)
            ui.chatScroll = next.scroll
            return (ui, next.start == 0 ? loadOlder(chat) : [])
        case .pageDown:
            let transcript = ChatTranscript(chat: chat, width: layout.width, selected: ui.selectedMessage)
            let current = transcript.window(height: layout.transcriptRows, scroll: ui.chatScroll, selected: ui.selectedMessage)
            ui.selectedMessage = nil
            ui.chatScroll = max(current.scroll - layout.pageRows, 0)
            return (ui, [])
        case .end:
            ui.selectedMessage = nil
            ui.chatScroll = 0
            return (ui, [])
        case .home:
            let transcript = ChatTranscript(chat: chat, width: layout.width, selected: nil)
            ui.selectedMessage = nil
            ui.chatScroll = transcript.window(height: layout.transcriptRows, scroll: .max, selected: nil).scroll
            return (ui, loadOlder(chat))
        case .control("g") where chat.isGroup && !chat.isNotes:
            return (ui, [.pushScreen(.groupInfo(chatID: chatID))])
        case .control("r"):
            return (ui, retry(selectedIndex.map { messages[$0] }, chatID: chatID))
        case .character("r") where selectedIndex.map({ messages[$0].canRetry }) == true:
            return (ui, retry(selectedIndex.map { messages[$0] }, chatID: chatID))
        // Issue 25, on the highlighted message: + toggles 👍, ^Y replies, ^E edits and ^D deletes
        // (the last two only our own texts; the core refuses anything else anyway).
        case .character("+") where selectedIndex.map({ messages[$0].kind == .text }) == true:
            guard let message = selectedIndex.map({ messages[$0] }) else { return (ui, []) }
            let ours = message.reactions.contains { $0.emoji == Self.quickReaction && $0.includesMe }
            return (ui, [ours
                ? .unreact(chatID: chatID, messageID: message.id, emoji: Self.quickReaction)
                : .react(chatID: chatID, messageID: message.id, emoji: Self.quickReaction)])
        case .control("y") where selectedIndex.map({ messages[$0].kind == .text }) == true:
            guard let message = selectedIndex.map({ messages[$0] }) else { return (ui, []) }
            ui.composing = .reply(message.id)
            ui.selectedMessage = nil
            return (ui, [])
        case .control("e") where selectedIndex.map({ messages[$0].canModify }) == true:
            guard let message = selectedIndex.map({ messages[$0] }) else { return (ui, []) }
            ui.composing = .edit(message.id)
            ui.draft = message.content
            ui.selectedMessage = nil
            return (ui, [])
        // Issue 28: ^O saves the highlighted message's first attachment (downloading it first).
        case .control("o") where selectedIndex.map({ !messages[$0].attachments.isEmpty }) == true:
            guard let message = selectedIndex.map({ messages[$0] }), let file = message.attachments.first else { return (ui, []) }
            ui.saveRequest = .init(chatID: chatID, messageID: message.id, index: file.index, filename: file.filename)
            return (ui, [])
        case .control("d") where selectedIndex.map({ messages[$0].canDelete }) == true:
            guard let message = selectedIndex.map({ messages[$0] }) else { return (ui, []) }
            ui.selectedMessage = nil
            return (ui, [.deleteMessage(chatID: chatID, messageID: message.id)])
        default:
            let edited = edited(ui.draft, with: key)
            if edited != ui.draft || key == .backspace {
                ui.selectedMessage = nil
                ui.chatScroll = 0
            }
            ui.draft = edited
            return (ui, [])
        }
    }

    /// The reaction `+` toggles.
    static let quickReaction = "👍"

    private static func retry(_ message: ChatMessage?, chatID: ChatID) -> [AppAction] {
        guard let message, message.canRetry else { return [] }
        return [.retryMessage(chatID: chatID, messageID: message.id)]
    }

    /// Asks the core for the next older page when it says there is one; the core picks its size.
    private static func loadOlder(_ chat: ChatViewState) -> [AppAction] {
        guard chat.canLoadOlder, !chat.isLoadingOlder else { return [] }
        return [.loadOlder(chatID: chat.chatID)]
    }
}
