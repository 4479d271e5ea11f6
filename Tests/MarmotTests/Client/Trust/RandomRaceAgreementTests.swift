import Foundation
import MLS
import Nostr
import NostrClient
import TestSupport
import Testing
@testable import Marmot

/// Random v2 forks, settled alike by our client and the `GroupEngine` that the conformance runner
/// checks against MDK 0.9.14's vectors (issue 24): admin M commits renames and self-updates from
/// states anywhere in the group's recent history (so branches of several commits grow side by
/// side), M and member E write on them, and everything reaches our client Bob and an engine over
/// member F's state in one random order. Both must end on the same branch (the same epoch
/// authenticator), and so must a second engine fed in the order the history was made: the choice
/// may not depend on the delivery order. Each seed is one history; a failing seed replays exactly.
/// (Before: a branch that grew after it was kept, a message of one of its earlier epochs, and
/// three branches forking at different epochs each made the two disagree.)
@Suite(.serialized, .timeLimit(.minutes(3))) struct RandomRaceAgreementTests {
    /// One state of the history as each party holds it.
    private struct Node {
        var m: MLSGroup
        var e: MLSGroup
        var f: MLSGroup
        let depth: Int
        let parent: Int?
    }

    @Test(arguments: 0..<64)
    func clientAndEngineSettleRandomForksAlike(seed: UInt64) async throws {
        var rng = SplitMix(state: 0x5eed_0000 + seed)
        let (server, url) = try await ClientHarness.startRelay()
        let bob = try await TestAccount("bob", relayURLs: [url], options: RaceFixtures.options)
        _ = try await bob.client.publishKeyPackage(version: .v2)
        let bobsPackage = try await V2HostileParty.keyPackage(of: bob.publicKey, on: url)
        var m = V2HostileParty(), e = V2HostileParty(), f = V2HostileParty()
        let ePackage = try e.makeKeyPackage(), fPackage = try f.makeKeyPackage()
        let relays = [try RelayURL(url)]
        let welcome = try m.createGroup(
            admins: [m.publicKey], invitees: [bobsPackage.keyPackage, ePackage, fPackage], relays: relays)
        try e.join(welcome)
        try f.join(welcome)
        #expect(try await RelayReads.publish(try m.wrap(welcome, to: bobsPackage, relays: relays), to: url).isAccepted)
        let chat = try await bob.client.acceptInvite(try await bob.waitForInvite().id).id
        var engine = GroupEngine(rules: V2GroupRules(), keys: f.keys, state: try #require(f.group))

        // The history: commits from random states within three commits of the start, messages on
        // random states; at most three branches, so every one stays within what both keep.
        var nodes = [Node(m: try #require(m.group), e: try #require(e.group), f: try #require(f.group), depth: 0, parent: nil)]
        var inputs: [(event: Event, bytes: Data, what: String)] = []
        for step in 0..<9 {
            let index = Int.random(in: 0..<nodes.count, using: &rng)
            let node = nodes[index]
            let isTip = !nodes.contains { $0.parent == index }
            let tips = nodes.indices.filter { i in !nodes.contains { $0.parent == i } }.count
            if Int.random(in: 0..<3, using: &rng) < 2, node.depth < 3, isTip || tips < 3 {
                var state = node.m
                let commit = Bool.random(using: &rng)
                    ? try RaceFixtures.v2Rename(&state, to: "n\(step)")
                    : try RaceFixtures.v2SelfUpdate(&state, keys: m.keys)
                inputs.append((try m.event(commit.message, epochOf: node.m), commit.message.tlsSerialized, "commit n\(step) at \(index)"))
                nodes.append(Node(
                    m: commit.newGroup, e: try node.e.processing(commit.message).1, f: try node.f.processing(commit.message).1,
                    depth: node.depth + 1, parent: index))
            } else {
                let fromM = Bool.random(using: &rng)
                var party = fromM ? m : e
                party.group = fromM ? node.m : node.e
                let message = try party.chat("s\(step)")
                inputs.append((try party.event(message), message.tlsSerialized, "message s\(step) at \(index)"))
                if fromM { nodes[index].m = try #require(party.group) } else { nodes[index].e = try #require(party.group) }
            }
        }
        // The same history in the order it was made, to an engine of its own: the reference must
        // not depend on the order either.
        var inOrder = GroupEngine(rules: V2GroupRules(), keys: f.keys, state: try #require(f.group))
        for input in inputs {
            _ = inOrder.receive(input.bytes)
            _ = inOrder.settle()
        }
        inputs.shuffle(using: &rng)
        for input in inputs {
            await bob.client.deliverForTesting(input.event)
            _ = engine.receive(input.bytes)
            _ = engine.settle()
        }
        let order = inputs.map(\.what).joined(separator: ", ")
        #expect(inOrder.state.epochAuthenticator == engine.state.epochAuthenticator, "seed \(seed): \(order)")
        #expect(await bob.epochState(chat)?.epoch == engine.epoch, "seed \(seed): \(order)")
        #expect(await bob.epochState(chat)?.authenticator == engine.state.epochAuthenticator, "seed \(seed): \(order)")
        await bob.shutdown()
        await server.stop()
    }
}
