import Foundation

/// The picture formats a group image may have, recognised by their leading bytes: PNG, JPEG, GIF
/// and WebP, the four MDK 0.9.14 accepts for a group avatar (`marmot-app/src/media/group_image.rs`
/// `validate_group_image_input`). A declared type that is not what the bytes are is refused.
public enum GroupImageFormat: String, Sendable, CaseIterable {
    case png = "image/png"
    case jpeg = "image/jpeg"
    case gif = "image/gif"
    case webp = "image/webp"

    /// The media type.
    public var mediaType: String { rawValue }

    /// The format `data` starts as, or nil.
    public static func sniff(_ data: Data) -> GroupImageFormat? {
        let head = [UInt8](data.prefix(12))
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if head.starts(with: Array("GIF87a".utf8)) || head.starts(with: Array("GIF89a".utf8)) { return .gif }
        if head.count == 12, head.starts(with: Array("RIFF".utf8)), Array(head[8..<12]) == Array("WEBP".utf8) { return .webp }
        return nil
    }

    /// The format of a picture the user sets: `declared` (canonicalised as MDK does) must be one of
    /// the four and must be what the bytes are; a nil `declared` takes what the bytes are.
    public static func check(_ data: Data, declared: String?) throws(GroupImageError) -> GroupImageFormat {
        guard !data.isEmpty else { throw .empty }
        guard let sniffed = sniff(data) else { throw .contentMismatch("not a PNG, JPEG, GIF or WebP picture") }
        guard let declared else { return sniffed }
        let canonical: String
        do { canonical = try V2MediaScheme.canonicalMediaType(declared) } catch { throw .invalidMediaType("\(error)") }
        guard let format = GroupImageFormat(rawValue: canonical) else { throw .invalidMediaType("\(canonical) is not PNG, JPEG, GIF or WebP") }
        guard format == sniffed else { throw .contentMismatch("declared \(canonical) but the bytes are \(sniffed.rawValue)") }
        return format
    }
}
