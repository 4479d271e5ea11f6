import Foundation
import Testing
@testable import MarmotWire

@Suite struct Base64Tests {
    @Test func roundTripsEveryLength() {
        for n in 0..<40 {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let text = Base64.encode(bytes)
            #expect(Base64.decode(text) == bytes)
        }
    }

    @Test(arguments: ["AAE", "AA==AAAA", "AA=A", "A===", "AB==", "AAF=", "AA-_", "AA A", "AAAA\n", "====", "A"])
    func rejectsNonCanonical(_ text: String) {
        #expect(Base64.decode(text) == nil)
    }

    @Test func acceptsCanonical() {
        #expect(Base64.decode("") == [])
        #expect(Base64.decode("AA==") == [0])
        #expect(Base64.decode("AAE=") == [0, 1])
        #expect(Base64.decode("+/+/") == [0xfb, 0xff, 0xbf])
    }
}
