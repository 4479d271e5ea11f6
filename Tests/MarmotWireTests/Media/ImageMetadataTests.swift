import Foundation
import TestSupport
import Testing
@testable import MarmotWire

/// Camera metadata is cut from pictures before they are sent; pixels and colour profiles stay
/// (issue 28; MDK strips EXIF by default too).
struct ImageMetadataTests {
    static let scan = TestPictures.jpegScan
    static let jpeg = TestPictures.jpeg
    static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] { TestPictures.jpegSegment(marker, payload) }
    static func contains(_ data: Data, _ text: String) -> Bool { TestPictures.contains(data, text) }

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
        #expect(ImageMetadata.strip(TestPictures.realPNG) == .clean)
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
