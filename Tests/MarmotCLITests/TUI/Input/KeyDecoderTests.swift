import Testing

@testable import MarmotCLI

struct KeyDecoderTests {
    private func keys(_ bytes: [UInt8], atEnd: Bool = true) -> [Key] {
        KeyDecoder.decode(bytes, atEnd: atEnd).keys
    }

    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test(arguments: [
        ("\u{1B}[A", Key.up), ("\u{1B}[B", .down), ("\u{1B}[C", .right), ("\u{1B}[D", .left),
        ("\u{1B}OA", .up), ("\u{1B}OB", .down), ("\u{1B}[H", .home), ("\u{1B}[F", .end), ("\u{1B}OH", .home),
        ("\u{1B}[1~", .home), ("\u{1B}[4~", .end), ("\u{1B}[5~", .pageUp), ("\u{1B}[6~", .pageDown),
        ("\u{1B}[3~", .delete), ("\u{1B}[Z", .backTab), ("\u{1B}[1;5A", .up), ("\u{1B}[5;2~", .pageUp),
        ("\u{1B}[15~", .unknown), ("\u{1B}[<0;3;4M", .unknown),
    ])
    func escapeSequences(sequence: String, key: Key) {
        #expect(keys(bytes(sequence)) == [key])
    }

    @Test func controlBytes() {
        #expect(keys([0x0D, 0x0A, 0x7F, 0x08, 0x09, 0x03, 0x15, 0x12]) == [
            .enter, .enter, .backspace, .backspace, .tab, .control("c"), .control("u"), .control("r"),
        ])
    }

    @Test func textIncludingMultibyteUTF8() {
        #expect(keys(bytes("hé€😀")) == [.character("h"), .character("é"), .character("€"), .character("😀")])
    }

    @Test func loneEscapeWaitsForMoreUntilTheInputPauses() {
        let early = KeyDecoder.decode([0x1B], atEnd: false)
        #expect(early.keys.isEmpty)
        #expect(early.rest == [0x1B])
        #expect(keys([0x1B], atEnd: true) == [.escape])
    }

    @Test func sequenceSplitAcrossReadsIsKeptUntilComplete() {
        let first = KeyDecoder.decode(bytes("a\u{1B}["), atEnd: false)
        #expect(first.keys == [.character("a")])
        #expect(first.rest == bytes("\u{1B}["))
        #expect(keys(first.rest + bytes("B"), atEnd: false) == [.down])
    }

    @Test func utf8SplitAcrossReadsIsKeptUntilComplete() {
        let euro = bytes("€")
        let first = KeyDecoder.decode(Array(euro.prefix(2)), atEnd: false)
        #expect(first.keys.isEmpty)
        #expect(keys(first.rest + euro.suffix(1), atEnd: false) == [.character("€")])
    }

    @Test func escapeThenCharacterIsAlt() {
        #expect(keys(bytes("\u{1B}x")) == [.alt("x")])
    }

    @Test func twoEscapesAreTwoEscapeKeys() {
        #expect(keys([0x1B, 0x1B]) == [.escape, .escape])
    }

    @Test func cutSequenceAtEndIsEscapeThenText() {
        #expect(keys(bytes("\u{1B}[1;"), atEnd: true) == [.escape, .character("["), .character("1"), .character(";")])
    }

    @Test func invalidBytesAreDroppedNotCrashing() {
        #expect(keys([0xFF, 0x61, 0xC3, 0x28, 0x80]) == [.character("a"), .character("(")])
        // Overlong forms and surrogates are not text either.
        #expect(keys([0xC0, 0xAF, 0xE0, 0x80, 0xAF, 0xED, 0xA0, 0x80, 0x63]) == [.character("c")])
        // C1 controls encoded in UTF-8 are not text.
        #expect(keys([0xC2, 0x9B, 0x62]) == [.character("b")])
    }

    @Test func severalKeysInOneRead() {
        #expect(keys(bytes("n\u{1B}[Ab\r")) == [.character("n"), .up, .character("b"), .enter])
    }
}
