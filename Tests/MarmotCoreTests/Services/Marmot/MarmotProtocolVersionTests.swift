import Foundation
import MarmotCore
import Nostr
import Testing

/// Issue 18 end to end: two real `MarmotApp`s (the Marmot messaging service over the embedded
/// relay) make a chat, and both sides' chat list and open chat say which protocol it speaks.
@Suite(.serialized, .timeLimit(.minutes(3))) struct MarmotProtocolVersionTests {
    @Test func bothSidesShowTheChatsProtocol() async throws {
        let world = LiveWorld()
        defer { Task { await world.close() } }
        let (_, relay) = try await world.startRelay()
        let p = try await MarmotMessagingTests.pair(world, relay: relay)

        // Both apps publish v1 and v2 key packages; a new chat between them speaks v2.
        let alice = try #require(p.alice.state().chatList.first { $0.chatID == p.chatID })
        #expect(alice.protocolVersion == .v2)
        #expect(alice.protocolLabel == "Marmot v2")
        let bob = try #require(p.bob.state().chatList.first { $0.chatID == p.chatID })
        #expect(bob.protocolVersion == .v2)
        #expect(bob.protocolLabel == "Marmot v2")

        p.bob.dispatch(.openChat(chatID: p.chatID))
        try await p.bob.waitFor("chat open") { $0.currentChat?.chatID == p.chatID }
        #expect(p.bob.state().currentChat?.protocolVersion == .v2)
        #expect(p.bob.state().currentChat?.protocolLabel == "Marmot v2")

        // After a restart the version comes back from the encrypted store.
        let restarted = try await p.alice.restarted(keys: p.aliceKeys)
        try await restarted.waitFor("list restored") { $0.chatList.contains { $0.chatID == p.chatID } }
        #expect(restarted.state().chatList.first { $0.chatID == p.chatID }?.protocolVersion == .v2)
    }
}
