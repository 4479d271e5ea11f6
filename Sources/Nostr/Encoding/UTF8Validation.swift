/// Strict UTF-8 decoding.
enum UTF8Validation {
    /// The string for `bytes`, or nil when they are not valid UTF-8 (no silent U+FFFD substitution).
    static func string<Bytes: Collection>(_ bytes: Bytes) -> String? where Bytes.Element == UInt8 {
        let s = String(decoding: bytes, as: UTF8.self)
        // Decoding replaces each invalid sequence with U+FFFD, so the bytes differ exactly when invalid.
        return s.utf8.elementsEqual(bytes) ? s : nil
    }
}
