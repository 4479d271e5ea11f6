/// Builds compact JSON text byte by byte.
///
/// Strings are escaped exactly as NIP-01 prescribes for the event-id preimage: `\n`, `"`, `\\`, `\r`,
/// `\t`, `\b`, `\f` use their short escapes, other U+0000–U+001F become `\u00XX`, and everything else
/// (including `/` and non-ASCII) is written verbatim as UTF-8. Using the same escaping for every output
/// keeps one code path and is still valid RFC 8259 JSON.
public struct JSONWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8] = []

    public init() {}

    /// The text written so far.
    public var string: String { String(decoding: bytes, as: UTF8.self) }

    /// Appends raw JSON text (the caller guarantees it is valid JSON).
    public mutating func raw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends a single structural byte such as `[`, `,` or `:`.
    public mutating func byte(_ c: UInt8) { bytes.append(c) }

    /// Appends a JSON string literal with NIP-01 escaping.
    public mutating func string(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { buffer in
            var runStart = 0
            for i in 0..<buffer.count {
                let c = buffer[i]
                guard c < 0x20 || c == 0x22 || c == 0x5c else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[runStart..<i]))
                runStart = i + 1
                switch c {
                case 0x0a: bytes.append(0x5c); bytes.append(UInt8(ascii: "n"))
                case 0x22: bytes.append(0x5c); bytes.append(0x22)
                case 0x5c: bytes.append(0x5c); bytes.append(0x5c)
                case 0x0d: bytes.append(0x5c); bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(0x5c); bytes.append(UInt8(ascii: "t"))
                case 0x08: bytes.append(0x5c); bytes.append(UInt8(ascii: "b"))
                case 0x0c: bytes.append(0x5c); bytes.append(UInt8(ascii: "f"))
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: Array("\\u00".utf8))
                    bytes.append(hex[Int(c >> 4)])
                    bytes.append(hex[Int(c & 0x0f)])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[runStart...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends a decimal integer.
    public mutating func integer<I: BinaryInteger>(_ value: I) {
        bytes.append(contentsOf: String(value).utf8)
    }

    /// Appends `true` or `false`.
    public mutating func bool(_ value: Bool) {
        if value { raw("true") } else { raw("false") }
    }

    /// Appends an array of strings.
    public mutating func stringArray<S: Sequence>(_ values: S) where S.Element == String {
        byte(UInt8(ascii: "["))
        var first = true
        for v in values {
            if !first { byte(UInt8(ascii: ",")) }
            first = false
            string(v)
        }
        byte(UInt8(ascii: "]"))
    }

    /// Appends `"key":` inside an object, preceded by a comma unless `first`.
    public mutating func key(_ name: String, first: inout Bool) {
        if !first { byte(UInt8(ascii: ",")) }
        first = false
        string(name)
        byte(UInt8(ascii: ":"))
    }

    /// Appends a generic value; object keys are sorted so output is deterministic.
    public mutating func value(_ value: JSONValue) {
        switch value {
        case .null: raw("null")
        case .bool(let b): bool(b)
        case .number(let text): bytes.append(contentsOf: text.utf8)
        case .string(let s): string(s)
        case .array(let items):
            byte(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { byte(UInt8(ascii: ",")) }
                self.value(item)
            }
            byte(UInt8(ascii: "]"))
        case .object(let members):
            byte(UInt8(ascii: "{"))
            var first = true
            for (k, v) in members.sorted(by: { $0.key < $1.key }) {
                key(k, first: &first)
                self.value(v)
            }
            byte(UInt8(ascii: "}"))
        }
    }
}
