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
}
