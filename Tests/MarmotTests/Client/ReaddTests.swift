import Foundation
import MLS
import Nostr
import NostrRelay
import TestSupport
import Testing
@testable import Marmot

/// A member removed from a group can be invited back (MDK's `readd-after-eviction`, issue 30), in
/// v1 and v2: the invitation waits for an answer, accepting replaces the inactive state (old
/// messages stay, an "added again" line follows them) and declining keeps the inactive chat.
@Suite(.serialized, .timeLimit(.minutes(3))) struct ReaddTests {
    /// Alice makes a named group with Bob in `version`; Bob accepts; one message goes each way.
    static func pair(_ version: MarmotVersion, relay url: String) async throws -> (alice: TestAccount, bob: TestAccount, chat: GroupID) {
        let alice = try await TestAccount("alice", relayURLs: [url])
        let bob = try await TestAccount("bob", relayURLs: [url])
        _ = try await bob.client.publishKeyPackage(version: version)
        let created = try await alice.client.createGroup(name: "Again", members: [bob.publicKey])
        #expect(created.chat.version == version)
        _ = try await bob.waitForWelcome()
        _ = try await alice.client.send(text: "before", to: created.chat.id)
        _ = try await bob.waitForMessage("before")
        return (alice, bob, created.chat.id)
    }

    /// Alice removes Bob and waits until Bob's client saw it (his chat is inactive, still listed).
    static func remove(_ bob: TestAccount, by alice: TestAccount, from id: GroupID) async throws {
        _ = try await alice.client.removeMembers([bob.publicKey], from: id)
        var status = try await bob.client.chat(id)?.status
        for _ in 0..<100 where status != .inactive {
            try await Task.sleep(for: .milliseconds(50))
            status = try await bob.client.chat(id)?.status
        }
        #expect(status == .inactive)
        #expect(try await bob.client.chats().contains { $0.id == id && $0.status == .inactive })
    }

    @Test(arguments: [MarmotVersion.v1, .v2])
    func removedMemberAcceptsTheNewInvitationAndTalksAgain(_ version: MarmotVersion) async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, id) = try await Self.pair(version, relay: url)
        try await Self.remove(bob, by: alice, from: id)

        _ = try await bob.client.publishKeyPackage(version: version)
        _ = try await alice.client.addMembers([bob.publicKey], to: id)
        let invite = try await bob.waitForInvite()
        #expect(invite.id == id)
        #expect(try await bob.client.chat(id)?.status == .pending)
        _ = try await bob.client.acceptInvite(id)
        #expect(try await bob.client.chat(id)?.status == .active)

        let lines = try await bob.allMessages(id)
        #expect(lines.first?.content == "before", "old messages stay readable: \(lines.map(\.content))")
        let readded = try #require(lines.last { $0.deliveryState == .notice }.flatMap { SystemNotice(content: $0.content) })
        #expect(readded == SystemNotice(change: .readded, actor: alice.publicKey, subject: bob.publicKey))

        _ = try await bob.client.send(text: "back again", to: id)
        _ = try await alice.waitForMessage("back again")
        _ = try await alice.client.send(text: "welcome back", to: id)
        _ = try await bob.waitForMessage("welcome back")
        await alice.shutdown()
        await bob.shutdown()
        await server.stop()
    }

    /// Declining the invitation back puts the inactive chat back as it was: listed, inactive, with
    /// its old messages.
    @Test func decliningTheInvitationBackKeepsTheOldChat() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, id) = try await Self.pair(.v2, relay: url)
        try await Self.remove(bob, by: alice, from: id)
        let epoch = try #require(try await bob.client.chat(id)).epoch

        _ = try await bob.client.publishKeyPackage(version: .v2)
        _ = try await alice.client.addMembers([bob.publicKey], to: id)
        _ = try await bob.waitForInvite()
        try await bob.client.declineInvite(id)
        let chat = try #require(try await bob.client.chat(id))
        #expect(chat.status == .inactive)
        #expect(chat.epoch == epoch)
        #expect(try await bob.allMessages(id).contains { $0.content == "before" })
        #expect(await bob.client.invites().isEmpty)
        await alice.shutdown()
        await bob.shutdown()
        await server.stop()
    }
}
