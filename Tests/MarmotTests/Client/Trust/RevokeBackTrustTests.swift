import Foundation
import MLS
import Nostr
import NostrClient
import TestSupport
import Testing
@testable import Marmot

/// D1 over a real relay (security review 2026-12-01): admin M removes admin E, member F talks on
/// M's branch and M renames the group; E, from the state where it still was an admin, publishes a
/// commit removing M and three self-updates, a branch two commits deeper than M's. Our client Bob
/// and an engine over F's state keep E out and stay on M's branch, and M's next commit stands.
/// Before, the two branches revoking each other were both left out: Bob went back to the state
/// before E's removal, E an admin again and every later send of Bob's encrypted to it.
@Suite(.serialized, .timeLimit(.minutes(3))) struct RevokeBackTrustTests {
    @Test func aRemovedAdminRevokingItsRemoverBackOverTheRelayStaysOut() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        var (bob, m, e, f, chat) = try await RaceFixtures.v2WithTwoMembers(url, eIsAdmin: true)
        var engine = GroupEngine(rules: V2GroupRules(), keys: f.keys, state: try #require(f.group))
        let eLeaf = try RaceFixtures.leaf(of: e.publicKey, in: m.group)
        let mLeaf = try RaceFixtures.leaf(of: m.publicKey, in: e.group)

        // M removes E; F takes it and talks; M renames the group.
        let (mKey, eKey) = (m.publicKey, e.publicKey)
        let removal = try m.commit { try RaceFixtures.v2Remove(&$0, eLeaf, admins: [mKey]) }
        #expect(try await RelayReads.publish(try m.event(removal.message, epochOf: removal.before), to: url).isAccepted)
        #expect(try await bob.waitForCommit(epoch: 2, by: m.publicKey) == m.publicKey)
        _ = engine.receive(removal.message.tlsSerialized)
        _ = engine.settle()
        let talk = try engine.encrypt("on M's branch", createdAt: UnsignedEvent.now())
        #expect(try await RelayReads.publish(try m.event(try MLSMessage(tlsSerialized: talk)), to: url).isAccepted)
        _ = try await bob.waitForMessage("on M's branch")
        let rename = try m.commit { try RaceFixtures.v2Rename(&$0, to: "M's name") }
        #expect(try await RelayReads.publish(try m.event(rename.message, epochOf: rename.before), to: url).isAccepted)
        #expect(try await bob.waitForCommit(epoch: 3, by: m.publicKey) == m.publicKey)
        _ = engine.receive(rename.message.tlsSerialized)
        _ = engine.settle()

        // E revokes M back from epoch 1 and grows its branch.
        let keys = e.keys
        var attack = [try e.commit { try RaceFixtures.v2Remove(&$0, mLeaf, admins: [eKey]) }]
        for _ in 0..<3 { attack.append(try e.commit { try RaceFixtures.v2SelfUpdate(&$0, keys: keys) }) }
        #expect(e.group?.epoch == 5)
        for commit in attack {
            #expect(try await RelayReads.publish(try e.event(commit.message, epochOf: commit.before), to: url).isAccepted)
            _ = engine.receive(commit.message.tlsSerialized)
            _ = engine.settle()
        }

        // M carries on; Bob, having read E's branch before it (one relay keeps the order), takes it.
        let after = try m.commit { try RaceFixtures.v2Rename(&$0, to: "after the attack") }
        #expect(try await RelayReads.publish(try m.event(after.message, epochOf: after.before), to: url).isAccepted)
        #expect(try await bob.waitForCommit(epoch: 4, by: m.publicKey) == m.publicKey)
        _ = engine.receive(after.message.tlsSerialized)
        _ = engine.settle()

        let listing = try #require(try await bob.client.chat(chat))
        #expect(!listing.members.contains(e.publicKey))
        #expect(listing.members.contains(m.publicKey))
        #expect(listing.admins == [m.publicKey])
        #expect(listing.name == "after the attack")
        #expect(await bob.epochState(chat)?.authenticator == m.group?.epochAuthenticator)
        #expect(engine.state.epochAuthenticator == m.group?.epochAuthenticator)
        await bob.shutdown()
        await server.stop()
    }
}
