import Foundation

/// Removes the metadata a camera or editor writes into a picture (EXIF with its GPS position and
/// device serials, XMP, IPTC, comments, text chunks) before it is encrypted and sent, keeping the
/// pixels and the colour profile byte for byte.
///
/// Why: the people in a chat should see the photo, not where and with what it was taken; MDK does
/// the same by default (`MediaProcessingOptions.sanitize_exif`, MIP-04). We cut segments instead of
/// re-encoding, so quality is untouched. JPEG (ITU T.81 §B.1): APP1 (EXIF, XMP), APP12, APP13
/// (IPTC) and COM segments go; APP0 (JFIF), APP2 (ICC profile) and APP14 (Adobe colour) stay. PNG
/// (ISO 15948 §11): `eXIf`, `tEXt`, `zTXt`, `iTXt` and `tIME` chunks go. The EXIF orientation goes
/// with EXIF: a photo a phone stored sideways is shown as stored.
public enum ImageMetadata {
    /// What stripping did to one file.
    public enum Outcome: Equatable, Sendable {
        /// Metadata was found and removed: the new bytes.
        case stripped(Data, removed: [String])
        /// No metadata to remove (or not a JPEG or PNG): send the bytes as they are.
        case clean
        /// The file claims to be a JPEG or PNG but its structure does not parse: why.
        case unreadable(String)
    }

    /// Strips `data` according to its leading bytes (not the declared type, which the sender chose).
    public static func strip(_ data: Data) -> Outcome {
        let bytes = [UInt8](data)
        if bytes.starts(with: [0xFF, 0xD8]) { return jpeg(bytes) }
        if bytes.starts(with: pngSignature) { return png(bytes) }
        return .clean
    }

    // MARK: JPEG

    /// Markers whose segments carry metadata: APP1, APP12, APP13, COM.
    private static let jpegMetadataMarkers: [UInt8: String] = [0xE1: "APP1 (EXIF/XMP)", 0xEC: "APP12", 0xED: "APP13 (IPTC)", 0xFE: "COM"]

    private static func jpeg(_ bytes: [UInt8]) -> Outcome {
        var output: [UInt8] = [0xFF, 0xD8]
        var removed: [String] = []
        var index = 2
        while true {
            guard index + 1 < bytes.count else { return .unreadable("JPEG ends before its image data") }
            guard bytes[index] == 0xFF else { return .unreadable("JPEG marker expected at byte \(index)") }
            var markerIndex = index + 1
            while markerIndex < bytes.count, bytes[markerIndex] == 0xFF { markerIndex += 1 }  // fill bytes
            guard markerIndex < bytes.count else { return .unreadable("JPEG ends inside a marker") }
            let marker = bytes[markerIndex]
            // Standalone markers (TEM, RSTn) have no length.
            if marker == 0x01 || (0xD0...0xD7).contains(marker) {
                output.append(contentsOf: [0xFF, marker])
                index = markerIndex + 1
                continue
            }
            if marker == 0xD9 {  // EOI before any scan
                return .unreadable("JPEG has no image data")
            }
            guard markerIndex + 2 < bytes.count else { return .unreadable("JPEG segment length missing") }
            let length = Int(bytes[markerIndex + 1]) << 8 | Int(bytes[markerIndex + 2])
            guard length >= 2, markerIndex + 1 + length <= bytes.count else {
                return .unreadable("JPEG segment at byte \(index) runs past the end")
            }
            let end = markerIndex + 1 + length
            if let name = jpegMetadataMarkers[marker] {
                removed.append(name)
            } else {
                output.append(contentsOf: [0xFF, marker])
                output.append(contentsOf: bytes[(markerIndex + 1)..<end])
            }
            index = end
            if marker == 0xDA {
                // Start of scan: the entropy-coded data and everything after it are kept as they are
                // (metadata segments after the first scan are vanishingly rare and harmless to keep).
                output.append(contentsOf: bytes[index...])
                break
            }
        }
        return removed.isEmpty ? .clean : .stripped(Data(output), removed: removed)
    }

    // MARK: PNG

    private static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    private static let pngMetadataChunks: Set<String> = ["eXIf", "tEXt", "zTXt", "iTXt", "tIME"]

    private static func png(_ bytes: [UInt8]) -> Outcome {
        var output = pngSignature
        var removed: [String] = []
        var index = pngSignature.count
        while index < bytes.count {
            guard index + 8 <= bytes.count else { return .unreadable("PNG chunk header cut short at byte \(index)") }
            let length = Int(bytes[index]) << 24 | Int(bytes[index + 1]) << 16 | Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            let type = String(decoding: bytes[(index + 4)..<(index + 8)], as: UTF8.self)
            let end = index + 12 + length
            guard length <= Int(Int32.max), end <= bytes.count else { return .unreadable("PNG chunk \(type) runs past the end") }
            if pngMetadataChunks.contains(type) {
                removed.append(type)
            } else {
                output.append(contentsOf: bytes[index..<end])
            }
            index = end
            if type == "IEND" { break }
        }
        return removed.isEmpty ? .clean : .stripped(Data(output), removed: removed)
    }
}
