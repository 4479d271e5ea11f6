import Foundation
import MLS
import Nostr
import NostrRelay
import TestSupport
import Testing
@testable import Marmot

/// Security review D3: a moderation grant is kept for its group and rumor together, so an admin of
/// one group cannot delete other members' messages in a group where she is only a member by
/// sending there the identical deletion she sent, as an admin, in her own.
@Suite(.serialized, .timeLimit(.minutes(3))) struct ModerationGrantAcrossGroupsTests {
    @Test func anAdminOfOneGroupCannotDeleteInAnotherWithTheSameRumor() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        // Mallory's clock moves in 100-second steps, so both her sends carry the same created_at and
        // the two deletions are the very same rumor (same id).
        let mallory = try await TestAccount("mallory", relayURLs: [url], clock: { UnsignedEvent.now() / 100 * 100 })
        let bob = try await TestAccount("bob", relayURLs: [url])
        let carol = try await TestAccount("carol", relayURLs: [url])
        _ = try await bob.client.publishKeyPackage()
        _ = try await mallory.client.publishKeyPackage()

        // X: Mallory's group, she is its admin. Y: Carol's group, Mallory is only a member.
        let x = try await mallory.client.createGroup(name: "Mallory's", members: [bob.publicKey]).chat.id
        _ = try await bob.waitForWelcome()
        _ = try await bob.client.publishKeyPackage()
        let y = try await carol.client.createGroup(name: "Carol's", members: [mallory.publicKey, bob.publicKey]).chat.id
        #expect(try await carol.client.chat(y)?.admins == [carol.publicKey])
        _ = try await mallory.waitForWelcome()
        _ = try await bob.waitForWelcome()

        let target = try await bob.client.send(text: "bob in Y", to: y)
        _ = try await mallory.waitForMessage("bob in Y")
        let tags = [Tag(["e", target.message.rumorID.hex])]

        var pair: (EventID, EventID)?
        for _ in 0..<3 where pair == nil {
            let inX = try await mallory.client.queue(kind: AdminDeletion.kind, content: AdminDeletion.content, tags: tags, to: x)
            let inY = try await mallory.client.queue(kind: AdminDeletion.kind, content: AdminDeletion.content, tags: tags, to: y)
            _ = try await mallory.client.deliverQueued(inX.rumorID, in: x)
            _ = try await mallory.client.deliverQueued(inY.rumorID, in: y)
            if inX.rumorID == inY.rumorID { pair = (inX.rumorID, inY.rumorID) }
        }
        let rumor = try #require(pair?.0, "control: Mallory sent one rumor in both groups")

        // Bob's view, read back from the store as every page is.
        let inX = try await waitUntilValue("bob has the deletion in X") {
            ((try? await bob.client.messages(in: x, limit: 40))?.messages ?? []).first { $0.rumorID == rumor }
        }
        #expect(inX.moderationGrant, "control: in her own group Mallory's deletion holds the grant")
        let inY = try await waitUntilValue("bob has the deletion in Y") {
            ((try? await bob.client.messages(in: y, limit: 40))?.messages ?? []).first { $0.rumorID == rumor }
        }
        #expect(!inY.moderationGrant, "in Carol's group the same rumor holds no grant")
        #expect(try await bob.client.message(rumor, in: y)?.moderationGrant == false)

        // After a restart, still only in X.
        let reopened = try await bob.restarted()
        #expect(try await reopened.client.message(rumor, in: y)?.moderationGrant == false)
        #expect(try await reopened.client.message(rumor, in: x)?.moderationGrant == true)
        await GroupChatTests.shutdown(mallory, reopened, carol)
        await server.stop()
    }
}
