import Foundation

/// Errors from decoding TLS-presentation-language bytes (RFC 9420 §2.1).
public enum TLSDecodingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The input ended before `needed` more bytes could be read.
    case truncated(needed: Int, available: Int)
    /// Bytes remained after the value was fully decoded.
    case trailingBytes(Int)
    /// A variable-length header used the reserved `11` prefix (8-byte form), which MLS forbids.
    case invalidVarintPrefix
    /// A variable-length header was not the minimal encoding of its value.
    case nonMinimalVarint
    /// An `optional<T>` presence byte was neither 0 nor 1.
    case invalidOptionalPresence(UInt8)
    /// A value is syntactically valid but not allowed here (unknown enum value, wrong size, …).
    case invalidValue(String)

    public var description: String {
        switch self {
        case .truncated(let needed, let available): "truncated input: needed \(needed) bytes, \(available) left"
        case .trailingBytes(let n): "\(n) trailing bytes after the value"
        case .invalidVarintPrefix: "variable-length header uses the reserved 8-byte form"
        case .nonMinimalVarint: "variable-length header is not minimally encoded"
        case .invalidOptionalPresence(let b): "optional presence byte \(b) is neither 0 nor 1"
        case .invalidValue(let what): "invalid value: \(what)"
        }
    }
}

/// Reads TLS-presentation-language values from a byte buffer, strictly (RFC 9420 §2.1).
public struct TLSReader: Sendable {
    private let bytes: [UInt8]
    private var index: Int
    private let end: Int

    public init<D: DataProtocol>(_ data: D) {
        bytes = Array(data)
        index = 0
        end = bytes.count
    }

    private init(bytes: [UInt8], index: Int, end: Int) {
        self.bytes = bytes
        self.index = index
        self.end = end
    }

    /// Bytes not yet consumed.
    public var remaining: Int { end - index }
    /// True when every byte was consumed.
    public var isAtEnd: Bool { index == end }

    /// How many bytes were consumed so far, to mark where a value starts (`consumed(since:)`).
    public var position: Int { index }

    /// The bytes consumed since `start`, a `position` read earlier: the exact encoding of what was
    /// read in between.
    public func consumed(since start: Int) -> [UInt8] { Array(bytes[start..<index]) }

    /// Fails unless every byte was consumed.
    public func finish() throws {
        if index != end { throw TLSDecodingError.trailingBytes(end - index) }
    }

    private mutating func take(_ count: Int) throws -> ArraySlice<UInt8> {
        guard count >= 0, count <= end - index else {
            throw TLSDecodingError.truncated(needed: count, available: end - index)
        }
        defer { index += count }
        return bytes[index..<(index + count)]
    }

    public mutating func readUInt8() throws -> UInt8 {
        guard let byte = try take(1).first else { throw TLSDecodingError.truncated(needed: 1, available: 0) }
        return byte
    }

    public mutating func readUInt16() throws -> UInt16 {
        try take(2).reduce(0) { $0 << 8 | UInt16($1) }
    }

    public mutating func readUInt32() throws -> UInt32 {
        try take(4).reduce(0) { $0 << 8 | UInt32($1) }
    }

    public mutating func readUInt64() throws -> UInt64 {
        try take(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// Reads `count` bytes with no length prefix.
    public mutating func readFixed(_ count: Int) throws -> Data { Data(try take(count)) }

    /// Reads a §2.1.2 variable-length header; rejects the 8-byte form and non-minimal encodings.
    public mutating func readVarint() throws -> Int {
        let first = try readUInt8()
        let prefix = first >> 6
        var value = Int(first & 0x3f)
        switch prefix {
        case 0:
            return value
        case 1:
            value = value << 8 | Int(try readUInt8())
            if value < 1 << 6 { throw TLSDecodingError.nonMinimalVarint }
        case 2:
            for _ in 0..<3 { value = value << 8 | Int(try readUInt8()) }
            if value < 1 << 14 { throw TLSDecodingError.nonMinimalVarint }
        default:
            throw TLSDecodingError.invalidVarintPrefix
        }
        return value
    }

    /// Reads `opaque data<V>`.
    public mutating func readOpaque() throws -> Data {
        let length = try readVarint()
        return Data(try take(length))
    }

    /// Reads a `<V>` vector and hands a reader bounded to its content to `body`, which must consume it all.
    public mutating func readVector<T>(_ body: (inout TLSReader) throws -> T) throws -> T {
        let length = try readVarint()
        guard length <= end - index else {
            throw TLSDecodingError.truncated(needed: length, available: end - index)
        }
        var inner = TLSReader(bytes: bytes, index: index, end: index + length)
        let value = try body(&inner)
        try inner.finish()
        index += length
        return value
    }

    /// Reads a `T items<V>` vector, decoding elements until its content is exhausted.
    public mutating func readVectorElements<T>(_ element: (inout TLSReader) throws -> T) throws -> [T] {
        try readVector { inner in
            var items: [T] = []
            while !inner.isAtEnd { items.append(try element(&inner)) }
            return items
        }
    }

    /// Reads a `T items<V>` vector of decodable elements.
    public mutating func readVector<T: TLSDecodable>(of type: T.Type = T.self) throws -> [T] {
        try readVectorElements { try T(from: &$0) }
    }

    /// Reads `optional<T>`.
    public mutating func readOptional<T>(_ body: (inout TLSReader) throws -> T) throws -> T? {
        switch try readUInt8() {
        case 0: return nil
        case 1: return try body(&self)
        case let other: throw TLSDecodingError.invalidOptionalPresence(other)
        }
    }

    /// Reads `optional<T>` for a decodable value.
    public mutating func readOptional<T: TLSDecodable>(_ type: T.Type = T.self) throws -> T? {
        try readOptional { try T(from: &$0) }
    }

    /// Reads a decodable value.
    public mutating func read<T: TLSDecodable>(_ type: T.Type = T.self) throws -> T { try T(from: &self) }
}
