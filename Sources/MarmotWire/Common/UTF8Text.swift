/// Strict UTF-8 decoding (no silent U+FFFD substitution), for wire fields MDK reads with
/// `String::from_utf8`.
package enum UTF8Text {
    /// The string for `bytes`, or nil when they are not valid UTF-8.
    package static func decode<Bytes: Collection>(_ bytes: Bytes) -> String? where Bytes.Element == UInt8 {
        let text = String(decoding: bytes, as: UTF8.self)
        return text.utf8.elementsEqual(bytes) ? text : nil
    }
}
