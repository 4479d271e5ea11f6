/// Text from the network made safe to print: no terminal escapes, no bidi tricks, no stray lines.
///
/// Anything a relay, a peer or a group's admin wrote (names, messages, relay reasons) may carry C0/C1
/// control characters (ESC sequences that move the cursor, set the window title or hide text), bidi
/// overrides that show text in another order than it is (Trojan Source, CVE-2021-42574), or line
/// breaks that forge a line of `marmot listen`. Both forms drop control characters and bidi controls;
/// `line` also folds every line break into one space, `text` keeps line breaks as `\n` only. Joiners
/// (U+200D, used by emoji sequences) and ordinary text are kept as they are.
public enum UntrustedText {
    /// One line: controls and bidi controls dropped, whitespace runs (line breaks too) one space,
    /// trimmed, and at most `limit` characters with a trailing "…" when cut.
    public static func line(_ raw: some StringProtocol, limit: Int? = nil) -> String {
        var out = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in raw.unicodeScalars {
            if isBreakOrSpace(scalar) {
                pendingSpace = !out.isEmpty
            } else if !isDropped(scalar) {
                if pendingSpace { out.append(" ") }
                pendingSpace = false
                out.append(scalar)
            }
        }
        let text = String(out)
        guard let limit, limit > 0, text.count > limit else { return text }
        return String(text.prefix(limit - 1)) + "…"
    }

    /// Several lines: controls and bidi controls dropped, every line break (CR LF, CR, U+2028,
    /// U+2029, …) a `\n`, tabs and other spaces one space each.
    public static func text(_ raw: some StringProtocol) -> String {
        var out = String.UnicodeScalarView()
        var previous: Unicode.Scalar?
        for scalar in raw.unicodeScalars {
            defer { previous = scalar }
            if isLineBreak(scalar) {
                if scalar == "\n", previous == "\r" { continue }
                out.append("\n")
            } else if scalar.properties.isWhitespace {
                out.append(" ")
            } else if !isDropped(scalar) {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// Whether `raw` is already what `line` makes of it (no limit).
    public static func isLine(_ raw: String) -> Bool { line(raw) == raw }

    private static func isLineBreak(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x0B, 0x0C, 0x0D, 0x85, 0x2028, 0x2029: true
        default: false
        }
    }

    private static func isBreakOrSpace(_ scalar: Unicode.Scalar) -> Bool {
        isLineBreak(scalar) || scalar.properties.isWhitespace
    }

    /// C0 and C1 controls and DEL, bidi embeddings, overrides, isolates and marks.
    private static func isDropped(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
