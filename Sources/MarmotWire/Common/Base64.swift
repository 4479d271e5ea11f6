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
    ///
    /// One pass over the UTF-8 bytes with no allocation per group of four (issue 27: the per-group
    /// arrays made decoding a kind-445's content a few percent of opening a message). `=` is not
    /// in the table, so it is refused wherever it is not the final padding.
    public static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { input in
            let count = input.count
            guard count % 4 == 0 else { return nil }
            guard count > 0 else { return [] }
            let pad = UInt8(ascii: "=")
            let padding = input[count - 1] != pad ? 0 : input[count - 2] != pad ? 1 : 2
            var out = [UInt8]()
            out.reserveCapacity(count / 4 * 3)
            return decodeTable.withUnsafeBufferPointer { table -> [UInt8]? in
                var index = 0
                while index < count {
                    let used = index + 4 == count ? 4 - padding : 4
                    var values: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
                    for offset in 0..<used {
                        let v = table[Int(input[index + offset])]
                        guard v != 0xff else { return nil }
                        switch offset {
                        case 0: values.0 = v
                        case 1: values.1 = v
                        case 2: values.2 = v
                        default: values.3 = v
                        }
                    }
                    switch used {
                    case 4:
                        out.append(values.0 << 2 | values.1 >> 4)
                        out.append(values.1 << 4 | values.2 >> 2)
                        out.append(values.2 << 6 | values.3)
                    case 3:
                        guard values.2 & 0x03 == 0 else { return nil }
                        out.append(values.0 << 2 | values.1 >> 4)
                        out.append(values.1 << 4 | values.2 >> 2)
                    default:
                        guard values.1 & 0x0f == 0 else { return nil }
                        out.append(values.0 << 2 | values.1 >> 4)
                    }
                    index += 4
                }
                return out
            }
        }
    }
}
