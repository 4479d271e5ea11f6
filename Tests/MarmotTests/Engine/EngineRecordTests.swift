import Foundation
import MLS
import Nostr
import Testing
@testable import Marmot

/// The group engine written out and read back (`EngineRecord`), as a restarted runtime re-opens it:
/// it carries on exactly where it was, and a damaged record is refused with an error, never a crash
/// (issue 24).
@Suite struct EngineRecordTests {
    typealias Party = GroupEngineTests.Party

    /// The engine after a write and a read of its record's bytes.
    static func restarted(_ engine: GroupEngine) throws -> GroupEngine {
        try GroupEngine(rules: engine.rules, keys: engine.keys, record: try EngineRecord(encoded: engine.record.encoded()))
    }

    /// Carol holds a fork (Alice's and Bob's renames), a message held on the branch not selected and
    /// a message parked for a later epoch (Dave's message, deferred until Bob's rename came, counted
    /// as its witness), with a commit of her own unconfirmed and a send queued behind it. Restarted from her record at that point, she gives the same bytes
    /// again, reports the same status, refuses what she saw as a duplicate, and from there every
    /// input gives the same outputs and the same state as the engine that never stopped.
    @Test func aRestartedEngineCarriesOnExactlyWhereItWas() throws {
        let party = try Party(["alice", "bob", "carol", "dave"])
        var dave = party.engines["dave"]!
        let race = try party.race()
        var alice = race.alice
        let (a1, b1, onA, onB) = (race.a1, race.b1, race.onA, race.onB)
        let onAAgain = try alice.encrypt("on a1 again", createdAt: 1_800_000_002)
        let a2 = try GroupEngineTests.renameConfirmed(&alice, to: "a2")
        let early = try alice.encrypt("on a2", createdAt: 1_800_000_003)
        // Dave sends on b1 after seeing only it: before Carol has b1, his message is deferred.
        _ = dave.receive(b1.bytes)
        _ = dave.settle()
        let fromDave = try dave.encrypt("dave on b1", createdAt: 1_800_000_004)

        var carol = party.engines["carol"]!
        // Bob's branch wins on its witnesses (Bob and Dave), so Alice's second message is held.
        for bytes in [a1.bytes, fromDave, b1.bytes, onA, onB, onAAgain, early] {
            _ = carol.receive(bytes)
            _ = carol.settle()
        }
        #expect(carol.hasParked, "the message of epoch 3 waits for a2")
        let own = try carol.commit(rotateSigner: true)
        #expect(try carol.send("queued behind our commit", createdAt: 1_800_000_005) == .queued)

        let kept = carol.record
        #expect(kept.nodes.count == 3 && !kept.held.isEmpty && !kept.parked.isEmpty)
        #expect(kept.intents.count == 1 && kept.awaiting.count == 1 && !kept.shownAt.isEmpty)
        let bytes = kept.encoded()
        var restarted = try Self.restarted(carol)
        #expect(restarted.record.encoded() == bytes, "the same engine gives the same bytes")
        #expect(restarted.status == carol.status)
        #expect(restarted.state.epochAuthenticator == carol.state.epochAuthenticator)
        #expect(restarted.receive(onA) == [.duplicate])

        // From here both take the same inputs: our commit confirmed, then a2, then more traffic.
        let later = try alice.encrypt("later on a2", createdAt: 1_800_000_006)
        var outputs: [[EngineOutput]] = [[], []]
        // Each input to both in turn: a state notes the second it retained its past epoch
        // (RFC 9420 §9.2 ages), so the two are compared whole only when they ran in one second.
        let second = Int(Date().timeIntervalSince1970)
        outputs[0] += carol.confirm(own).map(Self.withoutBytes)
        outputs[1] += restarted.confirm(own).map(Self.withoutBytes)
        for input in [a2.bytes, later] {
            outputs[0] += (carol.receive(input) + carol.settle()).map(Self.withoutBytes)
            outputs[1] += (restarted.receive(input) + restarted.settle()).map(Self.withoutBytes)
        }
        let oneSecond = Int(Date().timeIntervalSince1970) == second
        #expect(outputs[0] == outputs[1])
        #expect(outputs[0].contains { if case .publish = $0 { true } else { false } }, "the queued send is made once our commit is confirmed")
        // Everything kept is the same but what our fresh encryption made (its digest).
        var ours = carol.record, theirs = restarted.record
        ours.seen = [:]
        theirs.seen = [:]
        if oneSecond { #expect(ours.encoded() == theirs.encoded()) }
        #expect(ours.nodes.map { [$0.ratchets, EngineRecord.encoded($0.witnesses)] } == theirs.nodes.map { [$0.ratchets, EngineRecord.encoded($0.witnesses)] })
        #expect(ours.nodes.map(\.key) == theirs.nodes.map(\.key) && ours.nodes.map(\.parent) == theirs.nodes.map(\.parent))
        #expect(ours.shownAt == theirs.shownAt)
        #expect(ours.encodedRest() == theirs.encodedRest())
        #expect(restarted.status == carol.status)
    }

    /// A commit of ours built before a restart and never confirmed is kept whole: the restarted
    /// engine can publish it again and confirm it, and when a relay gives it back it is adopted.
    /// Before, only its ordering key was kept: the group stayed resolving for ever after such a
    /// restart, our sends queued behind a commit it could neither confirm nor recognize.
    @Test func anUnconfirmedCommitOfOursSurvivesARestart() throws {
        let party = try GroupEngineTests.Party(["alice", "bob"])
        var alice = party.engines["alice"]!, bob = party.engines["bob"]!
        var data = try #require(alice.metadata)
        data.name = "renamed before the crash"
        let own = try alice.commit(proposals: try alice.rules.proposals(changing: alice.state.extensions, to: data))
        #expect(try alice.send("queued behind it", createdAt: 1_800_000_001) == .queued)
        let restarted = try Self.restarted(alice)
        #expect(restarted.status == .resolving(pendingCommits: 1))
        let kept = try #require(restarted.unconfirmed.first)
        #expect(kept.bytes == own.bytes && kept.parent == own.parent && kept.key == own.key)

        // Published again and confirmed.
        var confirmed = restarted
        let made = confirmed.confirm(kept).compactMap { if case .publish(let bytes, _) = $0 { bytes } else { nil } }
        #expect(confirmed.status == .settled && confirmed.metadata?.name == "renamed before the crash")
        #expect(made.count == 1, "the queued send is made on the new state")
        // Given back by a relay instead: adopted the same way.
        var givenBack = restarted
        #expect(givenBack.receive(own.bytes) == [])
        let madeToo = givenBack.settle().compactMap { if case .publish(let bytes, _) = $0 { bytes } else { nil } }
        #expect(givenBack.status == .settled && madeToo.count == 1)
        #expect(givenBack.state.epochAuthenticator == confirmed.state.epochAuthenticator)
        #expect(confirmed.confirm(kept) == [], "confirming it twice does nothing")

        // Bob takes the commit and the message made after the restart.
        _ = bob.receive(own.bytes)
        #expect(bob.receive(made[0]).contains { if case .application(_, let rumor, _, _, _) = $0 { rumor.content == "queued behind it" } else { false } })
        #expect(bob.state.epochAuthenticator == confirmed.state.epochAuthenticator)
    }

    /// After the rewind horizon pruned the oldest states (and with them where messages showed and
    /// our sends made there), both members' records still hold together and re-open. Before, the
    /// new anchor kept its link to its pruned parent and the record still named pruned states, so
    /// a restart after six commits refused the record as damaged.
    @Test func aRecordAfterPruningStillReopens() throws {
        let party = try Party(["alice", "bob"])
        var alice = party.engines["alice"]!, bob = party.engines["bob"]!
        for round in 0..<8 {
            let rename = try GroupEngineTests.renameConfirmed(&alice, to: "name \(round)")
            let message = try alice.encrypt("after \(round)", createdAt: 1_800_000_000 + Int64(round))
            for bytes in [rename.bytes, message] {
                _ = bob.receive(bytes)
                _ = bob.settle()
            }
            let reply = try bob.encrypt("reply \(round)", createdAt: 1_800_000_000 + Int64(round))
            _ = alice.receive(reply)
            _ = alice.settle()
        }
        #expect(bob.graph.nodes.count == 6 && alice.graph.nodes.count == 6)
        for engine in [alice, bob] {
            let record = engine.record
            #expect(record.nodes.first?.parent == nil && record.nodes.first?.id == record.anchor)
            #expect(record.shownAt.values.allSatisfy { shown in record.nodes.contains { $0.id == shown.node } })
            #expect(record.sentAt.keys.allSatisfy { id in record.nodes.contains { $0.id == id } })
            let restarted = try Self.restarted(engine)
            #expect(restarted.record.encoded() == record.encoded())
        }
    }

    /// Bob's engine after Alice's rename: a graph of two states.
    static func renamedByAlice() throws -> GroupEngine {
        let party = try Party(["alice", "bob"])
        var bob = party.engines["bob"]!
        let rename = try party.rename("alice", to: "renamed")
        _ = bob.receive(rename.bytes)
        _ = bob.settle()
        return bob
    }

    /// Published bytes differ run to run (fresh encryption randomness); what an output says does not.
    static func withoutBytes(_ output: EngineOutput) -> EngineOutput {
        if case .publish(_, let rumor) = output { return .publish(Data(), rumor: rumor) }
        return output
    }

    /// A record of another format, cut short anywhere, or with any byte changed reads as an error
    /// (or, where a change lands in a state's secrets or a message, as a record that still holds
    /// together); never a crash.
    @Test func aDamagedRecordIsRefusedNotMisread() throws {
        let bob = try Self.renamedByAlice()
        let bytes = bob.record.encoded()

        var other = bytes
        other[0] = 1  // format 1 (whole states) was never written to a store and is not read
        #expect(throws: EngineRecordError.unknownFormat) { try EngineRecord(encoded: other) }
        for length in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 400)) {
            #expect(throws: EngineRecordError.self) { try EngineRecord(encoded: bytes.prefix(length)) }
        }
        #expect(throws: EngineRecordError.self) { try EngineRecord(encoded: bytes + Data([0])) }
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            var damaged = bytes
            damaged[Int.random(in: 1..<damaged.count, using: &rng)] ^= UInt8.random(in: 1...255, using: &rng)
            guard let record = try? EngineRecord(encoded: damaged) else { continue }
            _ = try? GroupEngine(rules: bob.rules, keys: bob.keys, record: record)
        }
    }

    /// A record whose graph does not hold together is refused: a state whose parent it lacks, a
    /// second root, a canonical tip it does not hold.
    @Test func aRecordWhoseGraphDoesNotHoldIsRefused() throws {
        let bob = try Self.renamedByAlice()
        let good = bob.record
        #expect(good.nodes.count == 2)

        var orphan = good
        orphan.nodes[1].parent = 7
        var secondRoot = good
        secondRoot.nodes[1].parent = nil
        var lostTip = good
        lostTip.canonical = 9
        var keyless = good
        keyless.nodes[1].key = nil
        for (name, record) in [("orphan", orphan), ("second root", secondRoot), ("lost tip", lostTip), ("keyless", keyless)] {
            #expect(throws: EngineRecordError.self, "\(name)") { try EngineRecord(encoded: record.encoded()) }
        }
        var unreadable = good
        unreadable.nodes[1].state = Data([1, 2, 3])
        let read = try EngineRecord(encoded: unreadable.encoded())
        #expect(throws: EngineRecordError.unreadableState(1)) { try GroupEngine(rules: bob.rules, keys: bob.keys, record: read) }
        #expect("\(good)".contains("redacted"))
    }
}
