import Foundation
import MLS
import Nostr
import Testing
@testable import Marmot

/// The race decision alone (issue 24): the applied commit's snapshot, the competitor, its key, the
/// branches and our epoch in, what to do out (replay, refused, kept as the alternate, roll back);
/// no client, store or MLS processing.
@Suite struct CompetingCommitRaceTests {
    static let fork: UInt64 = 3
    static let appliedAt: Int64 = 1_800_000_000

    /// A kind-445 wrapper of `content` dated `createdAt`, signed by a key made for it (as commits are).
    static func wrapper(_ content: String, at createdAt: Int64) throws -> Event {
        let signer = Keys.generate()
        return try UnsignedEvent(pubkey: signer.publicKey, createdAt: createdAt, kind: .groupMessage, content: content)
            .signed(with: signer)
    }

    static func key(_ priority: CommitPriority = .ordinary, committer: UInt8, digest: UInt8 = 0) -> CommitOrderingKey {
        CommitOrderingKey(
            sourceEpoch: fork, priority: priority, committer: Data(repeating: committer, count: 32),
            digest: Data(repeating: digest, count: 32))
    }

    /// The applied commit of the fork epoch (content "applied", dated `appliedAt`) with its snapshot.
    struct Applied {
        let event: Event
        let snapshot: EpochSnapshot

        init(key: CommitOrderingKey? = CompetingCommitRaceTests.key(committer: 5)) throws {
            event = try CompetingCommitRaceTests.wrapper("applied", at: CompetingCommitRaceTests.appliedAt)
            snapshot = EpochSnapshot(epoch: CompetingCommitRaceTests.fork, state: Data("fork state".utf8), commit: event, orderingKey: key)
        }
    }

    /// Our branch at `tip` with `witnesses`, against the competitor's one commit.
    static func branches(
        applied: EpochSnapshot, competitor: CommitOrderingKey, tip: UInt64 = fork + 1, witnesses: [UInt64: Set<Data>] = [:]
    ) -> CompetingBranches {
        CompetingBranches(forkEpoch: fork, current: (tip, applied.orderingKey, witnesses), other: (fork + 1, competitor, [:]))
    }

    static func decide(
        _ rules: any GroupRules, _ applied: EpochSnapshot, _ competitor: Event, key: CommitOrderingKey,
        currentEpoch: UInt64 = fork + 1, witnesses: [UInt64: Set<Data>] = [:]
    ) -> CompetingCommitDecision {
        CompetingCommitRace(rules: rules, applied: applied, currentEpoch: currentEpoch)
            .decide(competitor, key: key, branches: branches(applied: applied, competitor: key, tip: currentEpoch, witnesses: witnesses))
    }

    // MARK: Replays

    @Test func theAppliedCommitAgainIsAReplayAndOnlyAnEarlierV1CopyInsideTheBoundMovesTheReference() throws {
        let applied = try Applied()
        let v1 = CompetingCommitRace(rules: V1GroupRules(), applied: applied.snapshot, currentEpoch: Self.fork + 1)
        let earlier = try Self.wrapper("applied", at: Self.appliedAt - 60)
        let moved = try #require(v1.replay(earlier))
        #expect(moved == .replay(movedReference: applied.snapshot.rewrapped(as: earlier)))
        if case .replay(let snapshot?) = moved {
            #expect(snapshot.commitEventID == earlier.id && snapshot.anchorCreatedAt == Self.appliedAt)
        }
        #expect(v1.replay(try Self.wrapper("applied", at: Self.appliedAt + 60)) == .replay(movedReference: nil))
        // A relay re-signing it far earlier does not walk the reference back past the bound.
        let backdated = try Self.wrapper("applied", at: Self.appliedAt - V1GroupRules.backdatingBound - 1)
        #expect(v1.replay(backdated) == .replay(movedReference: nil))
        // v2 ranks by protocol evidence: a wrapper never moves anything.
        let v2 = CompetingCommitRace(rules: V2GroupRules(), applied: applied.snapshot, currentEpoch: Self.fork + 1)
        #expect(v2.replay(earlier) == .replay(movedReference: nil))
        // `decide` recognises it first too, whatever key the caller passes.
        #expect(v2.decide(earlier, key: Self.key(.privileged, committer: 0), branches: Self.branches(
            applied: applied.snapshot, competitor: Self.key(.privileged, committer: 0))) == .replay(movedReference: nil))
        // Other content is no replay.
        #expect(v1.replay(try Self.wrapper("other", at: Self.appliedAt)) == nil)
    }

    // MARK: v1 (MDK 0.8.0: earliest created_at, then lowest id, with the back-dating bound)

    @Test func v1TheEarlierCompetitorRollsBackAndTheLaterOneIsKept() throws {
        let applied = try Applied()
        let key = Self.key(committer: 9)
        #expect(Self.decide(V1GroupRules(), applied.snapshot, try Self.wrapper("b", at: Self.appliedAt - 10), key: key) == .rollBack)
        #expect(Self.decide(V1GroupRules(), applied.snapshot, try Self.wrapper("b", at: Self.appliedAt + 10), key: key)
            == .keepAsAlternate(.lost))
        let tie = try Self.wrapper("b", at: Self.appliedAt)
        #expect(Self.decide(V1GroupRules(), applied.snapshot, tie, key: key)
            == (tie.id.hex < applied.event.id.hex ? .rollBack : .keepAsAlternate(.lost)))
    }

    @Test func v1ACompetitorDatedBeforeTheBoundIsRefusedEvenOnceTheReferenceMoved() throws {
        let applied = try Applied()
        let key = Self.key(committer: 9)
        let bound = V1GroupRules.backdatingBound
        #expect(Self.decide(V1GroupRules(), applied.snapshot, try Self.wrapper("b", at: Self.appliedAt - bound), key: key) == .rollBack)
        let tooEarly = Self.decide(V1GroupRules(), applied.snapshot, try Self.wrapper("b", at: Self.appliedAt - bound - 1), key: key)
        guard case .refused(let why) = tooEarly else {
            Issue.record("expected a refusal, got \(tooEarly)")
            return
        }
        #expect(why.contains("bound"))
        // The reference moved to an earlier copy; the bound stays measured from the first wrapper.
        let moved = applied.snapshot.rewrapped(as: try Self.wrapper("applied", at: Self.appliedAt - 200))
        guard case .refused = Self.decide(V1GroupRules(), moved, try Self.wrapper("b", at: Self.appliedAt - bound - 1), key: key) else {
            Issue.record("a moved reference let a back-dated competitor through")
            return
        }
        // A refusal stands whether or not our branch moved on.
        guard case .refused = Self.decide(
            V1GroupRules(), applied.snapshot, try Self.wrapper("b", at: Self.appliedAt - bound - 1), key: key,
            currentEpoch: Self.fork + 3)
        else {
            Issue.record("a back-dated competitor was kept")
            return
        }
    }

    @Test func aWinnerIsOnlyKeptOnceOurBranchCarriesAFurtherCommit() throws {
        let applied = try Applied()
        let earlier = try Self.wrapper("b", at: Self.appliedAt - 10)
        let key = Self.key(committer: 9)
        #expect(Self.decide(V1GroupRules(), applied.snapshot, earlier, key: key, currentEpoch: Self.fork + 1) == .rollBack)
        #expect(Self.decide(V1GroupRules(), applied.snapshot, earlier, key: key, currentEpoch: Self.fork + 2)
            == .keepAsAlternate(.branchBuiltUpon))
        #expect(CompetingCommitDecision.keepAsAlternate(.branchBuiltUpon).description == "arrived after the branch moved on")
    }

    // MARK: v2 (MDK 0.9.14: branch selection, dates never matter)

    @Test func v2TheLowerOrderingKeyWinsWhateverTheDates() throws {
        let applied = try Applied(key: Self.key(committer: 5))
        let lateButPrivileged = try Self.wrapper("b", at: Self.appliedAt + 3_600)
        #expect(Self.decide(V2GroupRules(), applied.snapshot, lateButPrivileged, key: Self.key(.privileged, committer: 9)) == .rollBack)
        let earlyButHigher = try Self.wrapper("c", at: Self.appliedAt - 3_600)
        #expect(Self.decide(V2GroupRules(), applied.snapshot, earlyButHigher, key: Self.key(committer: 9)) == .keepAsAlternate(.lost))
        #expect(Self.decide(V2GroupRules(), applied.snapshot, earlyButHigher, key: Self.key(committer: 1)) == .rollBack)
        // Same committer and priority: the digest decides.
        #expect(Self.decide(V2GroupRules(), applied.snapshot, earlyButHigher, key: Self.key(committer: 5, digest: 1))
            == .keepAsAlternate(.lost))
    }

    @Test func v2OurBranchsWitnessesOrDepthKeepIt() throws {
        let applied = try Applied(key: Self.key(committer: 5))
        let competitor = try Self.wrapper("b", at: Self.appliedAt)
        let lower = Self.key(.privileged, committer: 1)
        let quorum: [UInt64: Set<Data>] = [Self.fork + 1: [Data(repeating: 0xa, count: 32), Data(repeating: 0xb, count: 32)]]
        #expect(Self.decide(V2GroupRules(), applied.snapshot, competitor, key: lower, witnesses: quorum) == .keepAsAlternate(.lost))
        // Witnesses of the fork epoch or before are shared history and do not count.
        let shared: [UInt64: Set<Data>] = [Self.fork: [Data(repeating: 0xa, count: 32), Data(repeating: 0xb, count: 32)]]
        #expect(Self.decide(V2GroupRules(), applied.snapshot, competitor, key: lower, witnesses: shared) == .rollBack)
        // A deeper branch of ours is selected: the competitor lost (not merely arrived late).
        #expect(Self.decide(V2GroupRules(), applied.snapshot, competitor, key: lower, currentEpoch: Self.fork + 2)
            == .keepAsAlternate(.lost))
    }

    @Test func v2ASnapshotWithoutAKeyKeepsItsAppliedCommit() throws {
        let applied = try Applied(key: nil)
        let competitor = try Self.wrapper("b", at: Self.appliedAt - 10)
        #expect(Self.decide(V2GroupRules(), applied.snapshot, competitor, key: Self.key(.privileged, committer: 0))
            == .keepAsAlternate(.lost))
    }
}
