/// A parsed JSON value, as used for Nostr wire messages.
///
/// Numbers keep their literal text so integers (timestamps, kinds) are read exactly, never through a
/// `Double`. Objects with duplicate keys are rejected by the parser because they make events ambiguous.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// The number's literal text as it appeared in the input (RFC 8259 number grammar).
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The string payload, or nil.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The array payload, or nil.
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The object payload, or nil.
    public var objectValue: [String: JSONValue]? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The boolean payload, or nil.
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The value as an integer when it is a number literal without fraction or exponent that fits `Int64`.
    public var int64Value: Int64? {
        guard case .number(let text) = self else { return nil }
        guard !text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) else {
            return nil
        }
        return Int64(text)
    }

    /// Parses JSON text.
    public static func parse(_ text: String) throws(JSONError) -> JSONValue {
        var text = text
        let result = text.withUTF8 { buffer in
            var parser = JSONParser(buffer, validateUTF8: false)
            return Result { () throws(JSONError) in try parser.parseDocument() }
        }
        return try result.get()
    }

    /// Parses JSON from UTF-8 bytes; invalid UTF-8 is rejected.
    public static func parse<Bytes: Collection>(utf8 bytes: Bytes) throws(JSONError) -> JSONValue where Bytes.Element == UInt8 {
        let array = Array(bytes)
        let result = array.withUnsafeBufferPointer { buffer in
            var parser = JSONParser(buffer, validateUTF8: true)
            return Result { () throws(JSONError) in try parser.parseDocument() }
        }
        return try result.get()
    }

    /// Compact JSON text for this value (object keys sorted, strings escaped as NIP-01 prescribes).
    public var jsonString: String {
        var writer = JSONWriter()
        writer.value(self)
        return writer.string
    }
}

/// Why JSON text could not be parsed; `offset` is the byte offset into the UTF-8 input.
public struct JSONError: Error, Sendable, Equatable, CustomStringConvertible {
    public let reason: String
    public let offset: Int

    public var description: String { "invalid JSON at byte \(offset): \(reason)" }
}

extension JSONValue: Codable {
    /// Decodes any JSON value through `Codable` (numbers via `Int64`, else `Double`).
    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? c.decode(Int64.self) {
            self = .number(String(i))
        } else if let d = try? c.decode(Double.self) {
            self = .number(String(d))
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([JSONValue].self) {
            self = .array(a)
        } else {
            self = .object(try c.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .number(let text):
            if let i = Int64(text) { try c.encode(i) } else { try c.encode(Double(text) ?? 0) }
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }
}
