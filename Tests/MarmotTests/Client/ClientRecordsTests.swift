import Foundation
import MLS
import Nostr
import Testing
@testable import Marmot

/// The client's stored records and the competing-commit rule (marmot-wire §5.7).
struct ClientRecordsTests {
    static func commit(createdAt: Int64, content: String = "Y29tbWl0") throws -> Event {
        let keys = Keys.generate()
        return try UnsignedEvent(pubkey: keys.publicKey, createdAt: createdAt, kind: .groupMessage,
                                 tags: [Tag(["h", String(repeating: "ab", count: 32)]), Tag(["encoding", "base64"])],
                                 content: content).signed(with: keys)
    }

    @Test func raceRuleComparesCreatedAtThenLowercaseHexID() throws {
        let applied = try Self.commit(createdAt: 1_000)
        let snapshot = EpochSnapshot(epoch: 4, state: Data([1, 2, 3]), commit: applied)
        #expect(snapshot.isBeaten(by: try Self.commit(createdAt: 999)))
        #expect(!snapshot.isBeaten(by: try Self.commit(createdAt: 1_001)))
        // Same second: the smaller id wins.
        var sameSecond: [Event] = []
        while sameSecond.count < 2 {
            let candidate = try Self.commit(createdAt: 1_000, content: "b3RoZXI=")
            if (candidate.id.hex < applied.id.hex) == sameSecond.isEmpty { sameSecond.append(candidate) }
        }
        #expect(snapshot.isBeaten(by: sameSecond[0]))
        #expect(!snapshot.isBeaten(by: sameSecond[1]))
        #expect(!snapshot.isBeaten(by: applied))
        // A replay has the same content hash.
        #expect(EpochSnapshot.contentHash(try Self.commit(createdAt: 5, content: applied.content)) == snapshot.contentHash)
    }

    @Test func snapshotRoundTripsAndRejectsGarbage() throws {
        let event = try Self.commit(createdAt: 1_700_000_000)
        let snapshot = EpochSnapshot(epoch: 7, state: Data(repeating: 9, count: 300), commit: event)
        let decoded = try EpochSnapshot(encoded: snapshot.encoded())
        #expect(decoded.epoch == 7)
        #expect(decoded.state == snapshot.state)
        #expect(decoded.commitEventID == event.id)
        #expect(decoded.commitCreatedAt == event.createdAt)
        #expect(decoded.contentHash == snapshot.contentHash)
        #expect(throws: (any Error).self) { _ = try EpochSnapshot(encoded: snapshot.encoded() + Data([0])) }
        #expect(throws: (any Error).self) { _ = try EpochSnapshot(encoded: Data([2]) + snapshot.encoded().dropFirst()) }
    }

    @Test func ownKeyPackageRecordRoundTrips() throws {
        let keys = Keys.generate()
        let made = try KeyPackage.create(
            identity: Data(keys.publicKey.bytes), keyPackageExtensions: [Extension(LastResortExtension())])
        let record = OwnKeyPackageRecord(keyPackage: made.keyPackage, privateMaterial: made.privateMaterial)
        let decoded = try OwnKeyPackageRecord(encoded: record.encoded())
        #expect(decoded.keyPackage == made.keyPackage)
        #expect(decoded.privateMaterial.matches(made.keyPackage))
        // Keys of another package do not pass as this one's.
        let other = try KeyPackage.create(identity: Data(keys.publicKey.bytes))
        let mixed = OwnKeyPackageRecord(keyPackage: made.keyPackage, privateMaterial: other.privateMaterial)
        #expect(throws: (any Error).self) { _ = try OwnKeyPackageRecord(encoded: mixed.encoded()) }
    }
}
