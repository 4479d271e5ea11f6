import Foundation

/// The width and height an `imeta` `dim` field states (NIP-94 `WxH`), bounded so a renderer can
/// trust them for layout: at most `maxSide` a side and `maxPixels` in all (MDK 0.8.0
/// `media_processing/types.rs` `MAX_IMAGE_DIMENSION`, `MAX_IMAGE_PIXELS`).
public struct MediaDimensions: Sendable, Hashable, CustomStringConvertible {
    public static let maxSide = 16_384
    public static let maxPixels = 50_000_000

    public let width: Int
    public let height: Int

    /// Nil when a side is not in 1…`maxSide` or the area exceeds `maxPixels`.
    public init?(width: Int, height: Int) {
        guard (1...Self.maxSide).contains(width), (1...Self.maxSide).contains(height),
              width * height <= Self.maxPixels
        else { return nil }
        self.width = width
        self.height = height
    }

    /// Parses `WxH` (ASCII decimal digits only); nil when malformed or out of bounds.
    public init?(field: String) {
        let parts = field.split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2,
              let width = Self.decimal(parts[0]), let height = Self.decimal(parts[1])
        else { return nil }
        self.init(width: width, height: height)
    }

    /// `WxH`, as MDK writes `dim`.
    public var field: String { "\(width)x\(height)" }
    public var description: String { field }

    private static func decimal(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.count <= 10, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int(text)
    }
}
