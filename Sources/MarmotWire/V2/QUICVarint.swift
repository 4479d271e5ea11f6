import Foundation

/// QUIC variable-length integers (RFC 9000 §16) with the minimal-length rule Marmot v2 components
/// require (foundation/canonical-encoding.md; MDK `app_components/codec.rs` rejects longer forms).
public enum QUICVarint {
    /// The largest encodable value, 2^62 − 1.
    public static let max: UInt64 = (1 << 62) - 1

    /// Appends `value` in its shortest form; values above `max` are clamped (never produced here).
    public static func encode(_ value: UInt64, into out: inout [UInt8]) {
        let v = Swift.min(value, max)
        let width = v < 64 ? 1 : v < 16_384 ? 2 : v < 1_073_741_824 ? 4 : 8
        let prefix: UInt8 = width == 1 ? 0x00 : width == 2 ? 0x40 : width == 4 ? 0x80 : 0xc0
        for i in (0..<width).reversed() {
            var byte = UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))
            if i == width - 1 { byte |= prefix }
            out.append(byte)
        }
    }

    public static func encode(_ value: UInt64) -> [UInt8] {
        var out: [UInt8] = []
        encode(value, into: &out)
        return out
    }

    /// Reads one varint from the front of `bytes`, advancing it; non-minimal forms are rejected.
    public static func decode(_ bytes: inout ArraySlice<UInt8>) throws(V2ComponentError) -> UInt64 {
        guard let first = bytes.first else { throw .truncated("QUIC varint") }
        let width = 1 << Int(first >> 6)
        guard bytes.count >= width else { throw .truncated("QUIC varint") }
        var value = UInt64(first & 0x3f)
        for byte in bytes.dropFirst().prefix(width - 1) { value = value << 8 | UInt64(byte) }
        let minimal = value < 64 ? 1 : value < 16_384 ? 2 : value < 1_073_741_824 ? 4 : 8
        guard width == minimal else { throw .nonMinimalVarint }
        bytes = bytes.dropFirst(width)
        return value
    }

    /// Appends `varint(len) ‖ bytes` (a `<V>` vector in Marmot canonical encoding).
    public static func encodeBytes(_ payload: [UInt8], into out: inout [UInt8]) {
        encode(UInt64(payload.count), into: &out)
        out.append(contentsOf: payload)
    }

    /// Reads a `<V>` vector of at most `maxLength` bytes; the length is checked before the body.
    public static func decodeBytes(
        _ bytes: inout ArraySlice<UInt8>, maxLength: Int, label: String
    ) throws(V2ComponentError) -> [UInt8] {
        let length = try decode(&bytes)
        guard length <= UInt64(maxLength) else { throw .tooLong(label, max: maxLength) }
        guard bytes.count >= Int(length) else { throw .truncated(label) }
        let body = Array(bytes.prefix(Int(length)))
        bytes = bytes.dropFirst(Int(length))
        return body
    }
}
