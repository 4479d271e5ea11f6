import Foundation

/// Picture bytes for tests of both the wire (schemes, metadata stripping) and the client (transfers).
public enum TestPictures {
    /// A 1×1 PNG's signature and header, then filler: enough for the format check.
    public static func png(_ size: Int = 2_000) -> Data {
        var data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        data.append(Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }))
        return data
    }

    /// A real 8×6 RGB PNG without metadata (made with Python's zlib; MDK 0.8.0 checks that an
    /// image's bytes are the type it claims).
    public static let realPNG: Data = {
        let hex = "89504e470d0a1a0a0000000d4948445200000008000000060802000000716748ac0000005f4944415478da0dc93101c040080441a45022030948781994483929942b0329c9b46366b891c633c690b1c61966810719bc6002051b5cfc517891c52ba650b1c5d51f8d37d9bc661a35db5cff215ca4786284c48ad31fe090f06040b070f00111a24d41aec94f580000000049454e44ae426082"
        var bytes = [UInt8]()
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return Data(bytes)
    }()

    /// One JPEG segment: marker, big-endian length (payload + 2), payload.
    public static func jpegSegment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    /// The scan data that ends `jpeg` (with a stuffed 0xFF00 and a restart marker) and EOI.
    public static let jpegScan: [UInt8] = [0x12, 0xFF, 0x00, 0x34, 0xFF, 0xD0, 0x56, 0xFF, 0xD9]

    /// A JPEG's structure with JFIF, EXIF (a GPS position), XMP, an ICC profile, a comment, a
    /// quantisation table, the scan and EOI.
    public static let jpeg: [UInt8] = [0xFF, 0xD8]
        + jpegSegment(0xE0, Array("JFIF\0".utf8) + [1, 1, 0, 0, 1, 0, 1, 0, 0])
        + jpegSegment(0xE1, Array("Exif\0\0GPS 48.8584N 2.2945E serial 123".utf8))
        + jpegSegment(0xE1, Array("http://ns.adobe.com/xap/1.0/\0<x:xmpmeta>creator</x:xmpmeta>".utf8))
        + jpegSegment(0xE2, Array("ICC_PROFILE\0profile".utf8))
        + jpegSegment(0xFE, Array("taken at home".utf8))
        + jpegSegment(0xDB, [0] + [UInt8](repeating: 1, count: 64))
        + jpegSegment(0xDA, [1, 1, 0, 0, 63, 0])
        + jpegScan

    /// Whether `text` appears in `data` as UTF-8.
    public static func contains(_ data: Data, _ text: String) -> Bool { data.range(of: Data(text.utf8)) != nil }
}
