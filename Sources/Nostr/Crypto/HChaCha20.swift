/// HChaCha20: derives a 256-bit subkey from a ChaCha20 key and a 128-bit nonce.
///
/// The first step of XChaCha20 (draft-irtf-cfrg-xchacha-03, section 2.2), which NIP-49 encrypts
/// with; swift-crypto has ChaCha20-Poly1305 but not the extended-nonce variant. The state is the
/// ChaCha20 block's (RFC 8439, section 2.3) with the 16 nonce bytes where the counter and nonce go;
/// after the 20 rounds, with no final addition of the input, words 0…3 and 12…15 are the subkey.
enum HChaCha20 {
    /// "expand 32-byte k" as four little-endian words.
    private static let constants: [UInt32] = [0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574]

    /// The 32-byte subkey of a 32-byte `key` and a 16-byte `nonce`.
    static func subkey(key: [UInt8], nonce: [UInt8]) -> [UInt8] {
        precondition(key.count == 32 && nonce.count == 16, "HChaCha20 takes a 32-byte key and a 16-byte nonce")
        var s = constants + words(key) + words(nonce)
        for _ in 0..<10 {
            quarterRound(&s, 0, 4, 8, 12)
            quarterRound(&s, 1, 5, 9, 13)
            quarterRound(&s, 2, 6, 10, 14)
            quarterRound(&s, 3, 7, 11, 15)
            quarterRound(&s, 0, 5, 10, 15)
            quarterRound(&s, 1, 6, 11, 12)
            quarterRound(&s, 2, 7, 8, 13)
            quarterRound(&s, 3, 4, 9, 14)
        }
        var out = [UInt8]()
        out.reserveCapacity(32)
        for w in s[0..<4] + s[12..<16] {
            out += [UInt8(truncatingIfNeeded: w), UInt8(truncatingIfNeeded: w >> 8),
                    UInt8(truncatingIfNeeded: w >> 16), UInt8(truncatingIfNeeded: w >> 24)]
        }
        for i in s.indices { s[i] = 0 }
        return out
    }

    /// Bytes (a multiple of 4) as little-endian words.
    private static func words(_ bytes: [UInt8]) -> [UInt32] {
        stride(from: 0, to: bytes.count, by: 4).map { i in
            UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24
        }
    }

    /// The ChaCha quarter round (RFC 8439, section 2.1) on four words of the state.
    private static func quarterRound(_ s: inout [UInt32], _ a: Int, _ b: Int, _ c: Int, _ d: Int) {
        s[a] &+= s[b]; s[d] ^= s[a]; s[d] = rotl(s[d], 16)
        s[c] &+= s[d]; s[b] ^= s[c]; s[b] = rotl(s[b], 12)
        s[a] &+= s[b]; s[d] ^= s[a]; s[d] = rotl(s[d], 8)
        s[c] &+= s[d]; s[b] ^= s[c]; s[b] = rotl(s[b], 7)
    }

    private static func rotl(_ x: UInt32, _ n: UInt32) -> UInt32 { x << n | x >> (32 - n) }
}
