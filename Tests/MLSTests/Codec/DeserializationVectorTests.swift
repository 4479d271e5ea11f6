import Foundation
import Testing
import TestSupport
@testable import MLS

/// `deserialization.json`: variable-length vector headers (RFC 9420 §2.1.2).
struct DeserializationVector: Decodable, Sendable, CustomTestStringConvertible {
    let vlbytes_header: String
    let length: Int

    var testDescription: String { "\(vlbytes_header) → \(length)" }

    static let all: [DeserializationVector] = {
        let cases = (try? SharedFixtures.loadJSON([DeserializationVector].self, "mls/deserialization.json")) ?? nil
        SharedFixtures.report("mls/deserialization.json", ran: cases?.count ?? 0, skipped: 0, reason: "none")
        return cases ?? []
    }()
}

struct DeserializationVectorTests {
    @Test func vectorFileLoads() {
        guard SharedFixtures.shouldRun else { return }
        #expect(DeserializationVector.all.count == 14)
    }

    @Test(arguments: DeserializationVector.all)
    func headerDecodesToLength(_ v: DeserializationVector) throws {
        let header = try #require(Data(testHex: v.vlbytes_header))
        var reader = TLSReader(header)
        #expect(try reader.readVarint() == v.length)
        try reader.finish()
        var writer = TLSWriter()
        writer.writeVarint(v.length)
        #expect(writer.data == header)
    }
}
