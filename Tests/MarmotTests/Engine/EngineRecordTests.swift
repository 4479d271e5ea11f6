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
        for (index, engine) in [carol, restarted].enumerated() {
            var engine = engine
            outputs[index] += engine.confirm(own).map(Self.withoutBytes)
            for input in [a2.bytes, later] {
                outputs[index] += engine.receive(input).map(Self.withoutBytes)
                outputs[index] += engine.settle().map(Self.withoutBytes)
            }
            if index == 0 { carol = engine } else { restarted = engine }
        }
        #expect(outputs[0] == outputs[1])
        #expect(outputs[0].contains { if case .publish = $0 { true } else { false } }, "the queued send is made once our commit is confirmed")
        // Everything kept is the same but what our fresh encryption made (its digest).
        var ours = carol.record, theirs = restarted.record
        ours.seen = [:]
        theirs.seen = [:]
        #expect(ours.encoded() == theirs.encoded())
        #expect(restarted.status == carol.status)
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
