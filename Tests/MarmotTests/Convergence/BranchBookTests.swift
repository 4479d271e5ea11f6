import Foundation
import MarmotWire
import MLS
import Nostr
import Testing
@testable import Marmot

/// One group's fork bookkeeping alone (issue 24): what is noted per epoch and on each open fork,
/// which forks traffic settles per version, what a rollback and a switch of branch keep and hand
/// back, and the stored record; no client, store or relay.
@Suite struct BranchBookTests {
    static let group: MLSGroup = {
        let keys = Keys.generate()
        return try! MLSGroup.create(
            groupID: GroupID(CipherSuiteProvider.mls128X25519.randomBytes(16)),
            signer: CipherSuiteProvider.mls128X25519.generateSignatureKey(),
            credential: NostrIdentity.credential(keys.publicKey), capabilities: .marmotDefault(grease: true),
            configuration: .marmot)
    }()

    /// A rumor or sender id made of one repeated byte.
    static func id(_ byte: UInt8) -> EventID { try! EventID(bytes: [UInt8](repeating: byte, count: 32)) }
    static func sender(_ byte: UInt8) -> Data { Data(repeating: byte, count: 32) }

    /// The snapshot of `epoch` with a commit event of its own (content `name`).
    static func snapshot(_ name: String, epoch: UInt64) throws -> EpochSnapshot {
        let signer = Keys.generate()
        let commit = try UnsignedEvent(pubkey: signer.publicKey, createdAt: 1_800_000_000, kind: .groupMessage, content: name)
            .signed(with: signer)
        return EpochSnapshot(epoch: epoch, state: Data("state \(name)".utf8), commit: commit, orderingKey: nil)
    }

    static func branch(_ name: String, fork: UInt64, witnesses: [UInt64: Set<Data>] = [:]) throws -> AlternateBranch {
        AlternateBranch(forkEpoch: fork, snapshot: try snapshot(name, epoch: fork), mls: group, witnesses: witnesses)
    }

    static func commits(_ book: BranchBook) -> [EventID] { book.alternates.map(\.snapshot.commitEventID) }

    // MARK: Per epoch

    @Test func witnessesReceivedAndSentKeepOnlyTheEpochsARollbackCanReach() {
        var book = BranchBook()
        for epoch: UInt64 in 1...7 {
            _ = book.noteWitness(Self.sender(UInt8(epoch)), epoch: epoch)
            _ = book.noteReceived(Self.id(UInt8(epoch)), epoch: epoch)
            book.noteSent(Self.id(UInt8(100 + epoch)), epoch: epoch)
        }
        // At epoch 7 the retained window (five snapshots) reaches back to epoch 3.
        #expect(EpochSnapshot.retained == 5)
        #expect(book.witnesses.keys.sorted() == [3, 4, 5, 6, 7])
        #expect(book.received.keys.sorted() == [3, 4, 5, 6, 7])
        #expect(book.sent.keys.sorted() == [3, 4, 5, 6, 7])
        #expect(book.witnesses[7] == [Self.sender(7)])
        #expect(book.received[3] == [Self.id(3)])
        #expect(book.sent[7] == [Self.id(107)])
        // Noting an older epoch again prunes against that epoch, not the newest.
        book.noteSent(Self.id(200), epoch: 7)
        #expect(book.sent[7] == [Self.id(107), Self.id(200)])
    }

    /// A new witness asks for a save with or without an open fork (a competing commit may come
    /// after a restart, issue 24); a sender already counted in that epoch does not.
    @Test func aWitnessAsksForASaveWhenNew() throws {
        var book = BranchBook()
        #expect(book.noteWitness(Self.sender(1), epoch: 4) == true)
        #expect(book.noteWitness(Self.sender(1), epoch: 4) == false)
        #expect(book.witnesses == [4: [Self.sender(1)]])
        book.keep(try Self.branch("other", fork: 3))
        #expect(book.noteWitness(Self.sender(2), epoch: 4) == true)
        #expect(book.noteWitness(Self.sender(2), epoch: 4) == false)
        #expect(book.witnesses == [4: [Self.sender(1), Self.sender(2)]])
    }

    @Test func othersMessagesGoToForksOlderThanTheirEpochAndOursToEveryFork() throws {
        var book = BranchBook()
        #expect(book.noteReceived(Self.id(1), epoch: 5) == false)
        #expect(book.noteSentOnForks(Self.id(2)) == false)
        let three = try Self.branch("three", fork: 3)
        let five = try Self.branch("five", fork: 5)
        book.keep(three)
        book.keep(five)
        #expect(book.noteReceived(Self.id(10), epoch: 5) == true)
        #expect(book.noteReceived(Self.id(11), epoch: 6) == true)
        #expect(book.noteSentOnForks(Self.id(20)) == true)
        #expect(book.alternates[0].receivedSinceFork == [Self.id(10), Self.id(11)])
        #expect(book.alternates[1].receivedSinceFork == [Self.id(11)])
        #expect(book.alternates[0].sentSinceFork == [Self.id(20)])
        #expect(book.alternates[1].sentSinceFork == [Self.id(20)])
        #expect(book.received == [5: [Self.id(1), Self.id(10)], 6: [Self.id(11)]])
    }

    @Test func sinceAForkIsWhatFollowsItOldestEpochFirst() {
        var book = BranchBook()
        _ = book.noteReceived(Self.id(3), epoch: 3)
        _ = book.noteReceived(Self.id(5), epoch: 5)
        _ = book.noteReceived(Self.id(4), epoch: 4)
        _ = book.noteReceived(Self.id(41), epoch: 4)
        book.noteSent(Self.id(50), epoch: 5)
        book.noteSent(Self.id(30), epoch: 3)
        let since = book.sinceFork(3)
        #expect(since.received == [Self.id(4), Self.id(41), Self.id(5)])
        #expect(since.sent == [Self.id(50)])
        #expect(book.sinceFork(5).received.isEmpty)
    }

    // MARK: Forks

    @Test func atMostFourAlternatesAreKeptNewestLastAndTheSameBranchReplacesItsCopy() throws {
        var book = BranchBook()
        var kept: [AlternateBranch] = []
        for index in 0..<5 {
            let branch = try Self.branch("b\(index)", fork: 3)
            kept.append(branch)
            book.keep(branch)
        }
        #expect(BranchBook.maxAlternates == 4)
        #expect(Self.commits(book) == kept[1...].map(\.snapshot.commitEventID))
        var again = kept[2]
        again.witnesses = [4: [Self.sender(9)]]
        book.keep(again)
        #expect(Self.commits(book) == [kept[1], kept[3], kept[4], kept[2]].map(\.snapshot.commitEventID))
        #expect(book.alternates.last?.witnesses == [4: [Self.sender(9)]])
        // The same commit from another fork epoch is another branch.
        let elsewhere = AlternateBranch(forkEpoch: 4, snapshot: kept[4].snapshot, mls: Self.group)
        book.keep(elsewhere)
        #expect(book.alternates.map(\.forkEpoch) == [3, 3, 3, 4])
        #expect(Self.commits(book) == [kept[3], kept[4], kept[2], kept[4]].map(\.snapshot.commitEventID))
    }

    @Test func aBranchIsRemovedAndUpdatedOnlyByItsForkEpochAndCommit() throws {
        var book = BranchBook()
        let a = try Self.branch("a", fork: 3)
        let b = try Self.branch("b", fork: 3)
        book.keep(a)
        book.keep(b)
        #expect(book.noteWitness(Self.sender(1), epoch: 4, on: b) == true)
        #expect(book.noteWitness(Self.sender(1), epoch: 4, on: b) == false)
        #expect(book.alternates[1].witnesses == [4: [Self.sender(1)]])
        #expect(book.alternates[0].witnesses.isEmpty)
        let unknown = try Self.branch("unknown", fork: 3)
        #expect(book.noteWitness(Self.sender(2), epoch: 4, on: unknown) == false)
        book.removeAlternate(forkEpoch: 4, commit: a.snapshot.commitEventID)
        #expect(Self.commits(book) == [a, b].map(\.snapshot.commitEventID))
        book.removeAlternate(forkEpoch: 3, commit: a.snapshot.commitEventID)
        #expect(Self.commits(book) == [b.snapshot.commitEventID])
        book.removeAlternate(forkEpoch: 3, commit: b.snapshot.commitEventID)
        #expect(book.hasOpenFork == false)
        #expect(book.record == nil, "nothing open and no witness")
    }

    @Test func v1ClosesAForkOnTheFirstTrafficPastIt() throws {
        var book = BranchBook()
        book.keep(try Self.branch("three", fork: 3))
        book.keep(try Self.branch("five", fork: 5))
        #expect(book.closeSettledForks(trafficEpoch: 3, rules: V1GroupRules()) == false)
        #expect(book.alternates.count == 2)
        #expect(book.closeSettledForks(trafficEpoch: 4, rules: V1GroupRules()) == true)
        #expect(book.alternates.map(\.forkEpoch) == [5])
        #expect(book.closeSettledForks(trafficEpoch: 6, rules: V1GroupRules()) == true)
        #expect(book.hasOpenFork == false)
    }

    @Test func v2KeepsAForkOpenUntilTrafficIsPastTheRewindHorizon() throws {
        let horizon = ConvergencePolicy.v1.maxRewindCommits
        var book = BranchBook()
        book.keep(try Self.branch("three", fork: 3))
        #expect(book.closeSettledForks(trafficEpoch: 4, rules: V2GroupRules()) == false)
        #expect(book.closeSettledForks(trafficEpoch: 3 + horizon, rules: V2GroupRules()) == false)
        #expect(book.alternates.map(\.forkEpoch) == [3])
        #expect(book.closeSettledForks(trafficEpoch: 3 + horizon + 1, rules: V2GroupRules()) == true)
        #expect(book.hasOpenFork == false)
    }

    // MARK: Rollback and switch

    @Test func aRollbackKeepsTheBranchWeLeaveAndHandsBackWhatFollowedTheFork() throws {
        var book = BranchBook()
        for epoch: UInt64 in 2...5 { _ = book.noteWitness(Self.sender(UInt8(epoch)), epoch: epoch) }
        _ = book.noteReceived(Self.id(3), epoch: 3)
        _ = book.noteReceived(Self.id(4), epoch: 4)
        _ = book.noteReceived(Self.id(5), epoch: 5)
        book.noteSent(Self.id(33), epoch: 3)
        book.noteSent(Self.id(44), epoch: 4)
        let ours = try Self.snapshot("ours", epoch: 3)
        let left = book.leaving(at: 3, snapshot: ours, mls: Self.group)
        #expect(left.forkEpoch == 3)
        #expect(left.snapshot.commitEventID == ours.commitEventID)
        #expect(left.witnesses == [4: [Self.sender(4)], 5: [Self.sender(5)]])
        book.keep(left)
        let dropped = book.rollBack(to: 3)
        #expect(dropped.invalidate == [Self.id(4), Self.id(5)])
        #expect(dropped.resend == [Self.id(44)])
        #expect(book.witnesses == [2: [Self.sender(2)], 3: [Self.sender(3)]])
        #expect(book.received == [3: [Self.id(3)]])
        #expect(book.sent == [3: [Self.id(33)]])
        #expect(Self.commits(book) == [ours.commitEventID])
        #expect(book.alternates[0].witnesses == [4: [Self.sender(4)], 5: [Self.sender(5)]])
    }

    @Test func followingABranchSwapsItWithTheOneWeLeave() throws {
        var book = BranchBook()
        let older = try Self.branch("older", fork: 2)
        let followed = try Self.branch("followed", fork: 3, witnesses: [3: [Self.sender(30)], 4: [Self.sender(40)]])
        book.keep(older)
        book.keep(followed)
        _ = book.noteWitness(Self.sender(3), epoch: 3)
        _ = book.noteWitness(Self.sender(4), epoch: 4)
        _ = book.noteReceived(Self.id(4), epoch: 4)
        book.noteSent(Self.id(44), epoch: 4)
        let ours = try Self.snapshot("ours", epoch: 3)
        book.follow(followed, leaving: ours, mls: Self.group)
        #expect(Self.commits(book) == [older.snapshot.commitEventID, ours.commitEventID])
        #expect(book.alternates[1].forkEpoch == 3)
        #expect(book.alternates[1].witnesses == [4: [Self.sender(4)]])
        #expect(book.alternates[1].receivedSinceFork.isEmpty)
        #expect(book.alternates[1].sentSinceFork.isEmpty)
        // At or before the fork ours stay; after it the followed branch's.
        #expect(book.witnesses == [3: [Self.sender(3)], 4: [Self.sender(40)]])
        #expect(book.received.isEmpty)
        #expect(book.sent == [4: [Self.id(44)]])
    }

    @Test func followingAddsNoAlternateWithoutAnotherAppliedCommit() throws {
        let followed = try Self.branch("followed", fork: 3)
        var unconfirmed = BranchBook()
        unconfirmed.keep(followed)
        unconfirmed.follow(followed, leaving: nil, mls: Self.group)
        #expect(unconfirmed.hasOpenFork == false)
        var same = BranchBook()
        same.keep(followed)
        same.follow(followed, leaving: followed.snapshot, mls: Self.group)
        #expect(same.hasOpenFork == false)
    }

    @Test func followingKeepsOnlyTheNewestFourAlternates() throws {
        var book = BranchBook()
        var kept: [AlternateBranch] = []
        for index in 0..<4 {
            let branch = try Self.branch("b\(index)", fork: 3)
            kept.append(branch)
            book.keep(branch)
        }
        let ours = try Self.snapshot("ours", epoch: 3)
        book.follow(kept[0], leaving: ours, mls: Self.group)
        #expect(Self.commits(book) == [kept[1], kept[2], kept[3]].map(\.snapshot.commitEventID) + [ours.commitEventID])
    }

    // MARK: Persistence

    @Test func theRecordIsTheStoredBranchesEncodingAndReadsBackToTheSameBytes() throws {
        var book = BranchBook()
        #expect(book.record == nil)
        _ = book.noteWitness(Self.sender(1), epoch: 4)
        #expect(try StoredBranches(encoded: try #require(book.record)).witnesses == [4: [Self.sender(1)]])
        var branch = try Self.branch("other", fork: 3, witnesses: [4: [Self.sender(2), Self.sender(3)]])
        branch.sentSinceFork = [Self.id(7)]
        book.keep(branch)
        _ = book.noteReceived(Self.id(8), epoch: 4)
        book.noteSent(Self.id(9), epoch: 4)
        let record = try #require(book.record)
        #expect(record == StoredBranches(alternates: book.alternates, witnesses: book.witnesses).encoded())
        var restored = BranchBook()
        try restored.restore(record)
        #expect(restored.record == record)
        #expect(Self.commits(restored) == [branch.snapshot.commitEventID])
        #expect(restored.alternates[0].sentSinceFork == [Self.id(7)])
        #expect(restored.alternates[0].receivedSinceFork == [Self.id(8)])
        #expect(restored.witnesses == [4: [Self.sender(1)]])
        // Received and sent ids live only for the run.
        #expect(restored.received.isEmpty)
        #expect(restored.sent.isEmpty)
    }

    @Test func aRecordThatDoesNotReadChangesNothing() throws {
        var book = BranchBook()
        book.keep(try Self.branch("other", fork: 3))
        _ = book.noteWitness(Self.sender(1), epoch: 4)
        let before = try #require(book.record)
        #expect(throws: (any Error).self) { try book.restore(before.prefix(before.count - 1)) }
        #expect(book.record == before)
    }

    /// A kept branch's group-event key is derived once, when it is kept, and derived again when its
    /// state moves (a commit grows it): the peeler asks for it on every event.
    @Test func aKeptBranchDerivesItsEventKeyOnceAndAgainWhenItsStateMoves() throws {
        var book = BranchBook()
        book.keep(try Self.branch("x", fork: 1))
        let kept = try #require(book.alternates.first)
        let expected = try GroupEventKey(exporter: { try Self.group.exporter(label: $0, context: $1, length: $2) })
        #expect(kept.tipEventKey == expected)
        #expect(try kept.eventKey() == expected)

        var current = Self.group
        let next = try current.commit(forceUpdatePath: true).newGroup
        var moved = kept
        moved.mls = next
        #expect(moved.tipEventKey == nil)
        let nextKey = try GroupEventKey(exporter: { try next.exporter(label: $0, context: $1, length: $2) })
        #expect(try moved.eventKey() == nextKey)
        #expect(nextKey != expected)
    }
}
