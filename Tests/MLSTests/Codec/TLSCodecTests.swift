import Foundation
import Testing
@testable import MLS

/// The §2.1.2 variable-length header and strict decoding rules.
struct TLSCodecTests {
    @Test(arguments: [0, 1, 63, 64, 16383, 16384, (1 << 30) - 1])
    func varintRoundTripsMinimally(length: Int) throws {
        var writer = TLSWriter()
        writer.writeVarint(length)
        let expectedSize = length < 64 ? 1 : length < 16384 ? 2 : 4
        #expect(writer.bytes.count == expectedSize)
        var reader = TLSReader(writer.bytes)
        #expect(try reader.readVarint() == length)
        try reader.finish()
    }

    /// A vector written in place has the header and bytes of its content written apart and then
    /// prefixed, at each header size and nested; a body that throws leaves nothing behind.
    @Test(arguments: [0, 1, 63, 64, 16383, 16384, 70000])
    func vectorWrittenInPlaceMatchesItsContentPrefixed(length: Int) throws {
        let content = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var expected = TLSWriter()
        expected.write(UInt8(7))
        var inner = TLSWriter()
        inner.writeOpaque(content)
        inner.write(UInt16(0x0102))
        expected.writeOpaque(inner.bytes)
        var writer = TLSWriter()
        writer.write(UInt8(7))
        writer.writeVector { w in
            w.writeVector { $0.writeFixed(content) }
            w.write(UInt16(0x0102))
        }
        #expect(writer.bytes == expected.bytes)
        #expect(!writer.overflowed)

        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try writer.writeVector { w in
                w.writeFixed(content)
                throw Refused()
            }
        }
        #expect(writer.bytes == expected.bytes)
    }

    @Test func rejectsEightByteForm() {
        var reader = TLSReader([0xc0, 0, 0, 0, 0, 0, 0, 1])
        #expect(throws: TLSDecodingError.invalidVarintPrefix) { try reader.readVarint() }
    }

    @Test func rejectsNonMinimalHeaders() {
        var two = TLSReader([0x40, 0x25])
        #expect(throws: TLSDecodingError.nonMinimalVarint) { try two.readVarint() }
        var four = TLSReader([0x80, 0x00, 0x3f, 0xff])
        #expect(throws: TLSDecodingError.nonMinimalVarint) { try four.readVarint() }
    }

    @Test func rejectsTruncatedAndTrailingInput() {
        #expect(throws: TLSDecodingError.truncated(needed: 4, available: 2)) {
            _ = try Data(tlsSerialized: [0x04, 0x01, 0x02])
        }
        #expect(throws: TLSDecodingError.trailingBytes(1)) {
            _ = try Data(tlsSerialized: [0x01, 0xaa, 0xbb])
        }
    }

    @Test func rejectsBadOptionalPresence() {
        var reader = TLSReader([0x02])
        #expect(throws: TLSDecodingError.invalidOptionalPresence(2)) { _ = try reader.readOptional(UInt8.self) }
    }

    @Test func nestedVectorMustBeConsumedExactly() throws {
        // A vector of two uint16 values, then a malformed one whose content has an odd byte.
        var writer = TLSWriter()
        writer.writeVector([UInt16(1), UInt16(0x0203)])
        var reader = TLSReader(writer.bytes)
        #expect(try reader.readVector(of: UInt16.self) == [1, 0x0203])
        var bad = TLSReader([0x03, 0x00, 0x01, 0x02])
        #expect(throws: TLSDecodingError.truncated(needed: 2, available: 1)) { _ = try bad.readVector(of: UInt16.self) }
    }

    @Test func groupContextRoundTrips() throws {
        let context = GroupContext(
            cipherSuite: .mls128X25519AES128GCMSHA256Ed25519, groupID: GroupID(Data([1, 2, 3])), epoch: 7,
            treeHash: Data(repeating: 0xaa, count: 32), confirmedTranscriptHash: Data(repeating: 0xbb, count: 32),
            extensions: [Extension(type: .marmotGroupData, data: Data([9, 9]))])
        let decoded = try GroupContext(tlsSerialized: context.tlsSerialized)
        #expect(decoded == context)
    }
}
