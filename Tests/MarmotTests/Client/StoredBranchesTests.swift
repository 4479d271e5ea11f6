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
