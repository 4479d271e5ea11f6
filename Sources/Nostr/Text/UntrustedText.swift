/// Text from the network made safe to print: no terminal escapes, no bidi tricks, no stray lines.
///
/// Anything a relay, a peer or a group's admin wrote (names, messages, relay reasons) may carry C0/C1
/// control characters (ESC sequences that move the cursor, set the window title or hide text), bidi
/// overrides that show text in another order than it is (Trojan Source, CVE-2021-42574), or line
/// breaks that forge a line of `marmot listen`. Both forms drop control characters and bidi controls;
/// `line` also folds every line break into one space, `text` keeps line breaks as `\n` only.
///
/// Invisible characters are dropped too, so a name cannot imitate another one or hide text (surface
/// review 2026-12-01, N13): zero-width space U+200B, word joiner and invisible operators
/// U+2060–U+2064, U+FEFF, soft hyphen U+00AD, fillers (U+115F, U+1160, U+3164, U+FFA0, U+180E).
/// Three are kept only where text needs them: a zero-width joiner U+200D between emoji (family,
/// profession and flag sequences, UTS #51 §2.3), a zero-width non-joiner U+200C between two letters
/// of a non-Latin script (Persian and Indic spelling), and tag characters U+E0020–U+E007F only in a
/// tag sequence after U+1F3F4 (subdivision flags, UTS #51 §2.8); anywhere else they go.
public enum UntrustedText {
    /// One line: controls and bidi controls dropped, whitespace runs (line breaks too) one space,
    /// trimmed, and at most `limit` characters with a trailing "…" when cut.
    public static func line(_ raw: some StringProtocol, limit: Int? = nil) -> String {
        var out = String.UnicodeScalarView()
        var pendingSpace = false
        let scalars = Array(raw.unicodeScalars)
        for (index, scalar) in scalars.enumerated() {
            if isBreakOrSpace(scalar) {
                pendingSpace = !out.isEmpty
            } else if !isDropped(scalar) && !isInvisible(scalar, after: pendingSpace ? nil : out.last, next: next(scalars, index)) {
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
        let scalars = Array(raw.unicodeScalars)
        for (index, scalar) in scalars.enumerated() {
            defer { previous = scalar }
            if isLineBreak(scalar) {
                if scalar == "\n", previous == "\r" { continue }
                out.append("\n")
            } else if scalar.properties.isWhitespace {
                out.append(" ")
            } else if !isDropped(scalar) && !isInvisible(scalar, after: out.last, next: next(scalars, index)) {
                out.append(scalar)
            }
        }
        return String(out)
    }

    private static func next(_ scalars: [Unicode.Scalar], _ index: Int) -> Unicode.Scalar? {
        index + 1 < scalars.count ? scalars[index + 1] : nil
    }

    /// Whether `scalar` is an invisible character to drop, given the scalar kept before it and the
    /// one that follows (the joiners and tags kept where text needs them; see the type's comment).
    private static func isInvisible(_ scalar: Unicode.Scalar, after previous: Unicode.Scalar?, next: Unicode.Scalar?) -> Bool {
        switch scalar.value {
        case 0x200B, 0x2060...0x2064, 0xFEFF, 0x00AD, 0x115F, 0x1160, 0x3164, 0xFFA0, 0x180E: return true
        case 0x200D:
            guard let previous, let next else { return true }
            let before = isEmojiPart(previous) || previous.value == 0xFE0F || previous.properties.isEmojiModifier
            return !(before && isEmojiPart(next))
        case 0x200C:
            guard let previous, let next else { return true }
            return !(isScriptLetter(previous) && isScriptLetter(next))
        case 0xE0000...0xE007F:
            guard scalar.value >= 0xE0020, let previous else { return true }
            return !(previous.value == 0x1F3F4 || (0xE0020...0xE007E).contains(previous.value))
        default: return false
        }
    }

    /// An emoji that a joiner may link (not the ASCII digits, `#` and `*` that count as emoji).
    private static func isEmojiPart(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value > 0x7F && scalar.properties.isEmoji
    }

    /// A letter of a script other than Latin (or a combining mark on one).
    private static func isScriptLetter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value > 0x24F && (scalar.properties.isAlphabetic || scalar.properties.generalCategory == .nonspacingMark)
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
