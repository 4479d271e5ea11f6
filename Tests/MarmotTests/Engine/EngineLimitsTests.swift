import Foundation
import MLS
import Nostr
import Testing
@testable import Marmot

/// Everything a member, a removed member or anyone holding a retained event key can make the
/// engine keep is bounded (`EngineLimits`; security review 2026-12-01 D2, N5 regressed for v2),
/// and each test names what is dropped once the bound is reached.
@Suite struct EngineLimitsTests {
    typealias Party = GroupEngineTests.Party

    /// Mallory proposes four SelfRemoves in one epoch and Eve three; Carol keeps three of one
    /// sender and five in all. Before, the engine kept every proposal (v1 had caps, v2 lost them).
    @Test func aProposalFloodIsCappedPerSenderAndInAll() throws {
        let party = try Party(["alice", "mallory", "eve", "carol"], allAdmins: false)
        var carol = party.engines["carol"]!
        carol.limits.proposalsPerSender = 3
        carol.limits.proposals = 5
        // A hostile sender makes each from a fresh copy of its state (our MLS would refuse a second
        // SelfRemove of one epoch), told apart by their authenticated data.
        func flood(_ name: String, _ count: Int) throws -> [[EngineOutput]] {
            try (0..<count).map { index in
                var copy = party.engines[name]!.state
                return carol.receive(try copy.proposeSelfRemove(authenticatedData: Data([UInt8(index)])).tlsSerialized)
            }
        }
        let fromMallory = try flood("mallory", 4)
        #expect(fromMallory.prefix(3).allSatisfy { $0 == [.proposalStored(.selfRemove)] })
        #expect(fromMallory[3] == [.dropped(.limitReached("3 proposals of one sender already pending"))])
        let fromEve = try flood("eve", 3)
        #expect(fromEve.prefix(2).allSatisfy { $0 == [.proposalStored(.selfRemove)] })
        #expect(fromEve[2] == [.dropped(.limitReached("5 proposals already pending"))])
        #expect(carol.state.proposals.count == 5)
    }

    /// Mallory's self-update loses to Alice's rename (priority), and Mallory floods her losing
    /// branch with messages: Carol holds three and drops the rest.
    @Test func messagesHeldOnALosingBranchAreCapped() throws {
        let party = try Party(["alice", "mallory", "carol"], allAdmins: false)
        var alice = party.engines["alice"]!, mallory = party.engines["mallory"]!, carol = party.engines["carol"]!
        carol.limits.held = 3
        let rename = try GroupEngineTests.renameConfirmed(&alice, to: "alice's")
        let update = try mallory.commit(rotateSigner: true)
        _ = mallory.confirm(update)
        _ = carol.receive(rename.bytes)
        _ = carol.receive(update.bytes)
        _ = carol.settle()
        #expect(carol.metadata?.name == "alice's")
        let outcomes = try (0..<5).map { round in
            carol.receive(try mallory.encrypt("flood \(round)", createdAt: 1_800_000_000 + Int64(round)))
        }
        #expect(outcomes.prefix(3).allSatisfy { $0.isEmpty }, "held, not shown")
        #expect(outcomes.suffix(2).allSatisfy { $0 == [.dropped(.limitReached("3 messages already held on competing branches"))] })
        #expect(carol.record.held.values.reduce(0) { $0 + $1.count } == 3)
    }

    /// Mallory (no admin) makes five self-updates from one state; Carol keeps three competing
    /// commits there. Alice's rename, arriving last, still gets in (it outranks them and pushes the
    /// worst out) and wins.
    @Test func competingCommitsFromOneStateAreCappedWithoutCrowdingOutAnAdmin() throws {
        let party = try Party(["alice", "mallory", "carol"], allAdmins: false)
        var alice = party.engines["alice"]!, carol = party.engines["carol"]!
        carol.limits.commitsPerState = 3
        let root = carol.graph.anchor
        var dropped = 0
        for _ in 0..<5 {
            var copy = party.engines["mallory"]!
            let update = try copy.commit(rotateSigner: true)
            let outputs = carol.receive(update.bytes) + carol.settle()
            if outputs.contains(where: { if case .dropped(.limitReached) = $0 { true } else { false } }) { dropped += 1 }
            #expect((carol.graph.nodes[root]?.children.count ?? 0) <= 3)
        }
        #expect(carol.graph.nodes[root]?.children.count == 3)
        #expect(dropped <= 2)
        let rename = try GroupEngineTests.renameConfirmed(&alice, to: "alice's")
        _ = carol.receive(rename.bytes)
        _ = carol.settle()
        #expect(carol.graph.nodes[root]?.children.count == 3)
        #expect(carol.metadata?.name == "alice's")
        #expect(carol.state.epochAuthenticator == alice.state.epochAuthenticator)
    }

    /// Our own sends are remembered per state (to be made again if its branch loses) up to the
    /// bound, the oldest forgotten first; sends queued behind our unconfirmed commit are refused
    /// past theirs.
    @Test func ourRememberedAndQueuedSendsAreCapped() throws {
        let party = try Party(["alice", "bob"])
        var alice = party.engines["alice"]!
        alice.limits.sentPerState = 3
        alice.limits.intents = 2
        let rumors = try (0..<5).map { try ChatRumor(author: alice.me, content: "m\($0)", createdAt: 1_800_000_000 + Int64($0)) }
        for rumor in rumors { _ = try alice.encrypt(rumor) }
        #expect(alice.record.sentAt[alice.graph.canonical] == Array(rumors.suffix(3)))
        var data = try #require(alice.metadata)
        data.name = "renamed"
        _ = try alice.commit(proposals: try alice.rules.proposals(changing: alice.state.extensions, to: data))
        #expect(try alice.send("q1", createdAt: 1) == .queued)
        #expect(try alice.send("q2", createdAt: 2) == .queued)
        #expect(throws: EngineError.queueFull(2)) { try alice.send("q3", createdAt: 3) }
    }

    /// Alice removes Mallory; Mallory keeps encrypting in her last epoch, which Carol retains.
    /// Carol drops every one as from a member removed since, and nothing of it is kept: her record
    /// and her changes stay as they were (before, each was shown, its digest and ratchet kept).
    @Test func aRemovedMemberFloodingItsLastEpochLeavesNothingBehind() throws {
        let party = try Party(["alice", "mallory", "carol"], allAdmins: false)
        var alice = party.engines["alice"]!, mallory = party.engines["mallory"]!, carol = party.engines["carol"]!
        let removal = try alice.commit(removing: [party.keys["mallory"]!.publicKey])
        _ = alice.confirm(removal)
        _ = carol.receive(removal.bytes)
        _ = carol.settle()
        _ = carol.takeChanges()
        let before = carol.record.encoded()
        for round in 0..<300 {
            let flood = try mallory.encrypt("still here \(round)", createdAt: 1_800_000_000 + Int64(round))
            #expect(carol.receive(flood) == [.dropped(.senderRemoved(epoch: 1))])
            #expect(carol.receive(flood) == [.dropped(.senderRemoved(epoch: 1))], "a replay is dropped as cheaply")
        }
        _ = carol.settle()
        #expect(carol.takeChanges().isEmpty)
        #expect(carol.record.encoded() == before)
    }
}
