import Testing

@testable import MarmotCLI

struct TextWidthTests {
    @Test func widths() {
        #expect(TextWidth.of("abc") == 3)
        #expect(TextWidth.of("日本") == 4)
        #expect(TextWidth.of("😀") == 2)
        #expect(TextWidth.of("é") == 1)
    }

    @Test func wrapsAtWordsAndCutsLongWords() {
        #expect(TextWidth.wrapped("the quick brown fox", width: 10) == ["the quick", "brown fox"])
        #expect(TextWidth.wrapped("abcdefghij", width: 4) == ["abcd", "efgh", "ij"])
        #expect(TextWidth.wrapped("one\ntwo", width: 10) == ["one", "two"])
        #expect(TextWidth.wrapped("", width: 10) == [""])
    }

    @Test func wrappedLinesNeverExceedTheWidth() {
        let text = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, 日本語のテキスト 😀😀😀 supercalifragilistic"
        for width in [2, 3, 5, 9, 17, 40] {
            for line in TextWidth.wrapped(text, width: width) {
                #expect(TextWidth.of(line) <= width, "width \(width): \(line)")
            }
        }
    }

    @Test func controlCharactersAndBidiOverridesAreNeutralised() {
        let hostile = "hi\u{1B}]0;pwned\u{07}\u{1B}[2J\u{9B}31m\u{202E}evil\u{7F}"
        let clean = TextWidth.sanitized(hostile)
        #expect(!clean.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        #expect(!clean.contains("\u{202E}"))
        #expect(clean.hasPrefix("hi\u{FFFD}]0;pwned"))
    }

    @Test func truncationAndTail() {
        #expect(TextWidth.truncated("abcdef", to: 4) == "abc…")
        #expect(TextWidth.truncated("abc", to: 4) == "abc")
        #expect(TextWidth.tail("abcdef", fitting: 3) == "def")
    }
}
