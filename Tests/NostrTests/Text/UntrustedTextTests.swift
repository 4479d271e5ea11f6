import Nostr
import Testing

/// Text from the network loses terminal escapes, bidi controls and (as a line) its line breaks.
struct UntrustedTextTests {
    /// What a hostile sender writes: clear the screen, set the window title, a CSI in its C1 form,
    /// a right-to-left override (Trojan Source) and a forged second line of `marmot listen`.
    static let hostile =
        "hi\u{1B}[2J\u{1B}]0;pwned\u{07} \u{9B}31m red \u{202E}gnp.exe\u{202C}\r\nmessage  [12:00] bank: send money"

    @Test func aLineKeepsNoControlBidiOrBreak() {
        let line = UntrustedText.line(Self.hostile)
        #expect(line == "hi[2J]0;pwned 31m red gnp.exe message [12:00] bank: send money")
        #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        #expect(!line.contains("\u{202E}"))
        #expect(UntrustedText.isLine(line))
    }

    @Test func textKeepsLineBreaksAsNewlinesOnly() {
        #expect(UntrustedText.text("a\r\nb\rc\u{2028}d\te\u{1B}[0m") == "a\nb\nc\nd e[0m")
        #expect(UntrustedText.text(Self.hostile).split(separator: "\n").count == 2)
    }

    @Test func ordinaryTextAndEmojiSequencesAreKept() {
        let family = "👨‍👩‍👧 héllo 日本語 مرحبا"
        #expect(UntrustedText.line(family) == family)
        #expect(UntrustedText.text("line one\nline two 🎉") == "line one\nline two 🎉")
    }

    /// A hostile name that imitates "alice" with invisible characters (N13): zero-width space, word
    /// joiner, BOM, soft hyphen, a joiner and a non-joiner between Latin letters, a filler and tag
    /// characters spelling a hidden word. All go; emoji sequences and a Persian non-joiner stay.
    @Test func invisibleCharactersAreDroppedWhereTextDoesNotNeedThem() {
        let hostile = "a\u{200B}l\u{2060}i\u{FEFF}c\u{00AD}e\u{200D}x\u{200C}y\u{3164}\u{E0068}\u{E0069}\u{E007F}"
        #expect(UntrustedText.line(hostile) == "alicexy")
        #expect(UntrustedText.text(hostile) == "alicexy")
        #expect(UntrustedText.line("\u{200D}bob\u{200D}") == "bob")
        #expect(UntrustedText.line("a \u{200D}👍") == "a 👍")
        // Kept: a family (ZWJ between emoji), a profession with a skin tone and variation selector,
        // the flag of England (tags after U+1F3F4), and a Persian word's non-joiner.
        for kept in ["👨‍👩‍👧", "👩🏽‍💻", "🏳️‍🌈", "🏴\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}", "می\u{200C}خواهم"] {
            #expect(UntrustedText.line(kept) == kept, "\(kept.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    @Test func aLineIsCutAtItsLimitWithAnEllipsis() {
        #expect(UntrustedText.line("  abcdef  ", limit: 4) == "abc…")
        #expect(UntrustedText.line("abcd", limit: 4) == "abcd")
        #expect(UntrustedText.line(" \n\t ") == "")
    }
}
