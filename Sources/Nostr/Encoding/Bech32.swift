/// Errors from decoding a bech32 string.
public enum Bech32Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// The string mixes upper- and lower-case letters (BIP-173 forbids it).
    case mixedCase
    /// No `1` separator, or it leaves an empty human-readable part or too short a data part.
    case missingSeparator
    /// The string is longer than the allowed maximum.
    case tooLong(Int)
    /// A character outside the bech32 alphabet (or outside printable ASCII in the prefix).
    case invalidCharacter(Character)
    /// The checksum does not verify (or is a bech32m checksum, which NIP-19 does not use).
    case invalidChecksum
    /// The 5-bit data does not regroup into whole bytes (non-zero or over-long padding).
    case invalidPadding

    public var description: String {
        switch self {
        case .mixedCase: "bech32: mixed upper and lower case"
        case .missingSeparator: "bech32: missing or misplaced '1' separator"
        case .tooLong(let n): "bech32: string of \(n) characters is too long"
        case .invalidCharacter(let c): "bech32: invalid character \(c.debugDescription)"
        case .invalidChecksum: "bech32: checksum mismatch"
        case .invalidPadding: "bech32: invalid padding in the data part"
        }
    }
}

/// BIP-173 bech32 (not bech32m), as used by NIP-19.
///
/// The 90-character limit of BIP-173 is relaxed by default because NIP-19 TLV strings (nprofile,
/// nevent) may legitimately be longer.
public enum Bech32 {
    private static let alphabet: [UInt8] = Array("qpzry9x8gf2tvdw0s3jn54khce6mua7l".utf8)
    private static let reverse: [Int8] = {
        var table = [Int8](repeating: -1, count: 128)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = Int8(i) }
        return table
    }()
    private static let generator: [UInt32] = [0x3b6a_57b2, 0x2650_8e6d, 0x1ea1_19fa, 0x3d42_33dd, 0x2a14_62b3]

    /// Default maximum length: generous enough for NIP-19 TLV entities with several relays.
    public static let defaultMaxLength = 5000

    private static func polymod(_ values: [UInt8]) -> UInt32 {
        var chk: UInt32 = 1
        for v in values {
            let top = chk >> 25
            chk = (chk & 0x1ff_ffff) << 5 ^ UInt32(v)
            for i in 0..<5 where (top >> UInt32(i)) & 1 == 1 { chk ^= generator[i] }
        }
        return chk
    }

    private static func expandHRP(_ hrp: [UInt8]) -> [UInt8] {
        hrp.map { $0 >> 5 } + [0] + hrp.map { $0 & 31 }
    }

    /// Encodes `data` (8-bit bytes) under the lower-case human-readable part `hrp`.
    public static func encode(hrp: String, data: [UInt8]) -> String {
        let hrpBytes = Array(hrp.lowercased().utf8)
        let values = convertBits(data, from: 8, to: 5, pad: true) ?? []
        let checksumInput = expandHRP(hrpBytes) + values + [0, 0, 0, 0, 0, 0]
        let mod = polymod(checksumInput) ^ 1
        let checksum = (0..<6).map { UInt8((mod >> (5 * (5 - UInt32($0)))) & 31) }
        let chars = hrpBytes + [UInt8(ascii: "1")] + (values + checksum).map { alphabet[Int($0)] }
        return String(decoding: chars, as: UTF8.self)
    }

    /// Decodes a bech32 string into its lower-case human-readable part and 8-bit data.
    public static func decode(_ text: String, maxLength: Int = defaultMaxLength) throws -> (hrp: String, data: [UInt8]) {
        let bytes = Array(text.utf8)
        guard bytes.count <= maxLength else { throw Bech32Error.tooLong(bytes.count) }
        // Non-ASCII text has multi-byte scalars; report the first one rather than a byte.
        if let bad = text.unicodeScalars.first(where: { !$0.isASCII }) { throw Bech32Error.invalidCharacter(Character(bad)) }
        var hasLower = false, hasUpper = false
        for b in bytes {
            guard b >= 33, b <= 126 else { throw Bech32Error.invalidCharacter(Character(Unicode.Scalar(b))) }
            if b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z") { hasLower = true }
            if b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z") { hasUpper = true }
        }
        guard !(hasLower && hasUpper) else { throw Bech32Error.mixedCase }
        let lower = bytes.map { ($0 >= 65 && $0 <= 90) ? $0 + 32 : $0 }
        guard let sep = lower.lastIndex(of: UInt8(ascii: "1")), sep >= 1, sep + 7 <= lower.count else {
            throw Bech32Error.missingSeparator
        }
        let hrp = Array(lower[..<sep])
        var values = [UInt8]()
        values.reserveCapacity(lower.count - sep - 1)
        for c in lower[(sep + 1)...] {
            let v = c < 128 ? reverse[Int(c)] : -1
            guard v >= 0 else { throw Bech32Error.invalidCharacter(Character(Unicode.Scalar(c))) }
            values.append(UInt8(v))
        }
        guard polymod(expandHRP(hrp) + values) == 1 else { throw Bech32Error.invalidChecksum }
        guard let data = convertBits(values.dropLast(6), from: 5, to: 8, pad: false) else {
            throw Bech32Error.invalidPadding
        }
        return (String(decoding: hrp, as: UTF8.self), data)
    }

    /// Regroups bits; with `pad == false` rejects leftover bits that are non-zero or a whole group long.
    static func convertBits<S: Sequence>(_ input: S, from: Int, to: Int, pad: Bool) -> [UInt8]? where S.Element == UInt8 {
        var acc = 0, bits = 0
        var out = [UInt8]()
        let maxv = (1 << to) - 1
        for value in input {
            guard Int(value) >> from == 0 else { return nil }
            acc = (acc << from) | Int(value)
            bits += from
            while bits >= to {
                bits -= to
                out.append(UInt8((acc >> bits) & maxv))
            }
            acc &= (1 << bits) - 1
        }
        if pad {
            if bits > 0 { out.append(UInt8((acc << (to - bits)) & maxv)) }
        } else if bits >= from || ((acc << (to - bits)) & maxv) != 0 {
            return nil
        }
        return out
    }
}
