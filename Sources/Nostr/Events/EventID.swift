/// A NIP-01 event id: the SHA-256 of the event's canonical serialization (32 bytes).
public struct EventID: Sendable, Hashable, Comparable, HexStringCodable {
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

    /// The NIP-19 `note1…` form.
    public var note: String { NIP19.encodeBare(.note, bytes) }

    public static func < (lhs: EventID, rhs: EventID) -> Bool { lhs.bytes.lexicographicallyPrecedes(rhs.bytes) }
}

/// A 64-byte BIP-340 Schnorr signature (NIP-01 `sig`).
public struct Signature: Sendable, Hashable, HexStringCodable {
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

}
