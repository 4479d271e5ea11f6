/// Where things go on screen: a title bar, the screen's body, then a notice line (toast, busy or a
/// question), the caller's status line and a line of keys.
struct TUILayout: Equatable {
    let size: TerminalSize

    /// The smallest terminal the screens are drawn in; below it only a "too small" note is shown.
    static let minimum = TerminalSize(columns: 24, rows: 8)

    /// The narrowest terminal that still shows small badges (a chat's protocol): below it the row's
    /// name and the header's title keep the room.
    static let badgeMinimumWidth = 48

    var isTooSmall: Bool { size.columns < Self.minimum.columns || size.rows < Self.minimum.rows }
    var width: Int { size.columns }

    /// Rows between the title bar and the notice line.
    var bodyRows: Int { max(size.rows - 4, 0) }
    /// Rows of the chat transcript: the body less the separator and the input line.
    var transcriptRows: Int { max(bodyRows - 2, 1) }

    /// Rows a page key moves in the chat: the transcript less two lines of context.
    var pageRows: Int { max(transcriptRows - 2, 1) }
}
