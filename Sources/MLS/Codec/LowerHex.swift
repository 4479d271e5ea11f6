/// Lower-case hexadecimal text of bytes, for ids and keys in descriptions and storage keys.
///
/// A table lookup per nibble: `String(format: "%02x")` per byte was a measurable share of the app
/// core's send and cold start, where group ids name store settings (issue 27).
package enum LowerHex {
    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    package static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var out = [UInt8]()
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
