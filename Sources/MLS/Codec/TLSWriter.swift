import Foundation

/// Serializes values in the TLS presentation language as RFC 9420 uses it (§2.1).
///
/// Vectors carry the variable-length header of RFC 9420 §2.1.2 (QUIC-style, 1/2/4 bytes); the
/// writer always emits the minimal form, which is what the decoder insists on.
public struct TLSWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8]
    /// Set when a vector of 2^30 bytes or more was written: its header could not express the length,
    /// so the output is not a valid encoding (a decoder rejects it). Never a trap; callers that take
    /// sizes from input check sizes before encoding (e.g. `MLSGroup.encrypt`).
    public private(set) var overflowed = false

    public init(capacity: Int = 64) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// The output as `Data`.
    public var data: Data { Data(bytes) }

    public mutating func write(_ value: UInt8) { bytes.append(value) }

    public mutating func write(_ value: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    public mutating func write(_ value: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    public mutating func write(_ value: UInt64) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    /// Writes bytes with no length prefix (a fixed-size array such as `opaque nonce[12]`).
    public mutating func writeFixed<D: DataProtocol>(_ data: D) { bytes.append(contentsOf: data) }

    /// Writes the §2.1.2 variable-length header for `length`.
    public mutating func writeVarint(_ length: Int) {
        bytes.append(0)
        setVarint(length, at: bytes.count - 1)
    }

    /// Puts the §2.1.2 header for `length` in place of the one-byte placeholder at `position`,
    /// widening it to two or four bytes when `length` needs them (`writeVarint` appends it,
    /// `writeVector` fills it in once its content is written).
    private mutating func setVarint(_ length: Int, at position: Int) {
        switch length {
        case 0..<(1 << 6):
            bytes[position] = UInt8(length)
        case (1 << 6)..<(1 << 14):
            bytes[position] = 0x40 | UInt8(length >> 8)
            bytes.insert(UInt8(truncatingIfNeeded: length), at: position + 1)
        case (1 << 14)..<(1 << 30):
            bytes[position] = 0x80 | UInt8(length >> 24)
            bytes.insert(
                contentsOf: [UInt8(truncatingIfNeeded: length >> 16), UInt8(truncatingIfNeeded: length >> 8),
                             UInt8(truncatingIfNeeded: length)],
                at: position + 1)
        default:
            // MLS vectors are limited to 2^30 - 1 bytes (§2.1.2): write the largest header and mark
            // the output invalid rather than trap.
            overflowed = true
            bytes[position] = 0xbf
            bytes.insert(contentsOf: [0xff, 0xff, 0xff], at: position + 1)
        }
    }

    /// Writes `opaque data<V>`: the variable-length header, then the bytes.
    public mutating func writeOpaque<D: DataProtocol>(_ data: D) {
        writeVarint(data.count)
        bytes.append(contentsOf: data)
    }

    /// Writes a `<V>` vector whose content is produced by `body`.
    ///
    /// The content is written in place after a one-byte header, the common case, which is widened
    /// once the length is known: no buffer per vector, as a nested writer would need (issue 27: a
    /// 200-member tree has a few thousand vectors). When `body` throws, nothing is written.
    public mutating func writeVector(_ body: (inout TLSWriter) throws -> Void) rethrows {
        let start = bytes.count
        bytes.append(0)
        do {
            try body(&self)
        } catch {
            bytes.removeSubrange(start...)
            throw error
        }
        setVarint(bytes.count - start - 1, at: start)
    }

    /// Writes a `T items<V>` vector of encodable elements.
    public mutating func writeVector<T: TLSEncodable>(_ items: [T]) {
        writeVector { w in for item in items { item.encode(to: &w) } }
    }

    /// Writes `optional<T>`: a presence byte, then the value when present.
    public mutating func writeOptional<T>(_ value: T?, _ body: (inout TLSWriter, T) -> Void) {
        if let value {
            write(UInt8(1))
            body(&self, value)
        } else {
            write(UInt8(0))
        }
    }

    /// Writes `optional<T>` for an encodable value.
    public mutating func writeOptional<T: TLSEncodable>(_ value: T?) {
        writeOptional(value) { w, v in v.encode(to: &w) }
    }

    /// Writes an encodable value.
    public mutating func write<T: TLSEncodable>(_ value: T) { value.encode(to: &self) }
}
