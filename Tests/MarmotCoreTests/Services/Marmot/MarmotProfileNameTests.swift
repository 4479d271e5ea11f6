import Foundation
import MarmotCore
import Nostr
import NostrClient
import NostrRelay
import Testing

/// Names from profiles (kind 0) in the app: the core shows the peer's name, computed in the core.
@Suite(.serialized, .timeLimit(.minutes(2))) struct MarmotProfileNameTests {
    /// Bob publishes a profile name; at Alice's next start her chat list and chat header show
    /// "Bob Builder" instead of Bob's short npub.
    @Test func peersProfileNameReplacesTheirNpub() async throws {
        let world = LiveWorld()
        defer { Task { await world.close() } }
        let (_, relay) = try await world.startRelay()
        let p = try await MarmotMessagingTests.pair(world, relay: relay)
        #expect(p.alice.state().chatList.first?.displayName.hasPrefix("npub1") == true)

        let profile = try UnsignedEvent(
            pubkey: p.bobKeys.publicKey, createdAt: UnsignedEvent.now(), kind: .metadata, tags: [],
            content: #"{"name":"bob","display_name":"Bob Builder\u0007"}"#
        ).signed(with: p.bobKeys)
        let pool = RelayPool(relays: [relay.absoluteString])
        await pool.connect()
        #expect(await pool.publish(profile).isSent)
        await pool.disconnect()

        let alice = try await p.alice.restarted(keys: p.aliceKeys)
        try await alice.waitFor("name shown") { $0.chatList.first?.displayName == "Bob Builder" }
        alice.dispatch(.openChat(chatID: p.chatID))
        try await alice.waitFor("header") { $0.currentChat?.displayName == "Bob Builder" }
    }
}
