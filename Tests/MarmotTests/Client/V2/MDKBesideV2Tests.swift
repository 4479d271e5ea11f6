import Foundation
import MLS
import Nostr
import NostrRelay
import TestSupport
import Testing
@testable import Marmot

/// A real MDK 0.8.0 peer (v1 only) next to our v2 support: it skips our v2 key package and takes
/// our v1 one, and its v1 chat with us runs while we hold a v2 chat with another of our clients.
@Suite(.serialized, .timeLimit(.minutes(3))) struct MDKBesideV2Tests {
    @Test(arguments: InteropRelay.allCases)
    func mdkTakesOurV1KeyPackageWhileAV2ChatRuns(relay: InteropRelay) async throws {
        try await InteropContext.run(relay) { ctx in
            let us = await ctx.us
            // Both versions, v2 published last (so it is the newest one MDK sees).
            let upkeep = try await us.client.ensureKeyPackages()
            guard case .published(let v1)? = upkeep[.v1], case .published(let v2)? = upkeep[.v2] else {
                throw HarnessError.unexpected("key packages not published: \(upkeep)")
            }
            #expect(v2.version == .v2)
            let v2Event = try #require(
                try await RelayReads.fetch(Filter(ids: [v2.event.eventID]), from: ctx.relay.url).first)
            let v1Event = try #require(
                try await RelayReads.fetch(Filter(ids: [v1.event.eventID]), from: ctx.relay.url).first)
            #expect(v2Event.createdAt > v1Event.createdAt)

            // MDK 0.8.0 cannot parse the v2 event and falls back to our v1 one, as its peer
            // script picks the newest key package MDK itself accepts.
            let created = try await ctx.mdk.call(["cmd": "create_chat", "peer_npub": us.publicKey.npub])
            #expect(created.string("key_package_event_id") == v1.event.eventID.hex)
            let group = try #require(created.string("group_id"))
            let (chat, inviter) = try await us.waitForWelcome()
            #expect(inviter == ctx.mdkKey)
            #expect(chat.version == .v1)
            _ = try await us.waitForCommit(epoch: 2, by: us.publicKey)
            _ = try await ctx.mdk.waitForEvent("commit") { $0.int("epoch") == 2 }

            // A v2 chat with another of our clients at the same time.
            let carol = try await TestAccount("carol", relayURLs: [ctx.relay.url])
            _ = try await carol.client.publishKeyPackage(version: .v2)
            let withCarol = try await us.client.createChat(with: carol.publicKey)
            #expect(withCarol.chat.version == .v2)
            _ = try await carol.waitForWelcome()

            try await ctx.mdkSends("v1 from mdk", in: group)
            try await ctx.weSend("v1 from swift", in: chat.id)
            _ = try await us.client.send(text: "v2 from swift", to: withCarol.chat.id)
            _ = try await carol.waitForMessage("v2 from swift")
            _ = try await carol.client.send(text: "v2 from carol", to: withCarol.chat.id)
            _ = try await us.waitForMessage("v2 from carol")
            try await ctx.mdkSends("still v1", in: group)
            await carol.shutdown()
        }
    }
}
