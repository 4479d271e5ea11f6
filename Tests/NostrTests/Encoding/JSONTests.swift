import Testing
@testable import Nostr

@Suite("JSON parser and writer")
struct JSONTests {
    @Test func parsesValues() throws {
        let v = try JSONValue.parse(#" {"a": [1, -2.5e3, true, false, null, "x\u00e9\ud83d\ude00\n"], "b": {}} "#)
        let a = try #require(v.objectValue?["a"]?.arrayValue)
        #expect(a[0].int64Value == 1)
        #expect(a[1] == .number("-2.5e3"))
        #expect(a[1].int64Value == nil)
        #expect(a[2] == .bool(true) && a[3] == .bool(false) && a[4] == .null)
        #expect(a[5].stringValue == "xé😀\n")
    }

    @Test(arguments: [
        "", "[", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "[01]", "[1.]", "[.5]", "[+1]", "[1e]", "tru", "nul",
        "\"abc", "\"\\x\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\u12\"", "[1] x", "{\"a\":1,\"a\":2}",
        "\"tab\there\"", "[\"a\"\"b\"]", "{1:2}",
    ])
    func rejectsMalformed(_ text: String) {
        #expect(throws: JSONError.self) { try JSONValue.parse(text) }
    }

    @Test func rejectsDeepNesting() {
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(throws: JSONError.self) { try JSONValue.parse(deep) }
        let ok = String(repeating: "[", count: 10) + String(repeating: "]", count: 10)
        #expect(throws: Never.self) { try JSONValue.parse(ok) }
    }

    @Test func rejectsInvalidUTF8Bytes() throws {
        for bad: [UInt8] in [[0x22, 0xff, 0x22], [0x22, 0xc0, 0xaf, 0x22], [0x22, 0xed, 0xa0, 0x80, 0x22], [0x22, 0xe2, 0x82, 0x22]] {
            #expect(throws: JSONError.self) { try JSONValue.parse(utf8: bad) }
        }
        #expect(try JSONValue.parse(utf8: Array("\"€😀\"".utf8)) == .string("€😀"))
    }

    @Test func writerEscapesPerNIP01() {
        var w = JSONWriter()
        w.string("a\n\"\\\r\t\u{8}\u{c}\u{0}\u{1f}\u{7f}/é😀\u{2028}")
        #expect(w.string == #""a\n\"\\\r\t\b\f\u0000\u001f"# + "\u{7f}/é😀\u{2028}\"")
    }

    @Test func int64Bounds() throws {
        #expect(try JSONValue.parse("9223372036854775807").int64Value == Int64.max)
        #expect(try JSONValue.parse("9223372036854775808").int64Value == nil)
        #expect(try JSONValue.parse("-0").int64Value == 0)
    }
}
