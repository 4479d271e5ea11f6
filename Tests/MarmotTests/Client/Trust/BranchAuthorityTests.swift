import Foundation
import MLS
import Nostr
import NostrClient
import NostrRelay
import TestSupport
import Testing
@testable import Marmot

/// Competing commits and alternate branches judged against the branch we are on, not only the
/// fork-point snapshot (issue 24: N1, N2, N4, N6, N10). Each test has a hostile party try it.
@Suite(.serialized, .timeLimit(.minutes(3))) struct BranchAuthorityTests {
    /// N1, v1: admin M removes member A; A answers with a self-update for the same epoch dated a
    /// minute earlier (inside the back-dating bound, so the date rule alone would take it). A is no
    /// member on Bob's branch: refused. Before the fix Bob rolled back and A was back in.
    @Test func removedMemberCannotUndoItsRemovalWithAnEarlierSelfUpdate() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        var (bob, m, a, chat) = try await RaceFixtures.v1(url, aIsAdmin: false)
        let now = UnsignedEvent.now()
        let aLeaf = try RaceFixtures.leaf(of: a.publicKey, in: m.group)
        let removal = try m.commit { try $0.commit(removing: [aLeaf]) }
        let removalEvent = try m.event(removal.message, createdAt: now, epochOf: removal.before)
        await bob.client.deliverForTesting(removalEvent)
        #expect(try await bob.client.chat(chat)?.members.contains(a.publicKey) == false)

        let comeback = try a.commit { try RaceFixtures.v1SelfUpdate(&$0) }
        let comebackEvent = try a.event(comeback.message, createdAt: now - 60, epochOf: comeback.before)
        await bob.client.deliverForTesting(comebackEvent)
        #expect(await RaceFixtures.refused(bob, comebackEvent.id, because: "not a member"))
        #expect(try await bob.client.snapshotForTesting(chat, epoch: 1)?.eventID == removalEvent.id)
        #expect(try await bob.client.chat(chat)?.members.contains(a.publicKey) == false)
        await bob.shutdown()
        await server.stop()
    }

    /// N1, v2 by chatter: admin M removes member E; E's self-update for that epoch loses the race,
    /// and E then writes on its own branch, so that the message opens only there. Bob must neither
    /// keep nor follow that branch. Before the fix Bob followed it and E was a member again.
    @Test func removedMemberCannotPullUsOntoItsBranchWithTraffic() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        var (bob, m, e, chat) = try await RaceFixtures.v2(url, bobIsAdmin: false)
        let eLeaf = try RaceFixtures.leaf(of: e.publicKey, in: m.group)
        let removal = try m.commit { try $0.commit(removing: [eLeaf]) }
        let removalEvent = try m.event(removal.message, epochOf: removal.before, createdAt: UnsignedEvent.now() - 5)
        await bob.client.deliverForTesting(removalEvent)
        #expect(try await bob.client.chat(chat)?.members.contains(e.publicKey) == false)

        let keys = e.keys
        let update = try e.commit { try RaceFixtures.v2SelfUpdate(&$0, keys: keys) }
        await bob.client.deliverForTesting(try e.event(update.message, epochOf: update.before))
        let chatter = try e.chat("I am still here")
        await bob.client.deliverForTesting(try e.event(chatter))
        #expect(try await bob.client.chat(chat)?.members.contains(e.publicKey) == false)
        #expect(await bob.epochState(chat)?.authenticator == m.group?.epochAuthenticator)
        #expect(try await bob.allMessages(chat).contains { $0.content == "I am still here" } == false)
        await bob.shutdown()
        await server.stop()
    }

    /// N2, v1: admin A demotes admin M; M, from the epoch before, commits A's removal dated a minute
    /// earlier. Authorized against that old state, but M is no admin on Bob's branch: refused.
    /// Before the fix Bob rolled back onto M's branch and A was gone.
    @Test func demotedAdminCannotCommitAsAdminFromAnOldSnapshot() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        var (bob, m, a, chat) = try await RaceFixtures.v1(url, aIsAdmin: true)
        let now = UnsignedEvent.now()
        let rules = V1GroupRules()
        var data = try rules.metadata(of: try #require(a.group).extensions)
        data.admins = [a.publicKey]
        let proposals = try rules.proposals(changing: try #require(a.group).extensions, to: data)
        let demotion = try a.commit { try $0.commit(proposals: proposals) }
        let demotionEvent = try a.event(demotion.message, createdAt: now, epochOf: demotion.before)
        await bob.client.deliverForTesting(demotionEvent)
        #expect(try await bob.client.chat(chat)?.admins == [a.publicKey])

        let aLeaf = try RaceFixtures.leaf(of: a.publicKey, in: m.group)
        let coup = try m.commit { try $0.commit(removing: [aLeaf]) }
        let coupEvent = try m.event(coup.message, createdAt: now - 60, epochOf: coup.before)
        await bob.client.deliverForTesting(coupEvent)
        #expect(await RaceFixtures.refused(bob, coupEvent.id, because: "not an admin on our branch"))
        let after = try #require(try await bob.client.chat(chat))
        #expect(Set(after.members) == [m.publicKey, a.publicKey, bob.publicKey])
        #expect(after.admins == [a.publicKey])
        await bob.shutdown()
        await server.stop()
    }

    /// N4, v2: Bob (an admin) self-updates; admin M renames the group in the same epoch, and the
    /// rename wins. Bob's lost commit changed no group data, so nothing is re-issued: the winner's
    /// name stays. Before the fix Bob re-committed his branch's old name over it.
    @Test func lostSelfUpdateDoesNotRevertTheWinnersRename() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        var (bob, m, _, chat) = try await RaceFixtures.v2(url, bobIsAdmin: true)
        let own = try await bob.client.selfUpdate(chat)
        #expect(own.epoch == 2)
        let rename = try m.commit { try RaceFixtures.v2Rename(&$0, to: "the winner's name") }
        await bob.client.deliverForTesting(try m.event(rename.message, epochOf: rename.before, createdAt: UnsignedEvent.now() - 30))
        #expect(await bob.epochState(chat)?.authenticator == m.group?.epochAuthenticator)
        let after = try #require(try await bob.client.chat(chat))
        #expect(after.name == "the winner's name")
        #expect(after.epoch == 2)
        await bob.shutdown()
        await server.stop()
    }

    /// N6, v1: admin M makes two commits for one epoch: one renames to "plain" (dated earlier, so
    /// it wins), the other renames to "promoting" and makes Bob an admin. Bob applies the first,
    /// keeps the other as the alternate, and follows it when M's next message opens only there (as
    /// MDK 0.8.0 keeps its own branch); he then has that branch's name and admins, with system
    /// lines. Before the fix he kept the old branch's name and admins.
    @Test func followingABranchAdoptsItsGroupData() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (bob, m, _, chat) = try await RaceFixtures.v1(url, aIsAdmin: false)
        let before = try #require(m.group)
        let now = UnsignedEvent.now()
        var first = before
        let plain = try RaceFixtures.v1Rename(&first, to: "plain")
        var second = before
        let promoting = try RaceFixtures.v1Rename(&second, to: "promoting", admins: [m.publicKey, bob.publicKey])
        var sender = m
        await bob.client.deliverForTesting(try sender.event(plain.message, createdAt: now - 10, epochOf: before))
        await bob.client.deliverForTesting(try sender.event(promoting.message, createdAt: now, epochOf: before))
        #expect(try await bob.client.chat(chat)?.name == "plain")
        let linesBefore = try await bob.allMessages(chat).filter { $0.deliveryState == .notice }.count

        sender.group = promoting.newGroup
        var group = promoting.newGroup
        let hello = try group.encrypt(try ChatRumor(author: m.publicKey, content: "on the other branch").plaintext)
        sender.group = group
        await bob.client.deliverForTesting(try sender.event(hello))
        let after = try #require(try await bob.client.chat(chat))
        #expect(await bob.epochState(chat)?.authenticator == promoting.newGroup.epochAuthenticator)
        #expect(after.name == "promoting")
        #expect(Set(after.admins) == [m.publicKey, bob.publicKey])
        let lines = try await bob.allMessages(chat).filter { $0.deliveryState == .notice }.count
        #expect(lines > linesBefore)
        await bob.shutdown()
        await server.stop()
    }

    /// N6 on a rollback, v1: admin M renames the group to "plain" and, for the same epoch, makes a
    /// self-update dated earlier. Bob applies the rename (and shows its line), then rolls back to
    /// the self-update, which wins: the name goes back to the fork point's, and a system line says
    /// so, as when following a branch. Before, the name changed back without a line.
    @Test func rollingBackShowsTheGroupDataItUndoes() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (bob, m, _, chat) = try await RaceFixtures.v1(url, aIsAdmin: false)
        let before = try #require(m.group)
        let original = try #require(try await bob.client.chat(chat)).name
        let now = UnsignedEvent.now()
        var first = before
        let plain = try RaceFixtures.v1Rename(&first, to: "plain")
        var second = before
        let update = try RaceFixtures.v1SelfUpdate(&second)
        let sender = m
        await bob.client.deliverForTesting(try sender.event(plain.message, createdAt: now, epochOf: before))
        #expect(try await bob.client.chat(chat)?.name == "plain")
        func renames() async throws -> Int {
            try await bob.allMessages(chat).filter {
                $0.deliveryState == .notice && SystemNotice(content: $0.content)?.change == .renamed
            }.count
        }
        let renamedBefore = try await renames()
        #expect(renamedBefore == 1)

        await bob.client.deliverForTesting(try sender.event(update.message, createdAt: now - 10, epochOf: before))
        #expect(await bob.epochState(chat)?.authenticator == update.newGroup.epochAuthenticator)
        #expect(try await bob.client.chat(chat)?.name == original)
        #expect(try await renames() == 2, "the name changed back without a system line")
        await bob.shutdown()
        await server.stop()
    }

    /// v2 (MDK 0.9.14 branch selection): after a race Bob is on the branch with the better key and
    /// has sent a message there. A lone sender on the losing branch does not pull him over (one
    /// sender each: the keys decide); its message is held, not lost. When a second member's message
    /// opens there too, that branch has a witness quorum (two senders in one epoch) against Bob's
    /// one: Bob moves over, as every MDK client would, and the held message is shown.
    @Test func v2LosingBranchWinsOnlyWithMoreTraffic() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        var (bob, m, e, chat) = try await RaceFixtures.v2(url, bobIsAdmin: false)
        let before = try #require(m.group)
        var first = before
        let plain = try RaceFixtures.v2Rename(&first, to: "plain")
        var second = before
        let promoting = try RaceFixtures.v2Rename(&second, to: "promoting", admins: [m.publicKey, bob.publicKey])
        let plainWins = try RaceFixtures.key(plain, before: before) < RaceFixtures.key(promoting, before: before)
        let (applied, alternate) = plainWins ? (plain, promoting) : (promoting, plain)
        var sender = m
        await bob.client.deliverForTesting(try sender.event(applied.message, epochOf: before))
        await bob.client.deliverForTesting(try sender.event(alternate.message, epochOf: before))
        let original = try await bob.client.send(text: "bob on the applied branch", to: chat).message.outerEventID

        sender.group = alternate.newGroup
        let hello = try sender.chat("on the losing branch")
        await bob.client.deliverForTesting(try sender.event(hello))
        #expect(await bob.epochState(chat)?.authenticator == applied.newGroup.epochAuthenticator)
        #expect(try await bob.client.chat(chat)?.name == (try V2GroupRules().metadata(of: applied.newGroup.extensions)).name)

        e.group = try #require(e.group).processing(alternate.message).1
        let also = try e.chat("E is there too")
        await bob.client.deliverForTesting(try e.event(also))
        #expect(await bob.epochState(chat)?.authenticator == alternate.newGroup.epochAuthenticator)
        #expect(try await bob.client.chat(chat)?.name == (try V2GroupRules().metadata(of: alternate.newGroup.extensions)).name)
        // The branch's messages show in the order they came: the held one first.
        #expect(try await bob.waitForMessage("on the losing branch").deliveryState == .received, "the held message was not lost")
        #expect(try await bob.waitForMessage("E is there too").deliveryState == .received)

        // Bob's own message of the branch he left is made again on the winner and sealed with
        // the winner's key: a member who only ever held that branch opens it.
        let client = bob.client, group = chat
        let resent = try await withTimeout(60, "bob's message made again") { () async throws -> Event in
            while true {
                let ours = try await client.messages(in: group, before: nil, limit: 20).messages
                    .first { $0.content == "bob on the applied branch" }
                if let ours, ours.deliveryState == .sent, let id = ours.outerEventID, id != original,
                   let event = try await RelayReads.fetch(Filter(ids: [id]), from: url).first {
                    return event
                }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        let winnerKey = try GroupEventKey(exporter: { try alternate.newGroup.exporter(label: $0, context: $1, length: $2) })
        let envelope = try V2GroupRules().validateEnvelope(resent, now: UnsignedEvent.now(), window: .mdkDefault)
        #expect(throws: Never.self, "sealed with the winning branch's key") { _ = try envelope.decrypt(tryingKeys: [winnerKey]) }
        await bob.shutdown()
        await server.stop()
    }

    /// N10, v2: admin M sends a SelfRemove (v2 forbids an admin's). Bob, an admin, must neither
    /// auto-commit it nor include it in his next commit: every peer would drop that commit. Before
    /// the fix Bob committed it and M was gone on his side alone.
    @Test func adminSelfRemoveIsNeverCommittedByUs() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        var (bob, m, _, chat) = try await RaceFixtures.v2(url, bobIsAdmin: true)
        var group = try #require(m.group)
        let leave = try group.proposeSelfRemove()
        m.group = group
        await bob.client.deliverForTesting(try m.event(leave))
        #expect(await bob.epochState(chat)?.epoch == 1)
        let update = try await bob.client.selfUpdate(chat)
        #expect(update.epoch == 2)
        #expect(try await bob.client.chat(chat)?.members.contains(m.publicKey) == true)
        await bob.shutdown()
        await server.stop()
    }
}
