import Foundation
import Testing
@testable import Marmot

/// Camera metadata is cut from pictures before they are sent; pixels and colour profiles stay
/// (issue 28; MDK strips EXIF by default too).
struct ImageMetadataTests {
    static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    /// A JPEG's structure with JFIF, EXIF (a GPS position), XMP, an ICC profile, a comment, a
    /// quantisation table, the scan (with a stuffed 0xFF00 and a restart marker) and EOI.
    static let scan: [UInt8] = [0x12, 0xFF, 0x00, 0x34, 0xFF, 0xD0, 0x56, 0xFF, 0xD9]
    static let jpeg: [UInt8] = [0xFF, 0xD8]
        + segment(0xE0, Array("JFIF\0".utf8) + [1, 1, 0, 0, 1, 0, 1, 0, 0])
        + segment(0xE1, Array("Exif\0\0GPS 48.8584N 2.2945E serial 123".utf8))
        + segment(0xE1, Array("http://ns.adobe.com/xap/1.0/\0<x:xmpmeta>creator</x:xmpmeta>".utf8))
        + segment(0xE2, Array("ICC_PROFILE\0profile".utf8))
        + segment(0xFE, Array("taken at home".utf8))
        + segment(0xDB, [0] + [UInt8](repeating: 1, count: 64))
        + segment(0xDA, [1, 1, 0, 0, 63, 0])
        + scan

    static func contains(_ data: Data, _ text: String) -> Bool { data.range(of: Data(text.utf8)) != nil }

    @Test func jpegLosesExifXmpAndCommentsButKeepsPixelsAndProfile() throws {
        guard case .stripped(let out, let removed) = ImageMetadata.strip(Data(Self.jpeg)) else {
            Issue.record("nothing stripped")
            return
        }
        #expect(removed == ["APP1 (EXIF/XMP)", "APP1 (EXIF/XMP)", "COM"])
        for secret in ["GPS", "Exif", "xmpmeta", "taken at home"] { #expect(!Self.contains(out, secret), "\(secret) left") }
        #expect(Self.contains(out, "JFIF") && Self.contains(out, "ICC_PROFILE"))
        #expect(Array(out.prefix(2)) == [0xFF, 0xD8])
        #expect(Array(out.suffix(Self.scan.count)) == Self.scan, "the scan data is kept byte for byte")
        // Stripping again finds nothing more.
        #expect(ImageMetadata.strip(out) == .clean)
    }

    static func chunk(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let n = payload.count
        return [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + Array(type.utf8) + payload + [0, 0, 0, 0]
    }

    @Test func pngLosesTextExifAndTimeChunks() throws {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + Self.chunk("IHDR", [0, 0, 0, 8, 0, 0, 0, 6, 8, 2, 0, 0, 0])
            + Self.chunk("tEXt", Array("Location\0Paris".utf8))
            + Self.chunk("eXIf", Array("MM\0*GPS".utf8))
            + Self.chunk("tIME", [7, 234, 11, 27, 12, 0, 0])
            + Self.chunk("IDAT", [1, 2, 3, 4])
            + Self.chunk("IEND", [])
        guard case .stripped(let out, let removed) = ImageMetadata.strip(Data(png)) else {
            Issue.record("nothing stripped")
            return
        }
        #expect(removed == ["tEXt", "eXIf", "tIME"])
        #expect(!Self.contains(out, "Paris") && !Self.contains(out, "GPS"))
        #expect(Self.contains(out, "IHDR") && Self.contains(out, "IDAT") && Self.contains(out, "IEND"))
        #expect(out.count == png.count - (14 + 12) - (7 + 12) - (7 + 12))
    }

    /// A real PNG without metadata (the MDK media fixture) and files that are not pictures pass as they are.
    @Test func cleanPicturesAndOtherFilesAreLeftAlone() {
        #expect(ImageMetadata.strip(MDKMediaInteropTests.picture) == .clean)
        #expect(ImageMetadata.strip(Data("%PDF-1.7 GPS".utf8)) == .clean)
        #expect(ImageMetadata.strip(Data()) == .clean)
    }

    /// Truncated or lying structures are reported, never read past their end.
    @Test func brokenStructuresAreReportedNotTrusted() {
        let cut = Data(Self.jpeg.prefix(30))
        guard case .unreadable = ImageMetadata.strip(cut) else {
            Issue.record("a cut JPEG was not reported")
            return
        }
        var lying = Self.jpeg
        lying[5] = 0xFF  // the JFIF segment claims far more bytes than there are
        guard case .unreadable = ImageMetadata.strip(Data(lying)) else {
            Issue.record("a lying length was not reported")
            return
        }
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x7F, 0xFF, 0xFF, 0xFF] + Array("tEXt".utf8)
        guard case .unreadable = ImageMetadata.strip(Data(png)) else {
            Issue.record("a lying PNG chunk was not reported")
            return
        }
    }
}
