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
        let snapshot = EpochSnapshot(epoch: 4, state: Data([1, 2, 3]), commit: applied, orderingKey: nil)
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
        let key = Self.key(.privileged, committer: 3, digest: 4)
        let snapshot = EpochSnapshot(
            epoch: 7, state: Data(repeating: 9, count: 300), commit: event, orderingKey: key, anchorCreatedAt: event.createdAt + 5)
        let decoded = try EpochSnapshot(encoded: snapshot.encoded())
        #expect(decoded.epoch == 7)
        #expect(decoded.state == snapshot.state)
        #expect(decoded.commitEventID == event.id)
        #expect(decoded.commitCreatedAt == event.createdAt)
        #expect(decoded.contentHash == snapshot.contentHash)
        #expect(decoded.orderingKey == key)
        #expect(decoded.anchorCreatedAt == event.createdAt + 5)
        #expect(throws: (any Error).self) { _ = try EpochSnapshot(encoded: snapshot.encoded() + Data([0])) }
        #expect(throws: (any Error).self) { _ = try EpochSnapshot(encoded: Data([3]) + snapshot.encoded().dropFirst()) }
    }

    /// A snapshot stored by the previous version (1: no key, no anchor) still decodes; its anchor is
    /// its commit's created_at.
    @Test func versionOneSnapshotStillDecodes() throws {
        let event = try Self.commit(createdAt: 1_700_000_000)
        var w = TLSWriter(capacity: 128)
        w.write(UInt8(1))
        w.write(UInt64(3))
        w.writeOpaque(Data([7, 7]))
        w.writeFixed(event.id.bytes)
        w.write(UInt64(bitPattern: event.createdAt))
        w.writeOpaque(EpochSnapshot.contentHash(event))
        let decoded = try EpochSnapshot(encoded: w.data)
        #expect(decoded.epoch == 3)
        #expect(decoded.commitEventID == event.id)
        #expect(decoded.orderingKey == nil)
        #expect(decoded.anchorCreatedAt == event.createdAt)
    }

    static func key(_ priority: CommitPriority, committer: UInt8, digest: UInt8) -> CommitOrderingKey {
        CommitOrderingKey(
            sourceEpoch: 4, priority: priority, committer: Data(repeating: committer, count: 32),
            digest: Data(repeating: digest, count: 32))
    }

    /// v1: MDK 0.8.0's date rule inside the back-dating bound, refused beyond it (measured from the
    /// first wrapper applied, which re-wrapped copies never move); copies move the reference only
    /// within the bound.
    @Test func v1RaceRuleIsBoundedBackDating() throws {
        let rules = V1GroupRules()
        let applied = try Self.commit(createdAt: 10_000)
        let snapshot = EpochSnapshot(epoch: 4, state: Data([1]), commit: applied, orderingKey: nil)
        let key = Self.key(.ordinary, committer: 1, digest: 1)
        #expect(rules.race(try Self.commit(createdAt: 9_990), key: key, against: snapshot) == .wins)
        #expect(rules.race(try Self.commit(createdAt: 10_000 - V1GroupRules.backdatingBound), key: key, against: snapshot) == .wins)
        #expect(rules.race(try Self.commit(createdAt: 10_010), key: key, against: snapshot) == .loses)
        let beyond = rules.race(try Self.commit(createdAt: 10_000 - V1GroupRules.backdatingBound - 1), key: key, against: snapshot)
        if case .refused = beyond {} else { Issue.record("a competitor beyond the bound was \(beyond)") }
        let near = try Self.commit(createdAt: 9_800, content: applied.content)
        let moved = try #require(rules.raceReference(snapshot, afterCopy: near))
        #expect(moved.commitEventID == near.id)
        #expect(moved.anchorCreatedAt == 10_000)
        #expect(rules.raceReference(moved, afterCopy: try Self.commit(createdAt: 9_600, content: applied.content)) == nil)
        let walked = rules.race(try Self.commit(createdAt: 9_650), key: key, against: moved)
        if case .refused = walked {} else { Issue.record("the bound moved with a re-wrapped copy: \(walked)") }
    }

    /// v2: the ordering key alone decides (privileged first, then committer, then digest); dates
    /// never matter and copies never move anything.
    @Test func v2RaceRuleIsTheOrderingKey() throws {
        let rules = V2GroupRules()
        let applied = try Self.commit(createdAt: 10_000)
        let snapshot = EpochSnapshot(
            epoch: 4, state: Data([1]), commit: applied, orderingKey: Self.key(.ordinary, committer: 5, digest: 5))
        #expect(rules.race(try Self.commit(createdAt: 1), key: Self.key(.ordinary, committer: 6, digest: 0), against: snapshot) == .loses)
        #expect(rules.race(try Self.commit(createdAt: 99_999), key: Self.key(.privileged, committer: 9, digest: 9), against: snapshot) == .wins)
        #expect(rules.race(try Self.commit(createdAt: 10_000), key: Self.key(.ordinary, committer: 5, digest: 4), against: snapshot) == .wins)
        #expect(rules.raceReference(snapshot, afterCopy: try Self.commit(createdAt: 1, content: applied.content)) == nil)
        let unkeyed = EpochSnapshot(epoch: 4, state: Data([1]), commit: applied, orderingKey: nil)
        #expect(rules.race(try Self.commit(createdAt: 1), key: Self.key(.privileged, committer: 0, digest: 0), against: unkeyed) == .loses)
    }

    /// v2: branch selection before the keys (MDK 0.9.14 `select_canonical_branch`): traffic on our
    /// branch or a further commit keeps it against a competitor with a better key; a witness quorum
    /// (two senders in one epoch) on the other branch outweighs one sender on ours, one sender
    /// there does not outweigh one here, and shared history (the fork epoch) never counts.
    @Test func v2BranchSelectionCountsDepthAndWitnesses() throws {
        let rules = V2GroupRules()
        let applied = try Self.commit(createdAt: 10_000)
        let ours = Self.key(.ordinary, committer: 5, digest: 5)
        let better = Self.key(.privileged, committer: 1, digest: 1)
        let snapshot = EpochSnapshot(epoch: 4, state: Data([1]), commit: applied, orderingKey: ours)
        let competitor = try Self.commit(createdAt: 1)
        let (a, b, c) = (Data([0xA]), Data([0xB]), Data([0xC]))
        func branches(_ current: (UInt64, [UInt64: Set<Data>]), _ other: (UInt64, [UInt64: Set<Data>])) -> CompetingBranches {
            CompetingBranches(forkEpoch: 4, current: (current.0, ours, current.1), other: (other.0, better, other.1))
        }
        #expect(rules.race(competitor, key: better, against: snapshot, branches: branches((5, [:]), (5, [:]))) == .wins)
        #expect(rules.race(competitor, key: better, against: snapshot, branches: branches((5, [5: [a]]), (5, [:]))) == .loses)
        #expect(rules.race(competitor, key: better, against: snapshot, branches: branches((5, [4: [a, b]]), (5, [:]))) == .wins)
        #expect(rules.race(competitor, key: better, against: snapshot, branches: branches((6, [:]), (5, [:]))) == .loses)

        let alternate = EpochSnapshot(epoch: 4, state: Data([1]), commit: competitor, orderingKey: better)
        let worse = EpochSnapshot(epoch: 4, state: Data([1]), commit: competitor, orderingKey: Self.key(.ordinary, committer: 9, digest: 9))
        /// Whether the kept branch `other` (`depth` commits deep) is selected over ours (one
        /// commit from epoch 4, our state at epoch `tip`) with these witnesses.
        func follows(
            _ other: EpochSnapshot, _ current: [UInt64: Set<Data>], _ theirs: [UInt64: Set<Data>], depth: UInt64 = 5, tip: UInt64 = 5
        ) throws -> Bool {
            let ourPath = try (5..<tip).map { EpochSnapshot(epoch: $0, state: Data([1]), commit: try Self.commit(createdAt: 1), orderingKey: ours) }
            var held = HeldBranches(from: 4, tip: tip, snapshots: [snapshot] + ourPath, steps: [], witnesses: current)
            let path = try (5..<depth).map { EpochSnapshot(epoch: $0, state: Data([1]), commit: try Self.commit(createdAt: 1), orderingKey: other.orderingKey) }
            held.addCandidate(
                AlternateBranch(forkEpoch: 4, snapshot: other, mls: BranchBookTests.group, witnesses: theirs, path: path), steps: [])
            return rules.pick(held) == .candidate
        }
        #expect(try follows(worse, [:], [5: [b]]), "traffic only there")
        #expect(try !follows(worse, [5: [a]], [5: [b]]), "one sender each: the keys decide")
        #expect(try follows(alternate, [5: [a]], [5: [b]]), "one sender each, and its key is better")
        #expect(try follows(worse, [5: [a]], [5: [b, c]]), "a quorum there against one sender here")
        #expect(try !follows(worse, [5: [a, b]], [5: [c]]), "a quorum here")
        #expect(try follows(worse, [5: [a]], [:], depth: 6), "a deeper branch")
        #expect(try !follows(worse, [:], [:], depth: 11, tip: 10), "a fork 6 commits back is past the rewind horizon of 5")
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

extension GroupRules {
    /// The race of two single-commit branches without traffic (the per-commit rule alone).
    func race(_ competitor: Event, key: CommitOrderingKey, against applied: EpochSnapshot) -> RaceVerdict {
        race(competitor, key: key, against: applied, branches: CompetingBranches(
            forkEpoch: applied.epoch, current: (applied.epoch + 1, applied.orderingKey, [:]), other: (applied.epoch + 1, key, [:])))
    }
}
