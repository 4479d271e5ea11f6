/// One key press as the terminal UI understands it, decoded from the bytes a terminal sends.
enum Key: Sendable, Equatable {
    /// A printable character (already decoded from UTF-8).
    case character(Character)
    /// Ctrl plus a letter, lower-case (`.control("c")` is Ctrl-C); Enter, Tab and Backspace have their own cases.
    case control(Character)
    /// Alt (or Esc) followed by a printable character.
    case alt(Character)
    case enter
    case escape
    case backspace
    case delete
    case tab
    case backTab
    case up
    case down
    case left
    case right
    case home
    case end
    case pageUp
    case pageDown
    /// A sequence that was recognised as one key but means nothing here (F-keys, mouse reports, …).
    case unknown
}
