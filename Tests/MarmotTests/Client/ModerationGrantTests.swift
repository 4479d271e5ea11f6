import Foundation
import MLS
import Nostr
import NostrRelay
import TestSupport
import Testing
@testable import Marmot

/// Admins' deletions (MDK 0.9.14's moderation grant): decided by the state that opened the
/// deletion and kept with it; a member's deletion of another's message never holds it.
@Suite(.serialized, .timeLimit(.minutes(3))) struct ModerationGrantTests {
    @Test func anAdminsDeletionInAGroupHoldsTheGrantAMembersDoesNot() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, carol, chat) = try await GroupChatTests.trio(relay: url)
        let sent = try await carol.client.send(text: "carol's", to: chat)
        _ = try await bob.waitForMessage("carol's")
        let target = Tag(["e", sent.message.rumorID.hex])

        // Bob (a member) tries to delete Carol's message: no grant.
        _ = try await bob.client.send(kind: AdminDeletion.kind, content: AdminDeletion.content, tags: [target], to: chat)
        // Alice (the admin) deletes it: the grant, on every side, and again when read back.
        let adminDeletion = try await alice.client.send(kind: AdminDeletion.kind, content: AdminDeletion.content, tags: [target], to: chat)
        for account in [bob, carol] {
            let deletions = try await waitUntilValue("\(account.name) has both deletions") {
                let page = try? await account.client.messages(in: chat, limit: 20)
                let found = page?.messages.filter { $0.kind == AdminDeletion.kind } ?? []
                return found.count == 2 ? found : nil
            }
            let byAlice = try #require(deletions.first { $0.sender == alice.publicKey })
            let byBob = try #require(deletions.first { $0.sender == bob.publicKey })
            #expect(byAlice.rumorID == adminDeletion.message.rumorID)
            #expect(byAlice.moderationGrant, "\(account.name): the admin's deletion holds the grant")
            #expect(!byBob.moderationGrant, "\(account.name): a member's deletion does not")
        }
        await GroupChatTests.shutdown(alice, bob, carol)
        await server.stop()
    }

    /// An admin deleting someone else's message with kind 5, and admin deletions that are not
    /// well formed (a duplicate key, another version, two targets, an upper-case id): none holds
    /// the grant (spec `features/content-moderation.md`: kind 5 deletes only one's own; a malformed
    /// deletion has no effect).
    @Test func onlyAWellFormedAdminDeletionHoldsTheGrant() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, carol, chat) = try await GroupChatTests.trio(relay: url)
        let sent = try await carol.client.send(text: "carol's", to: chat)
        let other = try await carol.client.send(text: "carol's other", to: chat)
        _ = try await bob.waitForMessage("carol's other")
        let hex = sent.message.rumorID.hex
        let attempts: [(Kind, String, [Tag])] = [
            (.deletion, "", [Tag(["e", hex])]),
            (AdminDeletion.kind, #"{"v":1,"action":"remove","action":"remove"}"#, [Tag(["e", hex])]),
            (AdminDeletion.kind, #"{"v":2,"action":"remove"}"#, [Tag(["e", hex])]),
            (AdminDeletion.kind, #"{"v":1,"action":"remove","why":"x"}"#, [Tag(["e", hex])]),
            (AdminDeletion.kind, AdminDeletion.content, [Tag(["e", hex]), Tag(["e", other.message.rumorID.hex])]),
            (AdminDeletion.kind, AdminDeletion.content, [Tag(["e", hex.uppercased()])]),
        ]
        for (kind, content, tags) in attempts { _ = try await alice.client.send(kind: kind, content: content, tags: tags, to: chat) }
        let received = try await waitUntilValue("bob has every attempt") {
            let page = try? await bob.client.messages(in: chat, limit: 40)
            let found = page?.messages.filter { $0.sender == alice.publicKey && ($0.kind == .deletion || $0.kind == AdminDeletion.kind) } ?? []
            return found.count == attempts.count ? found : nil
        }
        #expect(received.allSatisfy { !$0.moderationGrant })
        await GroupChatTests.shutdown(alice, bob, carol)
        await server.stop()
    }

    /// In a direct conversation (two members, no name) even the admin who made it has no grant.
    @Test func noGrantInADirectConversation() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, chat, _) = try await TwoClientTests.establish(relay: url)
        let sent = try await bob.client.send(text: "bob's", to: chat.id)
        _ = try await alice.waitForMessage("bob's")
        _ = try await alice.client.send(
            kind: AdminDeletion.kind, content: AdminDeletion.content, tags: [Tag(["e", sent.message.rumorID.hex])], to: chat.id)
        let deletion = try await waitUntilValue("bob has the deletion") {
            ((try? await bob.client.messages(in: chat.id, limit: 20))?.messages ?? []).first { $0.kind == AdminDeletion.kind }
        }
        #expect(!deletion.moderationGrant)
        await alice.shutdown()
        await bob.shutdown()
        await server.stop()
    }
}
