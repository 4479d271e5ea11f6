import Foundation
import MLS
import Nostr
import Testing
@testable import Marmot

/// The stored form of a group's open forks (`StoredBranches`): what goes in comes back, and a
/// damaged record is refused with an error, never a crash.
@Suite struct StoredBranchesTests {
    @Test func aRecordReadsBackAsWritten() throws {
        let keys = Keys.generate()
        let group = try MLSGroup.create(
            groupID: GroupID(CipherSuiteProvider.mls128X25519.randomBytes(16)),
            signer: CipherSuiteProvider.mls128X25519.generateSignatureKey(),
            credential: NostrIdentity.credential(keys.publicKey), capabilities: .marmotDefault(grease: true),
            configuration: .marmot)
        let commit = try UnsignedEvent(pubkey: keys.publicKey, createdAt: 1_700_000_000, kind: .groupMessage, tags: [], content: "c")
            .signed(with: keys)
        var branch = AlternateBranch(
            forkEpoch: 4, snapshot: EpochSnapshot(epoch: 4, state: group.serialized(), commit: commit, orderingKey: nil), mls: group)
        branch.sentSinceFork = [commit.id]
        branch.witnesses = [5: [Data(repeating: 1, count: 32), Data(repeating: 2, count: 32)]]
        let record = StoredBranches(alternates: [branch], witnesses: [5: [Data(repeating: 3, count: 32)]])
        let read = try StoredBranches(encoded: record.encoded())
        #expect(read.witnesses == record.witnesses)
        #expect(read.alternates.count == 1)
        #expect(read.alternates[0].forkEpoch == 4)
        #expect(read.alternates[0].snapshot.commitEventID == commit.id)
        #expect(read.alternates[0].mls.epochAuthenticator == group.epochAuthenticator)
        #expect(read.alternates[0].sentSinceFork == [commit.id])
        #expect(read.alternates[0].witnesses == branch.witnesses)
        #expect(read.encoded() == record.encoded())
    }

    /// A branch that grew keeps its path (the states after the fork below its tip, with their
    /// commits and keys); a record written before paths were stored (version 1) still reads.
    @Test func aPathReadsBackAndARecordWithoutPathsStillReads() throws {
        let keys = Keys.generate()
        let signer = CipherSuiteProvider.mls128X25519.generateSignatureKey()
        var group = try MLSGroup.create(
            groupID: GroupID(CipherSuiteProvider.mls128X25519.randomBytes(16)), signer: signer,
            credential: NostrIdentity.credential(keys.publicKey), capabilities: .marmotDefault(grease: true),
            configuration: .marmot)
        let event = { (content: String) in
            try UnsignedEvent(pubkey: keys.publicKey, createdAt: 1_700_000_000, kind: .groupMessage, tags: [], content: content)
                .signed(with: keys)
        }
        let fork = group
        let first = try group.selfUpdate(signerRotation: SignerRotation(signer: CipherSuiteProvider.mls128X25519.generateSignatureKey()))
        var branch = AlternateBranch(
            forkEpoch: fork.epoch, snapshot: EpochSnapshot(epoch: fork.epoch, state: fork.serialized(), commit: try event("c1"), orderingKey: nil),
            mls: first.newGroup)
        var tip = first.newGroup
        let second = try tip.selfUpdate(signerRotation: SignerRotation(signer: CipherSuiteProvider.mls128X25519.generateSignatureKey()))
        branch = branch.growing(by: try event("c2"), key: nil, to: second.newGroup)
        #expect(branch.mls.epoch == fork.epoch + 2)
        #expect(branch.path.map(\.epoch) == [fork.epoch + 1])
        #expect(branch.pathKeys.keys.sorted() == [fork.epoch + 1])

        let record = StoredBranches(alternates: [branch], witnesses: [:])
        let read = try StoredBranches(encoded: record.encoded())
        #expect(read.alternates[0].path.map(\.commitEventID) == branch.path.map(\.commitEventID))
        #expect(read.alternates[0].path[0].state == first.newGroup.serialized())
        var book = BranchBook()
        try book.restore(record.encoded())
        #expect(book.alternates[0].pathKeys == branch.pathKeys, "keys are derived again from the stored states")

        // Version 1: the same record without the path count after each branch.
        let plain = StoredBranches(alternates: [AlternateBranch(forkEpoch: branch.forkEpoch, snapshot: branch.snapshot, mls: branch.mls)], witnesses: [:])
        var old = plain.encoded().dropLast(1)
        old[old.startIndex] = 1
        let oldRead = try StoredBranches(encoded: Data(old))
        #expect(oldRead.alternates.count == 1 && oldRead.alternates[0].path.isEmpty)
        #expect(oldRead.alternates[0].mls.epochAuthenticator == branch.mls.epochAuthenticator)
    }

    @Test func aDamagedRecordIsRefused() throws {
        let record = StoredBranches(alternates: [], witnesses: [1: [Data(repeating: 9, count: 32)]]).encoded()
        for cut in 0..<record.count {
            #expect(throws: (any Error).self) { _ = try StoredBranches(encoded: record.prefix(cut)) }
        }
        var wrongVersion = record
        wrongVersion[0] = 9
        #expect(throws: (any Error).self) { _ = try StoredBranches(encoded: wrongVersion) }
    }
}
