/// Cryptographically secure random bytes.
///
/// `SystemRandomNumberGenerator` draws from the operating system CSPRNG (`getrandom` on Linux,
/// `arc4random_buf` on Apple platforms), which is what key generation and nonces need.
enum SecureRandom {
    /// `count` random bytes.
    static func bytes(_ count: Int) -> [UInt8] {
        var rng = SystemRandomNumberGenerator()
        var out = [UInt8](repeating: 0, count: count)
        var i = 0
        while i < count {
            var word = rng.next() as UInt64
            for _ in 0..<8 where i < count {
                out[i] = UInt8(truncatingIfNeeded: word)
                word >>= 8
                i += 1
            }
        }
        return out
    }

    /// A uniformly random integer in `range`.
    static func integer(in range: ClosedRange<Int64>) -> Int64 {
        var rng = SystemRandomNumberGenerator()
        return Int64.random(in: range, using: &rng)
    }
}
