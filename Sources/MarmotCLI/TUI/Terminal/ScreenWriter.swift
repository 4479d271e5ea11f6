/// Turns successive frames into terminal output, rewriting only the rows that changed.
///
/// After `invalidate()` (start, resize, Ctrl-L) the next frame clears the screen and draws every row.
struct ScreenWriter {
    private var shown: Frame?

    mutating func invalidate() { shown = nil }

    /// The output that takes the screen from the last frame to `frame`; empty when nothing changed.
    mutating func output(for frame: Frame) -> String {
        var output = ""
        let previous = shown?.size == frame.size ? shown : nil
        if previous == nil { output += "\u{1B}[0m\u{1B}[2J" }
        for (row, line) in frame.lines.enumerated() where previous?.lines[row] != line {
            output += "\u{1B}[\(row + 1);1H" + line.ansi + "\u{1B}[K"
        }
        shown = frame
        return output
    }
}
