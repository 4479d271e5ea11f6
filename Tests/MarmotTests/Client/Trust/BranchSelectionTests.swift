import Foundation
import MLS
import Nostr
import NostrClient
import TestSupport
import Testing
@testable import Marmot

/// v2 races settled as MDK 0.9.14 settles them (issue 24): the deeper branch first, then traffic,
/// then the commits' keys, so our clients and White Noise's end on the same branch.
@Suite(.serialized, .timeLimit(.minutes(2))) struct BranchSelectionTests {
    /// Bob applies the commit with the better key and keeps the other as the alternate. A further
    /// commit on the alternate makes that branch deeper (2 against 1): Bob moves there, at epoch 3,
    /// with its group data, as every MDK client does; before the fix he stayed on the shallower
    /// branch and forked off. With `restart`, Bob restarts between the fork and the further commit:
    /// the other branch was kept in the store, so the commit still opens there. Before open forks
    /// were stored, the restarted Bob had forgotten that branch and stayed behind at epoch 2.
    @Test(arguments: [false, true]) func aDeeperBranchWinsOverABetterKey(restart: Bool) async throws {
        let (server, url) = try await ClientHarness.startRelay()
        var (bob, m, _, chat) = try await RaceFixtures.v2(url, bobIsAdmin: false)
        var sender = m
        let alternate = try await Self.renameRace(bob: bob, m: m, chat: chat)
        if restart { bob = try await bob.restarted() }

        var deeper = alternate.newGroup
        let further = try RaceFixtures.v2Rename(&deeper, to: "deeper")
        sender.group = alternate.newGroup
        await bob.client.deliverForTesting(try sender.event(further.message, epochOf: alternate.newGroup))
        #expect(await bob.epochState(chat)?.epoch == 3)
        #expect(await bob.epochState(chat)?.authenticator == further.newGroup.epochAuthenticator)
        #expect(try await bob.client.chat(chat)?.name == "deeper")

        // The group carries on there: M's next message opens.
        sender.group = further.newGroup
        await bob.client.deliverForTesting(try sender.event(try sender.chat("on the deeper branch")))
        #expect(try await bob.waitForMessage("on the deeper branch").deliveryState == .received)
        await bob.shutdown()
        await server.stop()
    }

    /// M renames the group twice from the same epoch; Bob gets both and applies the one with the
    /// better key. Returns the other (the alternate branch's commit).
    private static func renameRace(bob: TestAccount, m: V2HostileParty, chat: GroupID) async throws -> PendingCommit {
        let before = try #require(m.group)
        var first = before
        let one = try RaceFixtures.v2Rename(&first, to: "one")
        var second = before
        let two = try RaceFixtures.v2Rename(&second, to: "two")
        let oneWins = try RaceFixtures.key(one, before: before) < RaceFixtures.key(two, before: before)
        let (applied, alternate) = oneWins ? (one, two) : (two, one)
        await bob.client.deliverForTesting(try m.event(applied.message, epochOf: before))
        await bob.client.deliverForTesting(try m.event(alternate.message, epochOf: before))
        #expect(await bob.epochState(chat)?.authenticator == applied.newGroup.epochAuthenticator)
        return alternate
    }

    /// Bob (an admin) adds Carol while admin M renames the group from the same epoch, then M commits
    /// again on its branch. Whichever way the first race goes, M's branch is the deeper one, so Bob
    /// ends there, without Carol: his add was on the abandoned branch and her Welcome is for a
    /// branch nobody follows. Bob makes the add again on M's branch: Carol is a member at epoch 4
    /// and joins from the new Welcome.
    @Test func anAddThatLostTheRaceIsMadeAgainOnTheWinningBranch() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        var (bob, m, _, chat) = try await RaceFixtures.v2(url, bobIsAdmin: true)
        let carol = try await TestAccount("carol", relayURLs: [url], options: RaceFixtures.options)
        _ = try await carol.client.publishKeyPackage(version: .v2)
        _ = try await bob.client.addMembers([carol.publicKey], to: chat)
        #expect(await bob.epochState(chat)?.epoch == 2)
        _ = try await carol.waitForInvite()

        let rename = try m.commit { try RaceFixtures.v2Rename(&$0, to: "M's branch") }
        await bob.client.deliverForTesting(try m.event(rename.message, epochOf: rename.before))
        let further = try m.commit { try RaceFixtures.v2Rename(&$0, to: "M's branch, deeper") }
        await bob.client.deliverForTesting(try m.event(further.message, epochOf: further.before))
        let (client, id) = (bob.client, chat)
        try await waitUntil("bob adds carol again on M's branch", timeout: 60) {
            let chat = try? await client.chat(id)
            return chat?.members.contains(carol.publicKey) == true && chat?.epoch == 4
        }
        #expect(try await bob.client.chat(chat)?.name == "M's branch, deeper")

        let again = try await carol.waitForInvite()
        let joined = try await carol.client.acceptInvite(again.id)
        #expect(joined.epoch == 4)
        _ = try await bob.client.send(text: "welcome on the winning branch", to: chat)
        #expect(try await carol.waitForMessage("welcome on the winning branch").deliveryState == .received)
        await carol.shutdown()
        await bob.shutdown()
        await server.stop()
    }
}
