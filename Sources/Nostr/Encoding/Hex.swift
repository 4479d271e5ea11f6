/// Lower-case hexadecimal encoding and strict decoding.
///
/// NIP-01 requires ids, public keys and signatures as lower-case hex, so decoding rejects upper case
/// unless a caller explicitly allows it (e.g. when importing a user-typed secret key).
public enum Hex {
    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Encodes bytes as lower-case hex.
    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var out = [UInt8]()
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes hex; nil on odd length, a non-hex character, or upper case when `allowUppercase` is false.
    public static func decode(_ text: String, allowUppercase: Bool = false) -> [UInt8]? {
        let utf8 = text.utf8
        guard utf8.count % 2 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(utf8.count / 2)
        var high: UInt8 = 0
        var isHigh = true
        for c in utf8 {
            guard let v = nibble(c, allowUppercase: allowUppercase) else { return nil }
            if isHigh { high = v } else { out.append(high << 4 | v) }
            isHigh.toggle()
        }
        return out
    }

    /// Decodes hex that must encode exactly `count` bytes.
    public static func decode(_ text: String, count: Int, allowUppercase: Bool = false) -> [UInt8]? {
        guard text.utf8.count == count * 2 else { return nil }
        return decode(text, allowUppercase: allowUppercase)
    }

    @inline(__always)
    private static func nibble(_ c: UInt8, allowUppercase: Bool) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c &- UInt8(ascii: "a") &+ 10
        case UInt8(ascii: "A")...UInt8(ascii: "F") where allowUppercase: return c &- UInt8(ascii: "A") &+ 10
        default: return nil
        }
    }
}
