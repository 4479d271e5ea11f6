/// How a run of text looks: SGR attributes (ECMA-48 §8.3.117) the terminal UI uses.
struct TextStyle: Sendable, Equatable {
    enum Color: UInt8, Sendable {
        case red = 31, green = 32, yellow = 33, blue = 34, magenta = 35, cyan = 36
    }

    var bold = false
    var dim = false
    var reverse = false
    var foreground: Color?

    static let plain = TextStyle()
    static let bold = TextStyle(bold: true)
    static let dim = TextStyle(dim: true)
    static let reverse = TextStyle(reverse: true)

    static func color(_ color: Color, bold: Bool = false) -> TextStyle {
        TextStyle(bold: bold, foreground: color)
    }

    /// The SGR sequence selecting this style from the default one.
    var sgr: String {
        var codes = ["0"]
        if bold { codes.append("1") }
        if dim { codes.append("2") }
        if reverse { codes.append("7") }
        if let foreground { codes.append(String(foreground.rawValue)) }
        return "\u{1B}[" + codes.joined(separator: ";") + "m"
    }
}

/// A run of sanitized text in one style.
struct Span: Sendable, Equatable {
    var text: String
    var style: TextStyle

    init(_ text: String, _ style: TextStyle = .plain) {
        self.text = text
        self.style = style
    }
}

/// One screen row: spans that together fit the frame's width.
struct StyledLine: Sendable, Equatable {
    var spans: [Span] = []

    init(_ spans: [Span] = []) { self.spans = spans }
    init(_ text: String, _ style: TextStyle = .plain) { self.spans = [Span(text, style)] }

    static let blank = StyledLine()

    /// The text without styling, as a terminal would show it.
    var text: String { spans.map(\.text).joined() }

    /// Cells the line occupies.
    var width: Int { spans.reduce(0) { $0 + TextWidth.of($1.text) } }

    /// The line cut to `width` cells (with "…" where cut), keeping the styles of what remains.
    func clipped(to width: Int) -> StyledLine {
        guard self.width > width else { return self }
        var result: [Span] = []
        var remaining = width
        for span in spans {
            let cells = TextWidth.of(span.text)
            if cells < remaining {
                result.append(span)
                remaining -= cells
                continue
            }
            result.append(Span(TextWidth.truncated(span.text, to: remaining), span.style))
            break
        }
        return StyledLine(result)
    }

    /// The line padded with `style` spaces to exactly `width` cells (clipped first when longer).
    func filled(to width: Int, style: TextStyle = .plain) -> StyledLine {
        let line = clipped(to: width)
        let missing = width - line.width
        guard missing > 0 else { return line }
        return StyledLine(line.spans + [Span(String(repeating: " ", count: missing), style)])
    }

    /// `left` at the start and `right` flush with the right edge of `width`; the left part is cut
    /// first when both do not fit.
    static func justified(_ left: [Span], _ right: [Span], width: Int, fill: TextStyle = .plain) -> StyledLine {
        let rightLine = StyledLine(right).clipped(to: width)
        let leftWidth = max(0, width - rightLine.width - (right.isEmpty ? 0 : 1))
        let leftLine = StyledLine(left).clipped(to: leftWidth)
        let gap = width - leftLine.width - rightLine.width
        return StyledLine(leftLine.spans + [Span(String(repeating: " ", count: max(gap, 0)), fill)] + rightLine.spans)
    }

    /// The line indented so that it ends at the right edge of `width`.
    func rightAligned(in width: Int, margin: Int = 0) -> StyledLine {
        let line = clipped(to: max(width - margin, 0))
        let indent = max(width - margin - line.width, 0)
        return StyledLine([Span(String(repeating: " ", count: indent))] + line.spans)
    }

    /// The line centred in `width`.
    func centered(in width: Int) -> StyledLine {
        let line = clipped(to: width)
        let indent = max((width - line.width) / 2, 0)
        return StyledLine([Span(String(repeating: " ", count: indent))] + line.spans)
    }

    /// The line as terminal output: styled runs, then the default style again.
    var ansi: String {
        var output = ""
        for span in spans where !span.text.isEmpty {
            output += span.style == .plain ? "\u{1B}[0m" : span.style.sgr
            output += span.text
        }
        return output + "\u{1B}[0m"
    }
}

/// What the terminal shows: exactly `rows` lines, none wider than `columns`.
struct Frame: Sendable, Equatable {
    let size: TerminalSize
    let lines: [StyledLine]

    init(size: TerminalSize, lines: [StyledLine]) {
        self.size = size
        var fitted = lines.prefix(size.rows).map { $0.clipped(to: size.columns) }
        while fitted.count < size.rows { fitted.append(.blank) }
        self.lines = fitted
    }

    /// The lines as plain text, for tests and logs.
    var text: [String] { lines.map(\.text) }
}

/// A terminal's size in character cells.
struct TerminalSize: Sendable, Equatable {
    var columns: Int
    var rows: Int

    static let standard = TerminalSize(columns: 80, rows: 24)
}
