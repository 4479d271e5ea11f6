import Foundation
import MarmotCore
import Nostr
import NostrClient
import NostrRelay
import Testing

/// Group chats through three real apps on one relay.
@Suite(.serialized, .timeLimit(.minutes(3))) struct MarmotGroupTests {
    /// Alice creates "Crew" with Bob and Carol; both accept; everyone talks; Alice renames the group
    /// and removes Carol: Bob sees both as system lines, and Carol's chat goes quiet.
    @Test func threePeopleGroupThroughTheCore() async throws {
        let world = LiveWorld()
        defer { Task { await world.close() } }
        let (_, relay) = try await world.startRelay()
        let alice = world.app("alice", relays: [relay])
        let bob = world.app("bob", relays: [relay])
        let carol = world.app("carol", relays: [relay])
        let aliceKeys = try await alice.createAccount()
        let bobKeys = try await bob.createAccount()
        let carolKeys = try await carol.createAccount()
        try await LiveWorld.waitForKeyPackage(of: bobKeys.publicKey, on: relay)
        try await LiveWorld.waitForKeyPackage(of: carolKeys.publicKey, on: relay)

        alice.dispatch(.createGroup(name: "Crew", memberNpubs: [bobKeys.publicKey.npub, carolKeys.publicKey.npub]))
        try await alice.waitFor("group open") { $0.currentChat?.displayName == "Crew" }
        let chatID = try #require(alice.state().currentChat?.chatID)
        #expect(alice.state().currentChat?.memberCount == 3)
        #expect(alice.state().currentChat?.canManage == true)

        #expect(try await bob.acceptInvite(from: aliceKeys.publicKey) == chatID)
        #expect(try await carol.acceptInvite(from: aliceKeys.publicKey) == chatID)
        #expect(bob.state().chatList.first?.isGroup == true)
        #expect(bob.state().chatList.first?.displayName == "Crew")

        alice.dispatch(.sendMessage(chatID: chatID, content: "hello crew"))
        try await bob.waitFor("bob reads") { $0.chatList.first?.lastMessage == "hello crew" }
        try await carol.waitFor("carol reads") { $0.chatList.first?.lastMessage == "hello crew" }

        alice.dispatch(.renameChat(chatID: chatID, name: "Climbing crew"))
        try await bob.waitFor("rename seen") { $0.chatList.first?.displayName == "Climbing crew" }
        alice.dispatch(.removeMember(chatID: chatID, npub: carolKeys.publicKey.npub))
        try await alice.waitFor("carol removed") { $0.currentChat?.memberCount == 2 }
        try await bob.waitFor("bob sees the removal") { state in
            state.chatList.first?.lastMessage?.contains("removed") == true && state.chatList.first?.lastMessageKind == .system
        }
        bob.dispatch(.openChat(chatID: chatID))
        try await bob.waitFor("lines") { state in
            let system = state.currentChat?.messages.filter { $0.kind == .system }.map(\.content) ?? []
            return system.contains { $0.contains("renamed the group") } && system.contains { $0.contains("removed") }
        }
        #expect(bob.state().currentChat?.canManage == false)
    }
}
