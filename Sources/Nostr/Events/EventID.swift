/// A NIP-01 event id: the SHA-256 of the event's canonical serialization (32 bytes).
public struct EventID: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The 32 digest bytes.
    public let bytes: [UInt8]

    init(uncheckedBytes: [UInt8]) { self.bytes = uncheckedBytes }

    /// Wraps exactly 32 bytes.
    public init<Bytes: Collection>(bytes: Bytes) throws where Bytes.Element == UInt8 {
        let raw = Array(bytes)
        guard raw.count == 32 else { throw EventError.malformed("event id must be 32 bytes, got \(raw.count)") }
        self.bytes = raw
    }

    /// Parses 64 lower-case hex characters.
    public init(hex: String) throws {
        guard let raw = Hex.decode(hex, count: 32) else {
            throw EventError.malformed("event id must be 64 lower-case hex characters")
        }
        self.bytes = raw
    }

    /// Parses a NIP-19 `note1…` string.
    public init(note: String) throws {
        try self.init(bytes: try NIP19.decodeBare(note, expecting: .note))
    }

    /// Lower-case hex.
    public var hex: String { Hex.encode(bytes) }

    /// The NIP-19 `note1…` form.
    public var note: String { NIP19.encodeBare(.note, bytes) }

    public var description: String { hex }

    public static func < (lhs: EventID, rhs: EventID) -> Bool { lhs.bytes.lexicographicallyPrecedes(rhs.bytes) }

    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do { try self.init(hex: text) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "\(error)"))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(hex)
    }
}

/// A 64-byte BIP-340 Schnorr signature (NIP-01 `sig`).
public struct Signature: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The 64 signature bytes (`r ‖ s`).
    public let bytes: [UInt8]

    init(uncheckedBytes: [UInt8]) { self.bytes = uncheckedBytes }

    /// Wraps exactly 64 bytes.
    public init<Bytes: Collection>(bytes: Bytes) throws where Bytes.Element == UInt8 {
        let raw = Array(bytes)
        guard raw.count == 64 else { throw EventError.malformed("signature must be 64 bytes, got \(raw.count)") }
        self.bytes = raw
    }

    /// Parses 128 lower-case hex characters.
    public init(hex: String) throws {
        guard let raw = Hex.decode(hex, count: 64) else {
            throw EventError.malformed("signature must be 128 lower-case hex characters")
        }
        self.bytes = raw
    }

    /// Lower-case hex.
    public var hex: String { Hex.encode(bytes) }

    public var description: String { hex }

    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do { try self.init(hex: text) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "\(error)"))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(hex)
    }
}
