import Foundation
import MLS
import Nostr
import NostrClient
import TestSupport
import Testing
@testable import Marmot

/// v2 rules White Noise's members count on: no created_at window on kind-445 events, and any
/// remaining member commits a leaver's SelfRemove.
@Suite(.serialized, .timeLimit(.minutes(3))) struct V2PeerRulesTests {
    /// A member whose phone clock runs ten minutes fast dates its commits ten minutes ahead: v2 (as
    /// MDK 0.9.14) applies them; v1's 5-minute bound would drop them and fork the group. (Ten
    /// minutes, not an hour: relays themselves refuse events dated much later than their clock, our
    /// embedded one included; `GroupRulesDatesTests` checks an hour and 50 days without a relay.)
    @Test func commitFromAMemberWhoseClockIsTenMinutesFastIsApplied() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, id) = try await V2Fixtures.oneToOne(url, aliceOffset: 600)
        let update = try await alice.client.selfUpdate(id)
        let event = try #require(try await RelayReads.fetch(Filter(ids: [update.publish.eventID]), from: url).first)
        #expect(event.createdAt > UnsignedEvent.now() + 300)
        #expect(try await bob.waitForCommit(epoch: 3, by: alice.publicKey) == alice.publicKey)
        _ = try await alice.client.send(text: "from the future", to: id)
        _ = try await bob.waitForMessage("from the future")
        await alice.shutdown()
        await bob.shutdown()
        await server.stop()
    }

    /// A member away for 50 days (here: its clock 50 days ahead of the events it reads) still opens
    /// what was sent meanwhile; the 45-day window of v1 would drop all of it.
    @Test func memberBackAfterFiftyDaysCatchesUp() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, id) = try await V2Fixtures.oneToOne(url)
        await bob.shutdown()
        _ = try await alice.client.updateGroupData(id, name: "While you were away")
        _ = try await alice.client.send(text: "sent while bob was away", to: id)
        let back = try await TestAccount(
            "bob", keys: bob.keys, databasePath: bob.databasePath, relayURLs: [url], clock: { UnsignedEvent.now() + 50 * 86400 })
        _ = try await back.waitForMessage("sent while bob was away")
        #expect(try await back.client.chat(id)?.name == "While you were away")
        await alice.shutdown()
        await back.shutdown()
        await server.stop()
    }

    /// Alice, the only admin, is offline when Carol leaves: Bob, no admin, commits Carol's
    /// SelfRemove (MDK 0.9.14's auto-committer), so he can write at once; Alice follows when back.
    @Test func memberCommitsALeaveWhileTheAdminIsOffline() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, carol, id) = try await V2Fixtures.trio(url)
        #expect(try await bob.client.chat(id)?.admins == [alice.publicKey])
        await alice.shutdown()

        _ = try await carol.client.leaveGroup(id)
        #expect(try await bob.waitForCommit(epoch: 4, by: bob.publicKey) == bob.publicKey)
        #expect(Set(try #require(try await bob.client.chat(id)).members) == [alice.publicKey, bob.publicKey])
        _ = try await bob.client.send(text: "carol left, alice is away", to: id)

        let back = try await alice.restarted()
        _ = try await back.waitForMessage("carol left, alice is away")
        #expect(Set(try #require(try await back.client.chat(id)).members) == [alice.publicKey, bob.publicKey])
        #expect(await back.epochState(id)?.authenticator == (await bob.epochState(id))?.authenticator)
        await back.shutdown()
        await bob.shutdown()
        await carol.shutdown()
        await server.stop()
    }

    /// An admin closes the group for good (lifecycle 0x800c, as White Noise's disband): every member's
    /// chat closes with a system line, the admin's too, and nobody can send in it any more.
    @Test func adminDisbandsTheGroupForEveryone() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, id) = try await V2Fixtures.oneToOne(url)
        _ = try await alice.client.disbandGroup(id)
        // Bob is removed by it: his chat closes (a removed member has no epoch to report).
        try await waitUntil("bob's chat closed", timeout: 30) { (try? await bob.client.chat(id))??.status == .inactive }
        // MDK's shape (v2 conformance review N1): Alice alone is left, and the only admin.
        let state = try #require(await alice.client.groupStateForTesting(id))
        #expect(state.members.map(\.leafIndex) == [state.ownLeafIndex])
        #expect(try V2GroupRules().metadata(of: state.extensions).admins == [alice.publicKey])
        for account in [alice, bob] {
            #expect(try await account.client.chat(id)?.status == .inactive, "\(account.name)")
            let line = try #require(try await account.allMessages(id).last { $0.deliveryState == .notice })
            #expect(SystemNotice(content: line.content) == SystemNotice(change: .disbanded, actor: alice.publicKey, subject: alice.publicKey))
            await #expect(throws: MarmotClientError.self) { _ = try await account.client.send(text: "anyone?", to: id) }
        }
        await alice.shutdown()
        await bob.shutdown()
        await server.stop()
    }

    /// A disband in a group of three: one commit removes both other members, each sees the chat
    /// closed with one "disbanded" line and no removal lines.
    @Test func disbandRemovesEveryOtherMember() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, carol, id) = try await V2Fixtures.trio(url)
        _ = try await alice.client.disbandGroup(id)
        for account in [bob, carol] {
            try await waitUntil("\(account.name)'s chat closed", timeout: 30) { (try? await account.client.chat(id))??.status == .inactive }
        }
        #expect(try #require(await alice.client.groupStateForTesting(id)).members.count == 1)
        for account in [alice, bob, carol] {
            #expect(try await account.client.chat(id)?.status == .inactive, "\(account.name)")
            let notices = try await account.allMessages(id).filter { $0.deliveryState == .notice }.compactMap { SystemNotice(content: $0.content) }
            #expect(notices.last?.change == .disbanded, "\(account.name)")
            #expect(!notices.suffix(3).contains { $0.change == .removed }, "\(account.name)")
        }
        for account in [alice, bob, carol] { await account.shutdown() }
        await server.stop()
    }
}

extension MarmotClient {
    /// A group's MLS state as the client holds it.
    func groupStateForTesting(_ id: GroupID) -> MLSGroup? { sessions[id]?.mls }
}
