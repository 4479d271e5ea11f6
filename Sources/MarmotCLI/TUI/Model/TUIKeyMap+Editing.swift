/// Single-line text fields (nsec, npub, message draft).
extension TUIKeyMap {
    /// `text` after a key typed into a single-line field: characters append, Backspace deletes the
    /// last character, Ctrl-U clears, Ctrl-W deletes the last word; other keys change nothing.
    static func edited(_ text: String, with key: Key) -> String {
        var text = text
        switch key {
        case .character(let character): text.append(character)
        case .backspace: if !text.isEmpty { text.removeLast() }
        case .control("u"): text = ""
        case .control("w"):
            while text.last == " " { text.removeLast() }
            while let last = text.last, last != " " { text.removeLast() }
        default: break
        }
        return text
    }

    /// What a key does to a one-line prompt (add a relay, add a member, rename).
    enum PromptStep: Equatable {
        /// Esc: the prompt closes without an action.
        case cancelled
        /// Enter: the prompt closes with its text.
        case submitted(String)
        /// Any other key: the text as edited.
        case editing(String)
    }

    static func promptStep(_ key: Key, input: String) -> PromptStep {
        switch key {
        case .escape: .cancelled
        case .enter: .submitted(input)
        default: .editing(edited(input, with: key))
        }
    }
}
