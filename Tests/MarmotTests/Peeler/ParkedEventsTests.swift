import Foundation
import MLS
import Nostr
import Testing
@testable import Marmot

/// A group's parked events alone (issue 24): the limit, when the record is stored, which events
/// count as waiting, the retry order and the stored record, with no client or store.
@Suite struct ParkedEventsTests {
    static let keys = Keys.generate()

    /// A signed kind-445 with `content`, made at `createdAt`.
    static func event(_ content: String, at createdAt: Int64 = 1_800_000_000) throws -> Event {
        try UnsignedEvent(pubkey: keys.publicKey, createdAt: createdAt, kind: .groupMessage, tags: [], content: content)
            .signed(with: keys)
    }

    @Test func anEventIsParkedOnceAndTheOldestGoBeyondTheLimit() throws {
        var parked = ParkedEvents(limit: 3)
        let events = try (0..<5).map { try Self.event("e\($0)", at: 1_800_000_000 + Int64($0)) }
        let first = parked.park(events[0], reason: .undecryptable)
        let again = parked.park(events[0], reason: .undecryptable)
        #expect(first)
        #expect(!again, "the same event again changes nothing")
        #expect(parked.count == 1)
        for event in events.dropFirst() { _ = parked.park(event, reason: .undecryptable) }
        #expect(parked.events.map(\.id) == events.suffix(3).map(\.id))
        parked.remove(events[3].id)
        #expect(parked.events.map(\.id) == [events[2].id, events[4].id])
    }

    /// Every park writes its own row and nothing else (no whole record rewritten, issue 46 N2).
    @Test func eachParkedEventIsARowOfItsOwn() throws {
        var parked = ParkedEvents(limit: 100)
        for index in 1...25 {
            #expect(parked.park(try Self.event("e\(index)"), reason: .undecryptable))
            let changes = parked.takeChanges()
            #expect(changes.added.count == 1 && changes.removed.isEmpty, "park \(index)")
        }
    }

    /// At the limit the count stays put: each new event adds one row and removes the oldest one's.
    @Test func atTheLimitEachParkAddsOneRowAndRemovesOne() throws {
        var parked = ParkedEvents(limit: 10)
        for index in 1...35 {
            #expect(parked.park(try Self.event("e\(index)"), reason: .undecryptable))
            let changes = parked.takeChanges()
            #expect(changes.added.count == 1 && changes.removed.count == (index > 10 ? 1 : 0), "park \(index)")
        }
        #expect(parked.count == 10)
    }

    /// Only an event that opened and waits for another (a commit for its proposal) counts: one held
    /// on a branch that is not selected has its disposition, and junk is anyone's.
    @Test func onlyEventsThatWaitForAnotherEventCountAsWaiting() throws {
        var parked = ParkedEvents(limit: 10)
        let proposal = try Self.event("commit waiting for its proposal")
        let branch = try Self.event("message of another branch")
        let junk = try Self.event("does not decrypt")
        _ = parked.park(proposal, reason: .mls(.missingProposal(ProposalRef(Data([1, 2, 3])))))
        _ = parked.park(branch, reason: .heldOnCompetingBranch("not selected"))
        _ = parked.park(junk, reason: .undecryptable)
        #expect(parked.waitingCount == 1)

        // The one that opened leaves; its waiting note goes with it once pruned.
        parked.remove(proposal.id)
        #expect(parked.waitingCount == 0)
        parked.pruneWaiting()
        _ = parked.park(proposal, reason: .undecryptable)
        #expect(parked.waitingCount == 0, "a pruned note does not come back with the event")
    }

    /// Beyond the limit, events that never opened go first, oldest first, however many come after
    /// one that opened (a commit waiting for its proposal, a message held on another branch): a
    /// stranger's junk cannot push those out (N8). Only when every parked event opened does the
    /// oldest of them go. What was pushed out is reported once, from its oldest `created_at`; held
    /// messages only when the group changed branches.
    @Test func junkPushesOutWhatNeverOpenedFirst() throws {
        var parked = ParkedEvents(limit: 3)
        let early = try Self.event("early message, its commit still to come", at: 1_800_000_050)
        let commit = try Self.event("commit waiting for its proposal", at: 1_800_000_100)
        let held = try Self.event("message of another branch", at: 1_800_000_200)
        _ = parked.park(early, reason: .undecryptable)
        _ = parked.park(commit, reason: .mls(.missingProposal(ProposalRef(Data([1, 2, 3])))))
        _ = parked.park(held, reason: .heldOnCompetingBranch("not selected"))
        #expect(parked.takePushedOut(heldToo: true) == nil)

        let junk = try (0..<5).map { try Self.event("junk \($0)", at: 1_800_000_300 + Int64($0)) }
        for event in junk { _ = parked.park(event, reason: .undecryptable) }
        #expect(parked.events.map(\.id) == [commit.id, held.id, junk[4].id])
        #expect(parked.waitingCount == 1)
        #expect(parked.takePushedOut(heldToo: false) == early.createdAt, "the early message was pushed out")
        #expect(parked.takePushedOut(heldToo: true) == nil, "reported once")

        // Every one opened: the oldest goes.
        let other = try Self.event("another held message", at: 1_800_000_400)
        _ = parked.park(other, reason: .heldOnCompetingBranch("not selected"))
        _ = parked.park(try Self.event("junk again", at: 1_800_000_500), reason: .undecryptable)
        #expect(parked.events.map(\.id).contains(commit.id))
        let last = try Self.event("a third held message", at: 1_800_000_600)
        _ = parked.park(last, reason: .heldOnCompetingBranch("not selected"))
        #expect(parked.events.map(\.id) == [held.id, other.id, last.id])
        #expect(parked.takePushedOut(heldToo: false) == commit.createdAt)

        // A held message pushed out is fetched again only after a change of branch.
        _ = parked.park(try Self.event("a fourth held message", at: 1_800_000_700), reason: .heldOnCompetingBranch("not selected"))
        #expect(parked.takePushedOut(heldToo: false) == nil)
        #expect(parked.takePushedOut(heldToo: true) == held.createdAt)
        #expect(parked.takePushedOut(heldToo: true) == nil)
        #expect(parked.waitingCount == 0, "the note of the commit pushed out went with it")
    }

    @Test func retriesGoOldestFirstThenById() throws {
        var parked = ParkedEvents(limit: 10)
        let late = try Self.event("late", at: 1_800_000_300)
        let early = try Self.event("early", at: 1_800_000_100)
        let tieA = try Self.event("tie a", at: 1_800_000_200)
        let tieB = try Self.event("tie b", at: 1_800_000_200)
        for event in [late, tieA, early, tieB] { _ = parked.park(event, reason: .undecryptable) }
        let ties = [tieA, tieB].sorted { $0.id.hex < $1.id.hex }.map(\.id)
        #expect(parked.retryOrder(heldToo: false).map(\.id) == [early.id] + ties + [late.id])

        // A message held on a branch that is not selected is tried again only once the group
        // changed branches; pushed out or opened, its note goes with it.
        parked.noteWaiting(tieA.id, reason: .heldOnCompetingBranch("not selected"))
        #expect(parked.retryOrder(heldToo: false).map(\.id) == [early.id] + ties.filter { $0 != tieA.id } + [late.id])
        #expect(parked.retryOrder(heldToo: true).map(\.id) == [early.id] + ties + [late.id])
        parked.remove(tieA.id)
        parked.pruneWaiting()
        _ = parked.park(tieA, reason: .undecryptable)
        #expect(parked.retryOrder(heldToo: false).count == 4)
    }

    @Test func theRecordRoundTripsAndABadOneReadsAsNothing() throws {
        var parked = ParkedEvents(limit: 5)
        #expect(parked.record == nil, "nothing parked: the record is removed")
        let events = try (0..<3).map { try Self.event("e\($0)") }
        for event in events { _ = parked.park(event, reason: .undecryptable) }
        let record = try #require(parked.record)
        #expect(ParkedEvents(limit: 5, record: record).events.map(\.id) == events.map(\.id))
        // A record claiming more than the limit, or damaged, gives nothing (as before).
        #expect(ParkedEvents(limit: 2, record: record).isEmpty)
        #expect(ParkedEvents(limit: 5, record: Data([0, 0])).isEmpty)
        // A damaged entry is skipped.
        var damaged = record
        damaged[damaged.count - 10] ^= 0xff
        #expect(ParkedEvents(limit: 5, record: damaged).events.map(\.id) == Array(events.prefix(2)).map(\.id))
    }

    /// Why the parked events that opened wait is stored with them: after a restart, junk still
    /// cannot push out a commit waiting for its proposal or a message held on another branch. A
    /// record of the first format (events only) reads as none having opened.
    @Test func whyAnEventWaitsSurvivesTheRecord() throws {
        var parked = ParkedEvents(limit: 3)
        let commit = try Self.event("commit waiting for its proposal", at: 1_800_000_100)
        let held = try Self.event("message of another branch", at: 1_800_000_200)
        let early = try Self.event("early", at: 1_800_000_300)
        _ = parked.park(commit, reason: .mls(.missingProposal(ProposalRef(Data([1, 2, 3])))))
        _ = parked.park(held, reason: .heldOnCompetingBranch("not selected"))
        _ = parked.park(early, reason: .undecryptable)
        let record = try #require(parked.record)

        var restored = ParkedEvents(limit: 3, record: record)
        #expect(restored.waitingCount == 1)
        #expect(restored.retryOrder(heldToo: false).map(\.id) == [commit.id, early.id])
        _ = restored.park(try Self.event("junk", at: 1_800_000_400), reason: .undecryptable)
        _ = restored.park(try Self.event("more junk", at: 1_800_000_500), reason: .undecryptable)
        #expect(Set(restored.events.map(\.id)).isSuperset(of: [commit.id, held.id]))

        // The first format: the count and the events, nothing after them.
        var first = TLSWriter()
        first.write(UInt32(2))
        for event in [commit, held] { first.writeOpaque(Data(event.jsonBytes)) }
        let old = ParkedEvents(limit: 3, record: first.data)
        #expect(old.events.map(\.id) == [commit.id, held.id])
        #expect(old.waitingCount == 0)
        #expect(old.retryOrder(heldToo: false).count == 2)
    }
}
