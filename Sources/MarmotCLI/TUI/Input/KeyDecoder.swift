/// Turns terminal input bytes into keys: UTF-8 text, control bytes, and the CSI/SS3 escape sequences of
/// xterm-compatible terminals (ECMA-48 §5.4: parameters 0x30–0x3F, intermediates 0x20–0x2F, final
/// 0x40–0x7E).
///
/// Stateless and pure: the caller keeps the bytes that did not form a whole key yet and passes them
/// back with the next read. Whether a lone Esc is the Escape key or the start of a sequence depends on
/// timing, which only the caller knows: it passes `atEnd: true` once no more bytes arrived for a short
/// while, and a pending lone Esc (or a cut sequence) is then reported as Escape.
enum KeyDecoder {
    /// Decodes as many whole keys as `bytes` holds; returns them and the unconsumed tail.
    static func decode(_ bytes: [UInt8], atEnd: Bool) -> (keys: [Key], rest: [UInt8]) {
        var keys: [Key] = []
        var index = 0
        while index < bytes.count {
            switch step(bytes, at: index, atEnd: atEnd) {
            case .key(let key, let length):
                keys.append(key)
                index += length
            case .skip(let length):
                index += length
            case .needMore:
                return (keys, Array(bytes[index...]))
            }
        }
        return (keys, [])
    }

    private enum Step {
        case key(Key, length: Int)
        /// Bytes that form no key (an invalid UTF-8 byte), dropped.
        case skip(length: Int)
        case needMore
    }

    private static let esc: UInt8 = 0x1B

    private static func step(_ bytes: [UInt8], at index: Int, atEnd: Bool) -> Step {
        let byte = bytes[index]
        switch byte {
        case esc: return escape(bytes, at: index, atEnd: atEnd)
        case 0x0D, 0x0A: return .key(.enter, length: 1)
        case 0x7F, 0x08: return .key(.backspace, length: 1)
        case 0x09: return .key(.tab, length: 1)
        case 0x01...0x1A: return .key(.control(Character(Unicode.Scalar(byte + 0x60))), length: 1)
        case 0x00, 0x1C...0x1F: return .key(.unknown, length: 1)
        default: return utf8(bytes, at: index, atEnd: atEnd)
        }
    }

    // MARK: Escape sequences

    private static func escape(_ bytes: [UInt8], at index: Int, atEnd: Bool) -> Step {
        let next = index + 1
        guard next < bytes.count else { return atEnd ? .key(.escape, length: 1) : .needMore }
        switch bytes[next] {
        case UInt8(ascii: "["): return csi(bytes, at: index, atEnd: atEnd)
        case UInt8(ascii: "O"): return ss3(bytes, at: index, atEnd: atEnd)
        case esc: return .key(.escape, length: 1)
        default:
            // Esc followed by a character: Alt+character, as xterm sends it with metaSendsEscape.
            switch utf8(bytes, at: next, atEnd: atEnd) {
            case .key(.character(let character), let length): return .key(.alt(character), length: 1 + length)
            case .needMore: return .needMore
            case .key, .skip: return .key(.escape, length: 1)
            }
        }
    }

    /// `Esc [ params intermediates final`.
    private static func csi(_ bytes: [UInt8], at index: Int, atEnd: Bool) -> Step {
        var cursor = index + 2
        while cursor < bytes.count {
            let byte = bytes[cursor]
            switch byte {
            case 0x20...0x3F:
                cursor += 1
            case 0x40...0x7E:
                let parameters = String(decoding: bytes[(index + 2)..<cursor], as: UTF8.self)
                return .key(csiKey(final: byte, parameters: parameters), length: cursor - index + 1)
            default:
                // Not a valid sequence: report Esc and let the rest decode on its own.
                return .key(.escape, length: 1)
            }
        }
        return atEnd ? .key(.escape, length: 1) : .needMore
    }

    private static func csiKey(final: UInt8, parameters: String) -> Key {
        switch final {
        case UInt8(ascii: "A"): return .up
        case UInt8(ascii: "B"): return .down
        case UInt8(ascii: "C"): return .right
        case UInt8(ascii: "D"): return .left
        case UInt8(ascii: "H"): return .home
        case UInt8(ascii: "F"): return .end
        case UInt8(ascii: "Z"): return .backTab
        case UInt8(ascii: "~"):
            // `Esc [ n ; modifiers ~`: the first parameter names the key.
            switch parameters.split(separator: ";").first {
            case "1", "7": return .home
            case "4", "8": return .end
            case "3": return .delete
            case "5": return .pageUp
            case "6": return .pageDown
            default: return .unknown
            }
        default: return .unknown
        }
    }

    /// `Esc O final`, sent for arrows and Home/End in application cursor mode.
    private static func ss3(_ bytes: [UInt8], at index: Int, atEnd: Bool) -> Step {
        let finalIndex = index + 2
        guard finalIndex < bytes.count else { return atEnd ? .key(.escape, length: 1) : .needMore }
        let key: Key =
            switch bytes[finalIndex] {
            case UInt8(ascii: "A"): .up
            case UInt8(ascii: "B"): .down
            case UInt8(ascii: "C"): .right
            case UInt8(ascii: "D"): .left
            case UInt8(ascii: "H"): .home
            case UInt8(ascii: "F"): .end
            default: .unknown
            }
        return .key(key, length: 3)
    }

    // MARK: Text

    /// One UTF-8 encoded scalar (or a grapheme cluster start); invalid bytes are skipped.
    private static func utf8(_ bytes: [UInt8], at index: Int, atEnd: Bool) -> Step {
        let lead = bytes[index]
        let length: Int
        switch lead {
        case 0x20...0x7E: return .key(.character(Character(Unicode.Scalar(lead))), length: 1)
        case 0xC2...0xDF: length = 2
        case 0xE0...0xEF: length = 3
        case 0xF0...0xF4: length = 4
        default: return .skip(length: 1)
        }
        guard index + length <= bytes.count else {
            let available = bytes[(index + 1)...]
            // A cut sequence may complete with the next read, unless what is there is already invalid.
            if !atEnd, available.allSatisfy({ $0 & 0xC0 == 0x80 }) { return .needMore }
            return .skip(length: 1)
        }
        let encoded = bytes[index..<(index + length)]
        guard let scalar = scalar(utf8: encoded), !isControl(scalar) else { return .skip(length: 1) }
        return .key(.character(Character(scalar)), length: length)
    }

    /// The scalar a whole 2–4 byte UTF-8 sequence encodes; nil for bad continuation bytes, overlong
    /// forms, surrogates and values past U+10FFFF (RFC 3629 §3).
    private static func scalar(utf8 encoded: ArraySlice<UInt8>) -> Unicode.Scalar? {
        guard let lead = encoded.first, encoded.dropFirst().allSatisfy({ $0 & 0xC0 == 0x80 }) else { return nil }
        let (initial, minimum): (UInt32, UInt32) =
            switch encoded.count {
            case 2: (UInt32(lead & 0x1F), 0x80)
            case 3: (UInt32(lead & 0x0F), 0x800)
            default: (UInt32(lead & 0x07), 0x10000)
            }
        let value = encoded.dropFirst().reduce(initial) { ($0 << 6) | UInt32($1 & 0x3F) }
        guard value >= minimum else { return nil }
        return Unicode.Scalar(value)
    }

    /// C1 controls (U+0080–U+009F) are never text.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= 0x80 && scalar.value < 0xA0
    }
}
