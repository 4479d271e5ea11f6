import Foundation

/// Filenames of received media: what may be shown and saved. The authenticated name is kept as
/// sent (it is part of the key derivation and associated data); each version's scheme refuses
/// what its reference refuses, and `safe` reduces the rest to a plain base name.
public enum MediaFilename {
    /// The longest safe name, in UTF-8 bytes (common file systems allow 255).
    public static let maxSafeBytes = 255
    /// What an empty or dot-only name becomes.
    public static let fallback = "file"

    /// The last path component (after `/` or `\`), without control or bidirectional-override
    /// characters, surrounding blanks and leading dots (no hidden files, no `.` or `..`), cut at
    /// `maxSafeBytes` on a character boundary; `fallback` when nothing is left.
    public static func safe(_ name: String) -> String {
        let base = name.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        var scalars = String.UnicodeScalarView()
        for scalar in base.unicodeScalars where !isUnsafe(scalar) { scalars.append(scalar) }
        var cleaned = String(scalars).trimmingCharacters(in: .whitespaces)
        while cleaned.hasPrefix(".") { cleaned.removeFirst() }
        cleaned = cleaned.trimmingCharacters(in: .whitespaces)
        var out = ""
        for character in cleaned {
            guard out.utf8.count + String(character).utf8.count <= maxSafeBytes else { break }
            out.append(character)
        }
        return out.isEmpty ? fallback : out
    }

    /// Control characters (Unicode Cc, what Rust's `char::is_control` matches) and format
    /// characters (Cf: bidirectional overrides that make `gpj.exe` read as `exe.jpg`).
    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }

    /// Whether `name` holds a Unicode control character (Cc).
    static func hasControl(_ name: String) -> Bool {
        name.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}
