import Foundation
import TestSupport
@testable import Nostr

/// Small helpers shared by the Nostr tests.
enum TestVectors {
    /// Lower-cased hex to bytes; fails the caller's `#require` when malformed.
    static func bytes(_ hex: String) -> [UInt8]? {
        Data(testHex: hex).map { Array($0) }
    }

    /// One row of bip340-test-vectors.csv.
    struct BIP340Row: Sendable, CustomStringConvertible {
        let index: Int
        let secretKey: String
        let publicKey: String
        let auxRand: String
        let message: String
        let signature: String
        let expected: Bool
        let comment: String
        var description: String { "BIP-340 row \(index)" }
    }

    /// The BIP-340 rows, or [] when the shared folder is absent outside CI.
    static func bip340Rows() throws -> [BIP340Row] {
        guard SharedFixtures.shouldRun else { return [] }
        let text = String(decoding: try SharedFixtures.vectorData("nostr/bip340-test-vectors.csv"), as: UTF8.self)
        var rows = [BIP340Row]()
        for line in text.split(whereSeparator: \.isNewline).dropFirst() {
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard f.count == 8, let index = Int(f[0]) else { throw FixtureError.malformed("bip340 line \(line)") }
            rows.append(BIP340Row(index: index, secretKey: f[1].lowercased(), publicKey: f[2].lowercased(),
                                  auxRand: f[3].lowercased(), message: f[4].lowercased(), signature: f[5].lowercased(),
                                  expected: f[6] == "TRUE", comment: f[7]))
        }
        return rows
    }
}

/// `Testing` also exports a `Tag`; inside this test module the name means the Nostr tag.
typealias Tag = Nostr.Tag
