/// A strict RFC 8259 parser over UTF-8 bytes with a nesting limit.
struct JSONParser {
    static let maxDepth = 64

    private let bytes: UnsafeBufferPointer<UInt8>
    private let validateUTF8: Bool
    private var index = 0
    private var depth = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>, validateUTF8: Bool) {
        self.bytes = bytes
        self.validateUTF8 = validateUTF8
    }

    mutating func parseDocument() throws(JSONError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw fail("trailing characters") }
        return value
    }

    private func fail(_ reason: String) -> JSONError { JSONError(reason: reason, offset: index) }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0a, 0x0d: index += 1
            default: return
            }
        }
    }

    private mutating func parseValue() throws(JSONError) -> JSONValue {
        guard index < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw fail("unexpected character")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONError) {
        let n = literal.utf8CodeUnitCount
        guard index + n <= bytes.count else { throw fail("unexpected end of input") }
        let lit = UnsafeBufferPointer(start: literal.utf8Start, count: n)
        for i in 0..<n where bytes[index + i] != lit[i] { throw fail("invalid literal") }
        index += n
    }

    private mutating func enter() throws(JSONError) {
        depth += 1
        guard depth <= Self.maxDepth else { throw fail("nesting deeper than \(Self.maxDepth)") }
    }

    private mutating func parseArray() throws(JSONError) -> JSONValue {
        try enter()
        index += 1
        var items = [JSONValue]()
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1; depth -= 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            items.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw fail("unterminated array") }
            let c = bytes[index]
            index += 1
            if c == UInt8(ascii: "]") { break }
            guard c == UInt8(ascii: ",") else { index -= 1; throw fail("expected ',' or ']'") }
        }
        depth -= 1
        return .array(items)
    }

    private mutating func parseObject() throws(JSONError) -> JSONValue {
        try enter()
        index += 1
        var members = [String: JSONValue]()
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1; depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a member name") }
            let keyOffset = index
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            guard members.updateValue(value, forKey: key) == nil else {
                throw JSONError(reason: "duplicate member \(key.debugDescription)", offset: keyOffset)
            }
            skipWhitespace()
            guard index < bytes.count else { throw fail("unterminated object") }
            let c = bytes[index]
            index += 1
            if c == UInt8(ascii: "}") { break }
            guard c == UInt8(ascii: ",") else { index -= 1; throw fail("expected ',' or '}'") }
        }
        depth -= 1
        return .object(members)
    }

    private mutating func parseNumber() throws(JSONError) -> String {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw fail("invalid number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("invalid fraction") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("invalid exponent") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    }

    @inline(__always) private func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }

    private mutating func parseString() throws(JSONError) -> String {
        index += 1  // opening quote
        var out = [UInt8]()
        var runStart = index
        while true {
            guard index < bytes.count else { throw fail("unterminated string") }
            let c = bytes[index]
            if c == UInt8(ascii: "\"") {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                index += 1
                break
            }
            if c == UInt8(ascii: "\\") {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                try parseEscape(into: &out)
                runStart = index
                continue
            }
            if c < 0x20 { throw fail("unescaped control character in string") }
            if c < 0x80 {
                index += 1
            } else if validateUTF8 {
                index = try validatedScalarEnd(from: index)
            } else {
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private mutating func parseEscape(into out: inout [UInt8]) throws(JSONError) {
        index += 1
        guard index < bytes.count else { throw fail("unterminated escape") }
        let c = bytes[index]
        index += 1
        switch c {
        case UInt8(ascii: "\""): out.append(0x22)
        case UInt8(ascii: "\\"): out.append(0x5c)
        case UInt8(ascii: "/"): out.append(0x2f)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0c)
        case UInt8(ascii: "n"): out.append(0x0a)
        case UInt8(ascii: "r"): out.append(0x0d)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4()
            if (0xd800...0xdbff).contains(scalar) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw fail("lone high surrogate")
                }
                index += 2
                let low = try parseHex4()
                guard (0xdc00...0xdfff).contains(low) else { throw fail("invalid low surrogate") }
                scalar = 0x10000 + ((scalar - 0xd800) << 10) + (low - 0xdc00)
            } else if (0xdc00...0xdfff).contains(scalar) {
                throw fail("lone low surrogate")
            }
            guard let s = Unicode.Scalar(scalar) else { throw fail("invalid unicode escape") }
            out.append(contentsOf: String(Character(s)).utf8)
        default:
            index -= 1
            throw fail("invalid escape")
        }
    }

    private mutating func parseHex4() throws(JSONError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("truncated \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[index]
            let d: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c - UInt8(ascii: "A") + 10)
            default: throw fail("invalid hex digit in \\u escape")
            }
            v = v << 4 | d
            index += 1
        }
        return v
    }

    /// Validates one multi-byte UTF-8 scalar starting at `i` (RFC 3629: no overlongs, no surrogates).
    private func validatedScalarEnd(from i: Int) throws(JSONError) -> Int {
        let b0 = bytes[i]
        let length: Int
        var lowerBound: UInt8 = 0x80, upperBound: UInt8 = 0xbf
        switch b0 {
        case 0xc2...0xdf: length = 2
        case 0xe0: length = 3; lowerBound = 0xa0
        case 0xe1...0xec, 0xee...0xef: length = 3
        case 0xed: length = 3; upperBound = 0x9f
        case 0xf0: length = 4; lowerBound = 0x90
        case 0xf1...0xf3: length = 4
        case 0xf4: length = 4; upperBound = 0x8f
        default: throw JSONError(reason: "invalid UTF-8", offset: i)
        }
        guard i + length <= bytes.count else { throw JSONError(reason: "truncated UTF-8", offset: i) }
        let b1 = bytes[i + 1]
        guard b1 >= lowerBound, b1 <= upperBound else { throw JSONError(reason: "invalid UTF-8", offset: i) }
        for k in 2..<max(2, length) where bytes[i + k] & 0xc0 != 0x80 {
            throw JSONError(reason: "invalid UTF-8", offset: i)
        }
        return i + length
    }
}
