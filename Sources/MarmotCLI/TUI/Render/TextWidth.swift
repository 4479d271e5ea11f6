/// Terminal cell widths of text, and making untrusted text safe to print.
///
/// Widths follow the common wcwidth rules closely enough for chat text: East Asian wide and full-width
/// characters and emoji shown as pictures take two cells, everything else one. Message content comes
/// from peers, so every string is passed through `sanitized` before it reaches the terminal: a control
/// character in it could otherwise move the cursor, change colours or retitle the window.
enum TextWidth {
    /// Cells `character` occupies.
    static func of(_ character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        if character.unicodeScalars.contains(where: { $0.value == 0xFE0F }) { return 2 }
        if first.properties.isEmojiPresentation { return 2 }
        return isWide(first.value) ? 2 : 1
    }

    /// Cells `text` occupies on one line.
    static func of(_ text: some StringProtocol) -> Int {
        text.reduce(0) { $0 + of($1) }
    }

    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
            0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
            0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            true
        default:
            false
        }
    }

    /// `text` with every character that could act on the terminal replaced by U+FFFD: C0 and C1
    /// controls (line breaks included; callers split lines first), DEL, and the bidirectional overrides
    /// that can make text display in an order other than the one it has.
    static func sanitized(_ text: some StringProtocol) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            if character == "\t" {
                result += "    "
            } else if character.unicodeScalars.contains(where: isUnsafe) {
                result.append("\u{FFFD}")
            } else {
                result.append(character)
            }
        }
        return result
    }

    private static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// The longest prefix of `text` that fits in `width` cells, with "…" in the last cell when cut.
    static func truncated(_ text: String, to width: Int) -> String {
        guard width > 0 else { return "" }
        guard of(text) > width else { return text }
        var result = ""
        var used = 0
        for character in text {
            let cells = of(character)
            if used + cells > width - 1 { break }
            result.append(character)
            used += cells
        }
        return result + "…"
    }

    /// The longest suffix of `text` that fits in `width` cells, for input fields that show their end.
    static func tail(_ text: String, fitting width: Int) -> String {
        guard width > 0 else { return "" }
        var result: [Character] = []
        var used = 0
        for character in text.reversed() {
            let cells = of(character)
            if used + cells > width { break }
            result.append(character)
            used += cells
        }
        return String(result.reversed())
    }

    /// `text` split into lines of at most `width` cells: its own line breaks are kept, lines break
    /// between words where possible, and a word longer than a line is cut.
    static func wrapped(_ text: String, width: Int) -> [String] {
        let width = max(width, 1)
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let clean = sanitized(paragraph.hasSuffix("\r") ? paragraph.dropLast() : paragraph[...])
            lines += wrapParagraph(clean, width: width)
        }
        return lines
    }

    private static func wrapParagraph(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        var lineWidth = 0
        for word in words(text) {
            let wordWidth = of(word)
            if lineWidth + wordWidth <= width {
                line += word
                lineWidth += wordWidth
                continue
            }
            if word.allSatisfy({ $0 == " " }) {
                // Spaces at a break are dropped rather than starting the next line.
                lines.append(line)
                line = ""
                lineWidth = 0
                continue
            }
            if !line.isEmpty {
                lines.append(trimmedTrailing(line))
                line = ""
                lineWidth = 0
            }
            for character in word {
                let cells = of(character)
                if lineWidth + cells > width, !line.isEmpty {
                    lines.append(line)
                    line = ""
                    lineWidth = 0
                }
                line.append(character)
                lineWidth += cells
            }
        }
        lines.append(trimmedTrailing(line))
        return lines
    }

    /// Runs of spaces and runs of other characters, in order.
    private static func words(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        var currentIsSpace = false
        for character in text {
            let isSpace = character == " "
            if !current.isEmpty, isSpace != currentIsSpace {
                words.append(current)
                current = ""
            }
            current.append(character)
            currentIsSpace = isSpace
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    private static func trimmedTrailing(_ line: String) -> String {
        var line = line
        while line.last == " " { line.removeLast() }
        return line
    }
}
