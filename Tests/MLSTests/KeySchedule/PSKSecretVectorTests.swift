import Foundation
import Testing
import TestSupport
@testable import MLS

/// `psk_secret.json`: psk_secret chaining over 0 to 10 external PSKs (RFC 9420 §8.4).
struct PSKSecretVector: Decodable, Sendable, CustomTestStringConvertible {
    struct PSK: Decodable, Sendable { let psk_id: String; let psk: String; let psk_nonce: String }
    let cipher_suite: UInt16
    let psks: [PSK]
    let psk_secret: String

    var testDescription: String { "suite \(cipher_suite), \(psks.count) PSKs" }

    static let suite1: [PSKSecretVector] = {
        let cases = (try? SharedFixtures.loadJSON([PSKSecretVector].self, "mls/psk_secret.json")) ?? nil
        let mine = (cases ?? []).filter { $0.cipher_suite == 1 }
        SharedFixtures.report(
            "mls/psk_secret.json", ran: mine.count, skipped: (cases?.count ?? 0) - mine.count,
            reason: "other cipher suites")
        return mine
    }()
}

struct PSKSecretVectorTests {
    let schedule = KeySchedule(.mls128X25519)

    @Test func vectorFileHasSuite1() {
        guard SharedFixtures.shouldRun else { return }
        #expect(PSKSecretVector.suite1.count == 11)
    }

    @Test(arguments: PSKSecretVector.suite1)
    func pskSecretMatches(_ v: PSKSecretVector) throws {
        let psks = try v.psks.map { entry in
            (id: PreSharedKeyID(kind: .external(pskID: try hex(entry.psk_id)), nonce: try hex(entry.psk_nonce)),
             psk: try hex(entry.psk))
        }
        #expect(try schedule.pskSecret(psks) == (try hex(v.psk_secret)))
    }

    @Test func noPSKsGiveZeros() throws {
        #expect(try schedule.pskSecret([]) == Data(count: 32))
    }

    @Test func pskCountIsBoundedByUInt16() {
        let id = PreSharedKeyID(kind: .external(pskID: Data([1])), nonce: Data(count: 32))
        let many = Array(repeating: (id: id, psk: Data([2])), count: Int(UInt16.max) + 1)
        #expect(throws: KeyScheduleError.tooManyPSKs(many.count)) { try schedule.pskSecret(many) }
    }
}
