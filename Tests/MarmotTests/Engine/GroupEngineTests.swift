import Crypto
import Foundation
import MLS
import Nostr
import Testing
@testable import Marmot

/// The v2 group engine settling races by protocol evidence: the same winner whatever the arrival
/// order, wrappers and dates never involved, duplicates inert, and a removed member unable to race
/// its own removal (issue 24).
@Suite struct GroupEngineTests {
    /// A v2 group of `names` built as the client builds one; the first name creates it and every
    /// member is an admin when `allAdmins`.
    struct Party {
        var engines: [String: GroupEngine] = [:]
        let keys: [String: Keys]

        /// `admins` names the admins (all of them by default, only the founder without `allAdmins`).
        init(_ names: [String], allAdmins: Bool = true, admins named: [String]? = nil) throws {
            var keys: [String: Keys] = [:]
            for name in names { keys[name] = Keys.generate() }
            self.keys = keys
            let rules = V2GroupRules()
            let creator = keys[names[0]]!
            var packages: [(String, KeyPackage, KeyPackagePrivateMaterial)] = []
            for name in names.dropFirst() {
                let created = try V2KeyPackage.create(keys: keys[name]!)
                packages.append((name, created.keyPackage, created.privateMaterial))
            }
            let admins = (named ?? (allAdmins ? names : [names[0]])).map { keys[$0]!.publicKey }
            let metadata = GroupMetadata(
                nostrGroupID: .random(), name: "start", description: "", admins: admins, relays: [try RelayURL("wss://r.example")])
            var (founder, founding) = try GroupEngine.found(rules: rules, keys: creator, metadata: metadata, invitees: packages.map(\.1))
            let founded = try #require(founding)
            _ = founder.confirm(founded)
            engines[names[0]] = founder
            for (name, package, material) in packages {
                engines[name] = try GroupEngine.join(
                    rules: rules, keys: keys[name]!, welcome: try #require(founded.pending.welcome), keyPackage: package,
                    privateMaterial: material, sender: creator.publicKey)
            }
        }

        func rename(_ name: String, to newName: String) throws -> OwnCommit {
            var engine = engines[name]!
            var metadata = try #require(engine.metadata)
            metadata.name = newName
            return try engine.commit(proposals: try engine.rules.proposals(changing: engine.state.extensions, to: metadata))
        }

        /// Alice's and Bob's renames of one epoch (a1, b1), each confirmed by its committer, and a
        /// message on each branch: the race many engine tests start from.
        func race() throws -> Race {
            var alice = engines["alice"]!, bob = engines["bob"]!
            let a1 = try rename("alice", to: "a1"), b1 = try rename("bob", to: "b1")
            _ = alice.confirm(a1)
            _ = bob.confirm(b1)
            let rumorA = try ChatRumor(author: alice.me, content: "on a1", createdAt: 1_800_000_001)
            let rumorB = try ChatRumor(author: bob.me, content: "on b1", createdAt: 1_800_000_002)
            let onA = try alice.encrypt(rumorA), onB = try bob.encrypt(rumorB)
            return Race(alice: alice, bob: bob, a1: a1, b1: b1, onA: onA, onB: onB, rumorA: rumorA, rumorB: rumorB)
        }
    }

    struct Race {
        var alice, bob: GroupEngine
        let a1, b1: OwnCommit
        let onA, onB: Data
        let rumorA, rumorB: ChatRumor

        /// One side of the race: its committer's engine, its commit, its message and that message's rumor.
        struct Side {
            var engine: GroupEngine
            let commit: OwnCommit
            let message: Data
            let rumor: ChatRumor
        }

        /// The side that wins and the one that loses once both are held: one message on each
        /// branch weighs alike, so the lower commit key decides.
        var sides: (winner: Side, loser: Side) {
            let a = Side(engine: alice, commit: a1, message: onA, rumor: rumorA)
            let b = Side(engine: bob, commit: b1, message: onB, rumor: rumorB)
            return a1.key < b1.key ? (a, b) : (b, a)
        }
    }

    /// `engine` renames the group to `name` and confirms its commit at once (as after a relay's OK).
    static func renameConfirmed(_ engine: inout GroupEngine, to name: String) throws -> OwnCommit {
        var data = try #require(engine.metadata)
        data.name = name
        let rename = try engine.commit(proposals: try engine.rules.proposals(changing: engine.state.extensions, to: data))
        _ = engine.confirm(rename)
        return rename
    }

    @Test func competingRenamesSettleOnTheSameBranchWhateverTheArrivalOrder() throws {
        let party = try Party(["alice", "bob", "carol"])
        let fromAlice = try party.rename("alice", to: "alice's name")
        let fromBob = try party.rename("bob", to: "bob's name")
        var first = party.engines["carol"]!, second = party.engines["carol"]!
        _ = first.receive(fromAlice.bytes)
        _ = first.receive(fromBob.bytes)
        _ = first.settle()
        _ = second.receive(fromBob.bytes)
        _ = second.receive(fromAlice.bytes)
        _ = second.settle()
        #expect(first.epoch == 2 && second.epoch == 2)
        #expect(first.metadata?.name == second.metadata?.name)
        // Both admins' commits are privileged: the lower committer key decides, not time or event id.
        let expected = fromAlice.key < fromBob.key ? "alice's name" : "bob's name"
        #expect(first.metadata?.name == expected)
        #expect(first.lastDecision?.decisiveRule == .tipCommitter)
        // The committers converge on it too once each sees the other's commit.
        var alice = party.engines["alice"]!, bob = party.engines["bob"]!
        _ = alice.confirm(fromAlice)
        _ = alice.receive(fromBob.bytes)
        _ = alice.settle()
        _ = bob.confirm(fromBob)
        _ = bob.receive(fromAlice.bytes)
        _ = bob.settle()
        #expect(alice.metadata?.name == expected && bob.metadata?.name == expected)
        #expect(alice.state.epochAuthenticator == first.state.epochAuthenticator)
        #expect(bob.state.epochAuthenticator == first.state.epochAuthenticator)
    }

    /// Three branches forking at two epochs: alice renames twice on one side of the first fork,
    /// bob once on the other, and alice's second rename competes with bob's own second commit on
    /// alice's side. Every arrival order ends on the same tip, the one the forks select from the
    /// anchor down (issue 24: ranked against the canonical path, the choice followed the order).
    @Test func threeBranchesForkingAtTwoEpochsSettleAlikeInEveryOrder() throws {
        let party = try Party(["alice", "bob", "carol"])
        var alice = party.engines["alice"]!, bob = party.engines["bob"]!
        let a1 = try party.rename("alice", to: "a1")
        let b1 = try party.rename("bob", to: "b1")
        _ = alice.confirm(a1)
        _ = bob.receive(a1.bytes)
        _ = bob.settle()
        var renamed = try #require(alice.metadata)
        renamed.name = "a2"
        let a2 = try alice.commit(proposals: try alice.rules.proposals(changing: alice.state.extensions, to: renamed))
        renamed.name = "b2"
        let b2 = try bob.commit(proposals: try bob.rules.proposals(changing: bob.state.extensions, to: renamed))
        let messages = [a1.bytes, b1.bytes, a2.bytes, b2.bytes]
        var tips: Set<Data> = []
        for order in [[0, 1, 2, 3], [1, 0, 3, 2], [0, 2, 3, 1], [1, 3, 2, 0], [3, 2, 1, 0], [2, 0, 1, 3]] {
            var carol = party.engines["carol"]!
            for index in order {
                _ = carol.receive(messages[index])
                _ = carol.settle()
            }
            #expect(carol.epoch == 3, "order \(order)")
            tips.insert(carol.state.epochAuthenticator)
        }
        #expect(tips.count == 1)
    }

    /// A message sent on a branch whose commit has not arrived yet, at an epoch we already hold on
    /// another branch, is deferred (kept, not counted as waiting) and counts as that branch's
    /// witness once its commit comes (MDK 0.9.14 `PeelDeferred`; before, it was dropped for good).
    @Test func aMessageOfABranchNotSeenYetIsDeferredAndCountedWhenItsCommitComes() throws {
        let party = try Party(["alice", "bob", "carol"])
        var carol = party.engines["carol"]!, bob = party.engines["bob"]!
        let a1 = try party.rename("alice", to: "a1")
        let b1 = try party.rename("bob", to: "b1")
        _ = bob.confirm(b1)
        let message = try bob.encrypt("on b1", createdAt: 1_800_000_000)
        _ = carol.receive(a1.bytes)
        _ = carol.settle()
        #expect(carol.receive(message) == [.deferred])
        _ = carol.settle()
        #expect(carol.status == .settled)
        #expect(carol.deferred.count == 1)
        _ = carol.receive(b1.bytes)
        _ = carol.settle()
        #expect(carol.deferred.isEmpty)
        #expect(carol.graph.nodes.values.contains { $0.commit?.key == b1.key && !$0.witnesses.isEmpty })
    }

    @Test func aDuplicateDoesNothing() throws {
        let party = try Party(["alice", "bob"])
        let rename = try party.rename("alice", to: "once")
        var bob = party.engines["bob"]!
        #expect(bob.receive(rename.bytes).count == 1)
        #expect(bob.receive(rename.bytes) == [.duplicate])
        #expect(bob.epoch == 2)
    }

    /// N1 in v2: Dave is removed by an admin at epoch 1; from his copy of epoch 1 he races his removal
    /// with a self-update and builds one more self-update on it, so his branch is deeper. Carol
    /// receives his two commits first and the removal last; she must end with Dave removed.
    @Test func aRemovedMemberCannotOutgrowItsRemoval() throws {
        let party = try Party(["alice", "carol", "dave"], allAdmins: false)
        var alice = party.engines["alice"]!
        let removal = try alice.commit(removing: [party.keys["dave"]!.publicKey])
        var dave = party.engines["dave"]!
        let raced = try dave.commit(rotateSigner: true)
        _ = dave.confirm(raced)
        let deeper = try dave.commit(rotateSigner: true)
        var carol = party.engines["carol"]!
        _ = carol.receive(raced.bytes)
        _ = carol.receive(deeper.bytes)
        #expect(carol.members.contains(party.keys["dave"]!.publicKey), "before the removal arrives Dave's branch is all Carol knows")
        _ = carol.receive(removal.bytes)
        _ = carol.settle()
        #expect(!carol.members.contains(party.keys["dave"]!.publicKey))
        #expect(carol.epoch == 2)
        _ = alice.confirm(removal)
        #expect(carol.state.epochAuthenticator == alice.state.epochAuthenticator)
    }

    @Test func aNonAdminCannotBuildAnAdminChange() throws {
        let party = try Party(["alice", "bob"], allAdmins: false)
        #expect(throws: EngineError.notAdmin) { try party.rename("bob", to: "mine") }
    }

    @Test func sendsWhileOurCommitIsUnconfirmedAreQueuedAndMadeOnTheNewEpoch() throws {
        let party = try Party(["alice", "bob"])
        var alice = party.engines["alice"]!
        var metadata = try #require(alice.metadata)
        metadata.name = "renamed"
        let rename = try alice.commit(proposals: try alice.rules.proposals(changing: alice.state.extensions, to: metadata))
        #expect(alice.status == .resolving(pendingCommits: 1))
        #expect(try alice.send("after the rename", createdAt: 1) == .queued)
        let outputs = alice.confirm(rename)
        #expect(alice.status == .settled)
        let published = outputs.compactMap { if case .publish(let bytes, _) = $0 { bytes } else { nil } }
        #expect(published.count == 1)
        var bob = party.engines["bob"]!
        _ = bob.receive(rename.bytes)
        let shown = bob.receive(try #require(published.first))
        #expect(shown.contains { if case .application(_, let rumor, 2, _, _) = $0 { rumor.content == "after the rename" } else { false } })
    }

    /// A member that showed a message of the branch that then lost is told which message to mark:
    /// the switch names it by its inner event's id, as the client stored it.
    @Test func aMessageShownOnALosingBranchIsInvalidatedByItsInnerEventID() throws {
        let party = try Party(["alice", "bob", "carol"])
        let (winner, loser) = try party.race().sides
        var carol = party.engines["carol"]!
        _ = carol.receive(loser.commit.bytes)
        #expect(carol.receive(loser.message).contains { if case .application(_, let shown, _, _, _) = $0 { shown.id == loser.rumor.id } else { false } })
        _ = carol.receive(winner.commit.bytes)
        _ = carol.receive(winner.message)
        let switched = carol.settle().compactMap { if case .branchSwitched(_, _, let invalidated) = $0 { invalidated } else { nil } }
        #expect(switched == [[loser.rumor.id]])
        #expect(carol.record.shownAt.values.map(\.rumor) == [winner.rumor.id], "the winning branch's message is shown, the lost one no longer")
    }

    @Test func ourMessageOnALosingBranchIsMadeAgainOnTheWinner() throws {
        let party = try Party(["alice", "bob"])
        var (winner, loser) = try party.race().sides
        // One message on each branch (ours witnesses ours, as MDK counts its own): the keys decide.
        _ = loser.engine.receive(winner.commit.bytes)
        _ = loser.engine.receive(winner.message)
        let outputs = loser.engine.settle()
        #expect(outputs.contains { if case .branchSwitched = $0 { true } else { false } })
        let again = try #require(outputs.compactMap { if case .publish(let bytes, _) = $0 { bytes } else { nil } }.first)
        #expect(winner.engine.receive(loser.message).contains { if case .application = $0 { true } else { false } } == false)
        #expect(winner.engine.receive(again).contains { if case .application(_, let rumor, 2, _, _) = $0 { rumor == loser.rumor } else { false } })
    }

    /// N2 in v2: Alice demotes Bob at epoch 1. From his copy of epoch 1, Bob (still an admin there)
    /// races it with an admin-only commit (a rename) and builds one more on it, so his branch is
    /// deeper. Carol gets Bob's two commits first and the demotion last; she must end with Alice's
    /// admin list and name.
    @Test func aDemotedAdminCannotOutgrowItsDemotion() throws {
        let party = try Party(["alice", "bob", "carol"])
        var alice = party.engines["alice"]!
        var demoted = try #require(alice.metadata)
        demoted.admins = [party.keys["alice"]!.publicKey, party.keys["carol"]!.publicKey].sorted()
        let demotion = try alice.commit(proposals: try alice.rules.proposals(changing: alice.state.extensions, to: demoted))
        var bob = party.engines["bob"]!
        var taken = try #require(bob.metadata)
        taken.name = "bob's now"
        let raced = try bob.commit(proposals: try bob.rules.proposals(changing: bob.state.extensions, to: taken))
        _ = bob.confirm(raced)
        let deeper = try bob.commit(rotateSigner: true)
        var carol = party.engines["carol"]!
        _ = carol.receive(raced.bytes)
        _ = carol.receive(deeper.bytes)
        #expect(carol.metadata?.name == "bob's now", "before the demotion arrives Bob's branch is all Carol knows")
        _ = carol.receive(demotion.bytes)
        _ = carol.settle()
        #expect(carol.metadata?.admins == demoted.admins)
        #expect(carol.metadata?.name == "start")
        _ = alice.confirm(demotion)
        #expect(carol.state.epochAuthenticator == alice.state.epochAuthenticator)
    }

    /// A stranger's junk (bytes that are no group message) is dropped and not remembered, so a
    /// flood of it leaves what the engine keeps as it was; before, each junk digest was kept for
    /// good, in memory and in the record. Digests of real messages go once their epoch is pruned.
    @Test func junkAndPrunedEpochsDoNotGrowWhatTheEngineKeeps() throws {
        let party = try Party(["alice", "bob"])
        var alice = party.engines["alice"]!, bob = party.engines["bob"]!
        let before = bob.record.encoded().count
        for _ in 0..<500 {
            let junk = Data((0..<Int.random(in: 1...200)).map { _ in UInt8.random(in: 0...255) })
            #expect(bob.receive(junk).allSatisfy { if case .dropped = $0 { true } else { false } })
        }
        _ = bob.settle()
        #expect(bob.record.encoded().count == before)
        #expect(bob.record.seen.isEmpty)

        for round in 0..<8 {
            let rename = try Self.renameConfirmed(&alice, to: "name \(round)")
            let message = try alice.encrypt("after \(round)", createdAt: 1_800_000_000 + Int64(round))
            for bytes in [rename.bytes, message] {
                _ = bob.receive(bytes)
                _ = bob.settle()
            }
            #expect(bob.receive(message) == [.duplicate])
        }
        let anchor = try #require(bob.graph.nodes[bob.graph.anchor]).epoch
        #expect(bob.epoch == 9 && anchor == 4)
        #expect(bob.record.seen.values.allSatisfy { $0 >= anchor })
        #expect(bob.record.seen.count == 5 + 6, "the renames made in epochs 4 to 8, the messages of epochs 4 to 9")
    }

    /// What the engine sends and shows is the whole inner event: a reaction keeps its kind, tags
    /// and date from Alice's send to Bob's output, and in what Alice's record keeps of it (made again
    /// if its branch loses). A rumor by someone else is refused before anything is encrypted.
    @Test func aReactionKeepsItsKindAndTagsThroughTheEngine() throws {
        let party = try Party(["alice", "bob"])
        var alice = party.engines["alice"]!, bob = party.engines["bob"]!
        let target = try EventID(bytes: Data(repeating: 7, count: 32))
        let reaction = try ChatRumor(
            author: alice.me, content: "+", kind: .reaction,
            tags: [Tag(["e", target.hex]), Tag(["p", bob.me.hex]), Tag(["k", "9"])], createdAt: 1_800_000_123)
        guard case .published(let bytes) = try alice.send(reaction) else {
            Issue.record("not sent at once")
            return
        }
        let shown = bob.receive(bytes)
        #expect(shown == [.application(sender: alice.me, rumor: reaction, epoch: 1, digest: Data(SHA256.hash(data: bytes)), leaf: alice.state.ownLeafIndex)])
        let kept = try EngineRecordTests.restarted(alice).record.sentAt.values.flatMap { $0 }
        #expect(kept == [reaction])

        let forged = try ChatRumor(author: bob.me, content: "+", kind: .reaction, createdAt: 1_800_000_124)
        #expect(throws: EngineError.self) { try alice.send(forged) }
        #expect(throws: EngineError.self) { try alice.encrypt(forged) }
    }
}
