import Foundation
import MLS
import Nostr
import Testing
@testable import Marmot

/// D1 (security review 2026-12-01): an admin removed on the selected branch revokes its remover
/// back from the state before its removal. Before, the two branches' revocations of each other
/// left both out, so every member went back to that state with the removed admin in it; now the
/// pair is weighed by what the members outside it did, and otherwise ranked as MDK 0.9.14 ranks
/// (depth first), so the removed admin stays out however deep it grows its branch.
@Suite struct RevokeBackTests {
    typealias Party = GroupEngineTests.Party

    /// Alice and Mallory are admins, Carol and Dave members. Alice removes Mallory; Carol talks on
    /// Alice's branch and Alice renames the group. Mallory, from the state before, removes Alice and
    /// commits three self-updates on top, her branch two commits deeper than Alice's. Carol, Alice
    /// and Dave (who gets every commit and message in `order`) stay on Alice's branch, Mallory out;
    /// Alice's next commit stands everywhere.
    @Test(arguments: [false, true])
    func aRemovedAdminRevokingItsRemoverBackStaysOut(mallorysFirst: Bool) throws {
        let party = try Party(["alice", "mallory", "carol", "dave"], admins: ["alice", "mallory"])
        let mallory = party.keys["mallory"]!.publicKey, alice = party.keys["alice"]!.publicKey
        var a = party.engines["alice"]!, c = party.engines["carol"]!, m = party.engines["mallory"]!
        var d = party.engines["dave"]!

        let removal = try Self.removeAdmin(&a, mallory)
        _ = a.confirm(removal)
        _ = c.receive(removal.bytes)
        _ = c.settle()
        let talk = try c.encrypt("on alice's branch", createdAt: 1_800_000_010)
        _ = a.receive(talk)
        let rename = try GroupEngineTests.renameConfirmed(&a, to: "alice's name")
        _ = c.receive(rename.bytes)
        _ = c.settle()

        let revokeBack = try Self.removeAdmin(&m, alice)
        _ = m.confirm(revokeBack)
        var mallorysBranch = [revokeBack.bytes]
        for _ in 0..<3 {
            let update = try m.commit(rotateSigner: true)
            _ = m.confirm(update)
            mallorysBranch.append(update.bytes)
        }
        #expect(m.epoch == 5 && !m.members.contains(alice), "Mallory's branch is two commits deeper than Alice's")

        Self.feed(&a, mallorysBranch)
        Self.feed(&c, mallorysBranch)
        let alicesBranch = [removal.bytes, talk, rename.bytes]
        Self.feed(&d, mallorysFirst ? mallorysBranch + alicesBranch : alicesBranch + mallorysBranch)
        for (name, engine) in [("alice", a), ("carol", c), ("dave", d)] {
            #expect(!engine.members.contains(mallory), "\(name) let Mallory back")
            #expect(engine.members.contains(alice), "\(name) took Mallory's removal of Alice")
            #expect(engine.metadata?.name == "alice's name", "\(name)")
            #expect(engine.state.epochAuthenticator == rename.pending.newGroup.epochAuthenticator, "\(name)")
        }

        // Alice's later commits stand.
        let next = try GroupEngineTests.renameConfirmed(&a, to: "after the attack")
        Self.feed(&c, [next.bytes])
        Self.feed(&d, [next.bytes])
        #expect(c.state.epochAuthenticator == a.state.epochAuthenticator)
        #expect(d.state.epochAuthenticator == a.state.epochAuthenticator)
    }

    /// Nobody else spoke: Alice removes Mallory and renames the group; Mallory removes Alice from
    /// the state before, one commit only. With no evidence from the others, the pair is ranked as
    /// MDK ranks it, and Alice's branch is the deeper one.
    @Test func aRevokeBackWithNoOtherEvidenceLosesOnDepth() throws {
        let party = try Party(["alice", "mallory", "carol"], admins: ["alice", "mallory"])
        let mallory = party.keys["mallory"]!.publicKey, alice = party.keys["alice"]!.publicKey
        var a = party.engines["alice"]!, c = party.engines["carol"]!, m = party.engines["mallory"]!
        let removal = try Self.removeAdmin(&a, mallory)
        _ = a.confirm(removal)
        let rename = try GroupEngineTests.renameConfirmed(&a, to: "alice's name")
        let revokeBack = try Self.removeAdmin(&m, alice)
        Self.feed(&c, [removal.bytes, rename.bytes, revokeBack.bytes])
        Self.feed(&a, [revokeBack.bytes])
        for engine in [a, c] {
            #expect(!engine.members.contains(mallory))
            #expect(engine.state.epochAuthenticator == rename.pending.newGroup.epochAuthenticator)
        }
    }

    /// Alice and Mallory remove each other at once from the same state, and nobody else spoke:
    /// nothing tells the two apart but their commits, so every member takes the one MDK 0.9.14
    /// ranks first (both privileged, one epoch deep: the lower committer key), in either order,
    /// and the group carries on from it (before, both were left out and the group stayed where
    /// it was, which MDK never does).
    @Test func twoAdminsRemovingEachOtherAtOnceAreRankedAsMDKRanksThem() throws {
        let party = try Party(["alice", "mallory", "carol"], admins: ["alice", "mallory"])
        let mallory = party.keys["mallory"]!.publicKey, alice = party.keys["alice"]!.publicKey
        var a = party.engines["alice"]!, m = party.engines["mallory"]!
        let byAlice = try Self.removeAdmin(&a, mallory), byMallory = try Self.removeAdmin(&m, alice)
        let winner = byAlice.key < byMallory.key ? byAlice : byMallory
        for order in [[byAlice, byMallory], [byMallory, byAlice]] {
            var c = party.engines["carol"]!
            Self.feed(&c, order.map(\.bytes))
            #expect(c.state.epochAuthenticator == winner.pending.newGroup.epochAuthenticator)
            #expect(c.members.count == 2)
        }
    }

    /// `engine`'s commit removing admin `key`, who leaves the admin policy in the same commit (v2
    /// admins must be members).
    static func removeAdmin(_ engine: inout GroupEngine, _ key: PublicKey) throws -> OwnCommit {
        var data = try #require(engine.metadata)
        data.admins.removeAll { $0 == key }
        return try engine.commit(removing: [key], proposals: try engine.rules.proposals(changing: engine.state.extensions, to: data))
    }

    /// Each of `messages` received and settled, in order.
    static func feed(_ engine: inout GroupEngine, _ messages: [Data]) {
        for bytes in messages {
            _ = engine.receive(bytes)
            _ = engine.settle()
        }
    }
}
