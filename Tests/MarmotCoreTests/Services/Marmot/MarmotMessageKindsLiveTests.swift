import Foundation
import MLS
import Marmot
import MarmotCore
import Nostr
import Testing

/// Issue 25 between two of our apps in a v2 group, over the real messaging service and relay: a
/// reaction, an edit, a reply and a deletion each shown on the other side, and a deleted message
/// gone from the database file with its reactions and edits.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct MarmotMessageKindsLiveTests {
    @Test("v2: reaction, edit, reply and deletion reach the other app; the deleted message leaves the store with its edit and reactions")
    func v2KindsBothWaysAndDeletionLeavesTheStore() async throws {
        let world = LiveWorld()
        defer { Task { await world.close() } }
        let (_, relay) = try await world.startRelay()
        let pair = try await MarmotMessagingTests.pair(world, relay: relay)
        let (alice, bob, chatID) = (pair.alice, pair.bob, pair.chatID)
        #expect(alice.state().currentChat?.protocolVersion == .v2)
        bob.dispatch(.pushScreen(.chat(chatID: chatID)))
        try await bob.waitFor("chat open") { $0.currentChat?.chatID == chatID }

        bob.dispatch(.sendMessage(chatID: chatID, content: "bob's words"))
        try await alice.waitFor("bob's message") { $0.currentChat?.messages.last?.content == "bob's words" }
        let bobs = try #require(alice.state().currentChat?.messages.last?.id)
        let bobsLocal = try #require(bob.state().currentChat?.messages.last?.id)

        alice.dispatch(.react(chatID: chatID, messageID: bobs, emoji: "👍"))
        try await bob.waitFor("alice's reaction") {
            $0.currentChat?.messages.last?.reactions.map(\.label) == ["👍 1"]
        }
        #expect(bob.state().currentChat?.messages.last?.reactions.first?.senderPubkeys == [pair.aliceKeys.publicKey.hex])

        bob.dispatch(.editMessage(chatID: chatID, messageID: bobsLocal, content: "bob's better words"))
        try await alice.waitFor("bob's edit") { $0.currentChat?.messages.last?.content == "bob's better words" }
        #expect(alice.state().currentChat?.messages.last?.isEdited == true)

        alice.dispatch(.reply(chatID: chatID, messageID: bobs, content: "agreed"))
        try await bob.waitFor("alice's reply") { $0.currentChat?.messages.last?.content == "agreed" }
        #expect(bob.state().currentChat?.messages.last?.replyTo?.text == "bob's better words")

        bob.dispatch(.deleteMessage(chatID: chatID, messageID: bobsLocal))
        try await alice.waitFor("bob's message gone") { !($0.currentChat?.messages.contains { $0.id == bobs } ?? true) }
        #expect(alice.state().currentChat?.messages.last?.replyTo?.text == ReplyQuote.unavailableText)
        try await bob.waitFor("delete ok") { $0.lastOutcome?.operation == .deleteMessage && $0.lastOutcome?.code == .ok }

        // Alice's database, read after logout: the message, its edit and the reaction are gone;
        // the reply and the deletion itself remain.
        alice.dispatch(.logout)
        try await alice.waitFor("logged out") { !$0.auth.isLoggedIn }
        let path = alice.directory.appendingPathComponent(pair.aliceKeys.publicKey.hex)
            .appendingPathComponent("marmot.sqlite").path
        let store = try GRDBMarmotStore(
            path: path, key: StorageKey(deriving: pair.aliceKeys.secretKey, installationSecret: alice.installationSecret))
        defer { try? store.close() }
        let group = GroupID(Data(try #require(Hex.decode(chatID.rawValue))))
        let stored = try store.messages(mlsGroupID: group, before: nil, limit: 200).messages
        let target = bobs.rawValue
        #expect(!stored.contains { $0.rumorID.hex == target })
        #expect(!stored.contains { $0.tags.contains { $0.name == "e" && $0.value == target } && $0.kind.rawValue != 5 && $0.kind.rawValue != 9 })
        #expect(!stored.contains { $0.content.contains("bob's") })
        #expect(stored.contains { $0.kind.rawValue == 5 })
        #expect(stored.contains { $0.content == "agreed" })
    }
}
