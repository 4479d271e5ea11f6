import Foundation
import MLS
import Nostr
import NostrClient
import TestSupport
import Testing
@testable import Marmot

/// Our client and the `GroupEngine` the conformance runner checks against MDK's vectors settle the
/// same v2 races on the same branch (issue 24): the client keeps its own branch bookkeeping, so this
/// holds the two to one answer. Admin M makes three commits for epoch 1 (two renames and a
/// self-update); our client Bob and an engine over member E's state take them in the same order,
/// for several orders, and must end in the same epoch, with the same epoch authenticator; then a
/// further commit on a branch that lost makes it the deeper one, and both move there.
@Suite(.serialized, .timeLimit(.minutes(2))) struct EngineAgreementTests {
    /// M's rename made from `state`, delivered to Bob and taken by `engine`; the state it leads to.
    static func rename(
        _ name: String, from state: MLSGroup, by m: V2HostileParty, to bob: TestAccount, and engine: inout GroupEngine
    ) async throws -> MLSGroup {
        var copy = state
        let pending = try RaceFixtures.v2Rename(&copy, to: name)
        await bob.client.deliverForTesting(try m.event(pending.message, epochOf: state))
        _ = engine.receive(pending.message.tlsSerialized)
        _ = engine.settle()
        return pending.newGroup
    }

    /// One commit (`event` carrying `message`) delivered to Bob and taken by `engine`.
    static func deliver(_ event: Event, _ message: MLSMessage, to bob: TestAccount, and engine: inout GroupEngine) async {
        await bob.client.deliverForTesting(event)
        _ = engine.receive(message.tlsSerialized)
        _ = engine.settle()
    }

    @Test(arguments: [[0, 1, 2], [2, 1, 0], [1, 2, 0], [2, 0, 1]])
    func clientAndEngineSettleARaceAlike(order: [Int]) async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (bob, m, e, chat) = try await RaceFixtures.v2(url, bobIsAdmin: false)
        let before = try #require(m.group)
        var first = before, second = before, third = before
        let commits = [
            try RaceFixtures.v2Rename(&first, to: "first"),
            try RaceFixtures.v2Rename(&second, to: "second", admins: [m.publicKey, bob.publicKey]),
            try RaceFixtures.v2SelfUpdate(&third, keys: m.keys),
        ]
        var engine = GroupEngine(rules: V2GroupRules(), keys: e.keys, state: try #require(e.group))
        for index in order {
            await bob.client.deliverForTesting(try m.event(commits[index].message, epochOf: before))
            _ = engine.receive(commits[index].message.tlsSerialized)
            _ = engine.settle()
        }
        let selected = try #require(commits.first { $0.newGroup.epochAuthenticator == engine.state.epochAuthenticator })
        #expect(engine.epoch == 2)
        #expect(await bob.epochState(chat)?.epoch == engine.epoch)
        #expect(await bob.epochState(chat)?.authenticator == engine.state.epochAuthenticator, "order \(order)")
        #expect(try await bob.client.chat(chat)?.name == (try V2GroupRules().metadata(of: selected.newGroup.extensions)).name)

        // M carries on from a branch that lost: one commit more makes it the deeper one, and both
        // move there (effective depth comes before the keys).
        let losing = try #require(commits.last { $0.newGroup.epochAuthenticator != selected.newGroup.epochAuthenticator })
        var deeper = losing.newGroup
        let further = try RaceFixtures.v2Rename(&deeper, to: "deeper")
        await bob.client.deliverForTesting(try m.event(further.message, epochOf: losing.newGroup))
        _ = engine.receive(further.message.tlsSerialized)
        _ = engine.settle()
        #expect(engine.state.epochAuthenticator == further.newGroup.epochAuthenticator)
        #expect(await bob.epochState(chat)?.authenticator == engine.state.epochAuthenticator, "order \(order), deeper")
        #expect(try await bob.client.chat(chat)?.name == "deeper")
        await bob.shutdown()
        await server.stop()
    }

    /// Traffic decides alike: after a race of two renames, members M and E write on the branch that
    /// lost by key. One sender there is no quorum and nobody moves; the second makes a witness
    /// quorum and both Bob and the engine (over member F's state) move there, after each step on the
    /// same branch.
    @Test func clientAndEngineFollowAWitnessQuorumAlike() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        var (bob, m, e, f, chat) = try await RaceFixtures.v2WithTwoMembers(url)

        let before = try #require(m.group)
        var first = before, second = before
        let commits = [try RaceFixtures.v2Rename(&first, to: "first"), try RaceFixtures.v2Rename(&second, to: "second")]
        var engine = GroupEngine(rules: V2GroupRules(), keys: f.keys, state: try #require(f.group))
        func agree(_ step: String) async {
            #expect(await bob.epochState(chat)?.authenticator == engine.state.epochAuthenticator, "\(step)")
        }
        for commit in commits {
            await bob.client.deliverForTesting(try m.event(commit.message, epochOf: before))
            _ = engine.receive(commit.message.tlsSerialized)
            _ = engine.settle()
        }
        await agree("after the race")
        let losing = try #require(commits.first { $0.newGroup.epochAuthenticator != engine.state.epochAuthenticator })

        m.group = losing.newGroup
        e.group = try #require(e.group).processing(losing.message).1
        for (step, writer) in [("one sender", 0), ("two senders", 1)] {
            let message = writer == 0 ? try m.chat("from M") : try e.chat("from E")
            let event = writer == 0 ? try m.event(message) : try e.event(message)
            await bob.client.deliverForTesting(event)
            _ = engine.receive(message.tlsSerialized)
            _ = engine.settle()
            await agree(step)
        }
        #expect(engine.state.epochAuthenticator == losing.newGroup.epochAuthenticator)
        #expect(try await bob.waitForMessage("from M").deliveryState == .received)
        await bob.shutdown()
        await server.stop()
    }

    /// A branch that grows deeper only later: branch A (two commits) is applied first, then branch
    /// B arrives one commit at a time and ends one commit deeper. Each of B's commits after its
    /// first opens only on B; the engine extends B with each and moves there on depth once B is the
    /// deeper one, and Bob must too, in every delivery order of B's commits (issue 24).
    @Test(arguments: [[0, 1, 2], [2, 1, 0], [1, 0, 2]])
    func clientAndEngineMoveToABranchThatGrowsDeeperLater(order: [Int]) async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (bob, m, e, chat) = try await RaceFixtures.v2(url, bobIsAdmin: false)
        let root = try #require(m.group)
        var engine = GroupEngine(rules: V2GroupRules(), keys: e.keys, state: try #require(e.group))
        func feed(_ commit: PendingCommit, from before: MLSGroup) async throws {
            await bob.client.deliverForTesting(try m.event(commit.message, epochOf: before))
            _ = engine.receive(commit.message.tlsSerialized)
            _ = engine.settle()
        }
        var a = root
        for name in ["a1", "a2"] {
            let before = a
            let commit = try RaceFixtures.v2Rename(&a, to: name)
            try await feed(commit, from: before)
            a = commit.newGroup
        }
        #expect(engine.state.epochAuthenticator == a.epochAuthenticator)
        #expect(await bob.epochState(chat)?.authenticator == a.epochAuthenticator)
        var b = root
        var branch: [(commit: PendingCommit, before: MLSGroup)] = []
        for name in ["b1", "b2", "b3"] {
            let before = b
            let commit = try RaceFixtures.v2Rename(&b, to: name)
            branch.append((commit, before))
            b = commit.newGroup
        }
        for index in order { try await feed(branch[index].commit, from: branch[index].before) }
        #expect(engine.state.epochAuthenticator == b.epochAuthenticator, "the engine takes the deeper branch")
        #expect(await bob.epochState(chat)?.epoch == b.epoch, "order \(order)")
        #expect(await bob.epochState(chat)?.authenticator == engine.state.epochAuthenticator, "order \(order)")
        #expect(try await bob.client.chat(chat)?.name == "b3")
        await bob.shutdown()
        await server.stop()
    }

    /// Forks within forks (issue 24). `within`: branch B (b1, b2) grows beside ours (a1 to a3),
    /// then a commit from B's state of epoch 2 (c2) forks B again and grows deepest (c3, c4): Bob
    /// must follow the fork within the other branch. Otherwise: C forks from our own branch at epoch 2 (c2
    /// beside a2), B from epoch 1 grows deeper and Bob moves there, then C grows deepest: Bob must
    /// move to C with our old branch's state of epoch 2 in its path. The engine decides each step.
    @Test(arguments: [true, false])
    func clientAndEngineFollowForksWithinForks(within: Bool) async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (bob, m, e, chat) = try await RaceFixtures.v2(url, bobIsAdmin: false)
        var engine = GroupEngine(rules: V2GroupRules(), keys: e.keys, state: try #require(e.group))
        func commit(_ name: String, from state: MLSGroup) async throws -> MLSGroup {
            try await Self.rename(name, from: state, by: m, to: bob, and: &engine)
        }
        func agree(_ step: String) async {
            #expect(await bob.epochState(chat)?.authenticator == engine.state.epochAuthenticator, "\(step)")
        }
        let root = try #require(m.group)
        let a1 = try await commit("a1", from: root)
        if within {
            let a2 = try await commit("a2", from: a1)
            _ = try await commit("a3", from: a2)
            let b1 = try await commit("b1", from: root)
            _ = try await commit("b2", from: b1)
            await agree("B grown, ours still deeper")
            let c2 = try await commit("c2", from: b1)
            await agree("C forks within B")
            let c3 = try await commit("c3", from: c2)
            let c4 = try await commit("c4", from: c3)
            #expect(engine.state.epochAuthenticator == c4.epochAuthenticator)
            await agree("C deepest")
            #expect(try await bob.client.chat(chat)?.name == "c4")
        } else {
            _ = try await commit("a2", from: a1)
            let c2 = try await commit("c2", from: a1)
            await agree("C forks from our branch")
            let b1 = try await commit("b1", from: root)
            let b2 = try await commit("b2", from: b1)
            let b3 = try await commit("b3", from: b2)
            #expect(engine.state.epochAuthenticator == b3.epochAuthenticator)
            await agree("B deepest")
            let c3 = try await commit("c3", from: c2)
            let c4 = try await commit("c4", from: c3)
            let c5 = try await commit("c5", from: c4)
            #expect(engine.state.epochAuthenticator == c5.epochAuthenticator)
            await agree("C deepest")
            #expect(try await bob.client.chat(chat)?.name == "c5")
        }
        await bob.shutdown()
        await server.stop()
    }

    /// Our own message sent again after a switch is our witness on the branch we moved to, as it
    /// is for every member that reads it: Bob writes on A, B grows deeper and he moves there and
    /// sends it again, then C competes with B's last commit at the same depth and without traffic.
    /// The engine, which reads both of Bob's copies, keeps B on his witness; so must Bob (before,
    /// a message sent again counted for nothing and the keys alone chose).
    @Test func aMessageSentAgainIsOurWitnessOnTheNewBranch() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (bob, m, e, chat) = try await RaceFixtures.v2(url, bobIsAdmin: false)
        var engine = GroupEngine(rules: V2GroupRules(), keys: e.keys, state: try #require(e.group))
        var states: [MLSGroup] = []
        func commit(_ name: String, from state: MLSGroup) async throws -> MLSGroup {
            let next = try await Self.rename(name, from: state, by: m, to: bob, and: &engine)
            states.append(next)
            return next
        }
        let root = try #require(m.group)
        _ = try await commit("a1", from: root)
        let mine = try await bob.client.send(text: "mine", to: chat)
        let b1 = try await commit("b1", from: root)
        let b2 = try await commit("b2", from: b1)
        #expect(await bob.epochState(chat)?.authenticator == b2.epochAuthenticator)
        let store = bob.store, rumorID = mine.message.rumorID, group = chat, first = mine.message.outerEventID
        try await waitUntil("Bob sends his message again on B", timeout: 20) {
            (try? store.message(mlsGroupID: group, rumorID: rumorID))??.outerEventID != first
        }
        // Both copies reach the engine, as they reach every member.
        let keys = try states.map { state in try GroupEventKey(exporter: { try state.exporter(label: $0, context: $1, length: $2) }) }
        for event in try await RelayReads.fetch(Filter(kinds: [.groupMessage]), from: url) {
            let bytes = try #require(keys.lazy.compactMap { try? GroupEventCipher.decrypt(event.content, key: $0) }.first)
            _ = engine.receive(bytes)
            _ = engine.settle()
        }
        _ = try await commit("c2", from: b1)
        #expect(engine.state.epochAuthenticator == b2.epochAuthenticator, "Bob's witness keeps B")
        #expect(await bob.epochState(chat)?.authenticator == engine.state.epochAuthenticator)
        await bob.shutdown()
        await server.stop()
    }

    /// E's self-update is applied and built upon (M renames on top of it) before M's removal of E,
    /// made from the epoch before, arrives: racing one's own removal is never a valid history, so
    /// the removal ends E's branch however deep it is, for the engine (which drops it) and for Bob
    /// alike (issue 24, N1). Before, Bob stayed on the deeper branch with E in the group.
    @Test func aRemovalEndsTheRemovedMembersRacingBranchHoweverDeep() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (bob, m, e, f, chat) = try await RaceFixtures.v2WithTwoMembers(url)
        var engine = GroupEngine(rules: V2GroupRules(), keys: f.keys, state: try #require(f.group))
        let root = try #require(m.group)
        var updated = try #require(e.group)
        let update = try RaceFixtures.v2SelfUpdate(&updated, keys: e.keys)
        await Self.deliver(try e.event(update.message, epochOf: try #require(e.group)), update.message, to: bob, and: &engine)
        var onUpdate = try root.processing(update.message).1
        let before = onUpdate
        let rename = try RaceFixtures.v2Rename(&onUpdate, to: "on E's branch")
        await Self.deliver(try m.event(rename.message, epochOf: before), rename.message, to: bob, and: &engine)
        #expect(await bob.epochState(chat)?.epoch == 3)
        var removing = root
        let removal = try removing.commit(removing: [try RaceFixtures.leaf(of: e.publicKey, in: root)])
        await Self.deliver(try m.event(removal.message, epochOf: root), removal.message, to: bob, and: &engine)
        #expect(engine.state.epochAuthenticator == removal.newGroup.epochAuthenticator)
        #expect(await bob.epochState(chat)?.authenticator == engine.state.epochAuthenticator)
        #expect(try await bob.client.chat(chat)?.members.contains(e.publicKey) == false)
        await bob.shutdown()
        await server.stop()
    }

    /// N1 from further back: M renames the group and then removes E; E, from the state before
    /// the rename (where it still was a member), commits three self-updates alone, one deeper than
    /// M's branch. Its self-updates race no removal directly (the first stands beside the rename),
    /// but its branch uses E's membership, which the other branch revokes: whatever the order,
    /// our client and the engine stay on M's branch with E out. Before, the engine took E's deeper
    /// branch, and our client did too whenever E's commits came before the removal.
    @Test(arguments: [false, true])
    func aRemovedMemberCannotOutgrowItsRemovalFromBeforeIt(removalFirst: Bool) async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (bob, m, e, f, chat) = try await RaceFixtures.v2WithTwoMembers(url)
        var engine = GroupEngine(rules: V2GroupRules(), keys: f.keys, state: try #require(f.group))
        let root = try #require(m.group)
        var renamed = root
        let rename = try RaceFixtures.v2Rename(&renamed, to: "M's branch")
        let afterRename = rename.newGroup
        var removing = afterRename
        let removal = try removing.commit(removing: [try RaceFixtures.leaf(of: e.publicKey, in: afterRename)])
        let mCommits = [
            (try m.event(rename.message, epochOf: root), rename.message),
            (try m.event(removal.message, epochOf: afterRename), removal.message),
        ]
        var eState = try #require(e.group)
        var eCommits: [(Event, MLSMessage)] = []
        for _ in 0..<3 {
            let before = eState
            let update = try RaceFixtures.v2SelfUpdate(&eState, keys: e.keys)
            eCommits.append((try e.event(update.message, epochOf: before), update.message))
            eState = update.newGroup
        }
        for (event, message) in removalFirst ? mCommits + eCommits : eCommits + mCommits {
            await Self.deliver(event, message, to: bob, and: &engine)
        }
        #expect(engine.state.epochAuthenticator == removal.newGroup.epochAuthenticator)
        #expect(await bob.epochState(chat)?.authenticator == engine.state.epochAuthenticator)
        #expect(try await bob.client.chat(chat)?.members.contains(e.publicKey) == false)
        await bob.shutdown()
        await server.stop()
    }

    /// When both branches of a fork remove E after a commit of E's, neither raced that removal:
    /// selection weighs them as usual, and engines fed the commits in opposite orders agree
    /// (dropping a branch from the graph, as a first version of the deeper rule did, made this
    /// order-dependent: whichever removal came first dropped the other branch for good).
    @Test func branchesThatBothRemoveAMemberAreWeighedAsUsual() throws {
        var m = V2HostileParty(), e = V2HostileParty(), f = V2HostileParty()
        let welcome = try m.createGroup(
            admins: [m.publicKey], invitees: [try e.makeKeyPackage(), try f.makeKeyPackage()], relays: [try RelayURL("wss://r.example")])
        try e.join(welcome)
        try f.join(welcome)
        let root = try #require(e.group)
        var branches: [[Data]] = []
        var tips: [MLSGroup] = []
        for depth in [1, 2] {
            var eState = root
            let update = try RaceFixtures.v2SelfUpdate(&eState, keys: e.keys)
            var mState = try #require(m.group).processing(update.message).1
            var commits = [update.message.tlsSerialized]
            for step in 0..<depth {
                let pending = step == depth - 1
                    ? try mState.commit(removing: [try RaceFixtures.leaf(of: e.publicKey, in: mState)])
                    : try RaceFixtures.v2Rename(&mState, to: "step \(step)")
                commits.append(pending.message.tlsSerialized)
                mState = pending.newGroup
            }
            branches.append(commits)
            tips.append(mState)
        }
        var results: [Data] = []
        for order in [branches[0] + branches[1], branches[1] + branches[0]] {
            var engine = GroupEngine(rules: V2GroupRules(), keys: f.keys, state: try #require(f.group))
            for bytes in order {
                _ = engine.receive(bytes)
                _ = engine.settle()
            }
            results.append(engine.state.epochAuthenticator)
        }
        // The deeper branch wins on depth in both orders.
        #expect(results == [tips[1].epochAuthenticator, tips[1].epochAuthenticator])
    }

    /// Admins M and E demote each other at once, from the same state, and nobody else spoke: each
    /// commit uses an authority the other takes away, and nothing but the two commits tells them
    /// apart, so our client and the engine both take the one MDK 0.9.14 ranks first (one epoch
    /// deep each, both privileged: the lower committer key), in either order; the group carries
    /// on from it. Before, both were left out and the group stayed where it was, which MDK never
    /// does, and which let a removed admin undo its removal at will (D1, `RevokeBackTests`).
    @Test(arguments: [false, true])
    func twoAdminsDemotingEachOtherAreRankedAsMDKRanksThem(mFirst: Bool) async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (bob, m, e, f, chat) = try await RaceFixtures.v2WithTwoMembers(url, eIsAdmin: true)
        var engine = GroupEngine(rules: V2GroupRules(), keys: f.keys, state: try #require(f.group))
        let root = try #require(m.group)
        var mState = root, eState = try #require(e.group)
        let byM = try RaceFixtures.v2Rename(&mState, to: "M alone", admins: [m.publicKey])
        let byE = try RaceFixtures.v2Rename(&eState, to: "E alone", admins: [e.publicKey])
        let commits = [
            (try m.event(byM.message, epochOf: root), byM.message),
            (try e.event(byE.message, epochOf: try #require(e.group)), byE.message),
        ]
        for (event, message) in mFirst ? commits : commits.reversed() {
            await Self.deliver(event, message, to: bob, and: &engine)
        }
        let mWins = try RaceFixtures.key(byM, before: root) < RaceFixtures.key(byE, before: root)
        let (winner, admin) = mWins ? (byM.newGroup, m.publicKey) : (byE.newGroup, e.publicKey)
        #expect(engine.state.epochAuthenticator == winner.epochAuthenticator)
        #expect(await bob.epochState(chat)?.authenticator == winner.epochAuthenticator)
        #expect(try #require(try await bob.client.chat(chat)).admins == [admin])
        // The group carries on from there.
        var carry = winner
        let rename = try RaceFixtures.v2Rename(&carry, to: "after the race")
        let by = mWins ? m : e
        await Self.deliver(try by.event(rename.message, epochOf: winner), rename.message, to: bob, and: &engine)
        #expect(engine.state.epochAuthenticator == rename.newGroup.epochAuthenticator)
        #expect(await bob.epochState(chat)?.authenticator == rename.newGroup.epochAuthenticator)
        #expect(try await bob.client.chat(chat)?.name == "after the race")
        await bob.shutdown()
        await server.stop()
    }
}
