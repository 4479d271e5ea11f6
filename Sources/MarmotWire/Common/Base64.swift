import Foundation

/// RFC 4648 standard base64 with `=` padding, decoded strictly as MDK's `STANDARD` engine does
/// (marmot-wire §1): no URL-safe alphabet, no whitespace, padding required, and the unused low
/// bits of the last symbol must be zero, so every byte string has exactly one accepted encoding.
public enum Base64 {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xff, count: 256)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = UInt8(i) }
        return table
    }()

    /// Encodes bytes as padded standard base64.
    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        Data(bytes).base64EncodedString()
    }

    /// Decodes padded standard base64; nil for any deviation from the canonical form.
    public static func decode(_ text: String) -> [UInt8]? {
        let input = Array(text.utf8)
        guard input.count % 4 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(input.count / 4 * 3)
        var index = 0
        while index < input.count {
            let isLast = index + 4 == input.count
            let quad = input[index..<(index + 4)]
            let padding = quad.reversed().prefix(while: { $0 == UInt8(ascii: "=") }).count
            guard padding == 0 || (isLast && padding <= 2) else { return nil }
            var values = [UInt8]()
            for c in quad.prefix(4 - padding) {
                let v = decodeTable[Int(c)]
                guard v != 0xff else { return nil }
                values.append(v)
            }
            switch padding {
            case 0:
                out.append(values[0] << 2 | values[1] >> 4)
                out.append(values[1] << 4 | values[2] >> 2)
                out.append(values[2] << 6 | values[3])
            case 1:
                guard values[2] & 0x03 == 0 else { return nil }
                out.append(values[0] << 2 | values[1] >> 4)
                out.append(values[1] << 4 | values[2] >> 2)
            default:
                guard values[1] & 0x0f == 0 else { return nil }
                out.append(values[0] << 2 | values[1] >> 4)
            }
            index += 4
        }
        return out
    }
}
