import Foundation
import MarmotCore
import Nostr
import NostrClient
import NostrRelay
import Testing

/// Two real `MarmotApp`s (the Marmot messaging service, encrypted stores on disk) talking through
/// the embedded relay, driven only by app actions and observed only through state and updates.
@Suite(.serialized, .timeLimit(.minutes(5))) struct MarmotMessagingTests {
    /// Alice and Bob with accounts, and a chat Alice opened with Bob's npub that Bob has joined.
    struct Pair {
        var alice: LiveApp
        var bob: LiveApp
        let aliceKeys: Keys
        let bobKeys: Keys
        let chatID: ChatID
    }

    static func pair(_ world: LiveWorld, relay: URL, options: MarmotMessagingOptions = LiveApp.testOptions)
        async throws -> Pair
    {
        let alice = world.app("alice", relays: [relay], options: options)
        let bob = world.app("bob", relays: [relay], options: options)
        let aliceKeys = try await alice.createAccount()
        let bobKeys = try await bob.createAccount()
        // The network slice says when Bob can be invited: connected, key package accepted.
        try await bob.waitFor("online with a key package") { state in
            state.network.isOnline && state.network.keyPackagePublished == true
        }
        #expect(bob.state().network.statusText == "1 of 1 relay connected")
        try await LiveWorld.waitForKeyPackage(of: bobKeys.publicKey, on: relay)

        alice.dispatch(.pushScreen(.newChat))
        alice.dispatch(.createChat(peerNpub: bobKeys.publicKey.npub))
        try await alice.waitFor("chat open") { $0.currentChat?.peerNpub == bobKeys.publicKey.npub }
        let chatID = try #require(alice.state().currentChat?.chatID)
        #expect(alice.state().router.topScreen == .chat(chatID: chatID))
        #expect(!alice.state().busy.creatingChat)

        // The invitation appears in Bob's invitations; once accepted, the chat is listed with Alice as the peer.
        #expect(try await bob.acceptInvite(from: aliceKeys.publicKey) == chatID)
        #expect(bob.state().chatList.first?.peerNpub == aliceKeys.publicKey.npub)
        return Pair(alice: alice, bob: bob, aliceKeys: aliceKeys, bobKeys: bobKeys, chatID: chatID)
    }

    @Test func conversationUnreadPagingAndRestart() async throws {
        let world = LiveWorld()
        defer { Task { await world.close() } }
        let (_, relay) = try await world.startRelay()
        var p = try await Self.pair(world, relay: relay)
        let chatID = p.chatID

        // Alice's message goes Pending, then Sent, in that order in her update stream.
        p.alice.dispatch(.sendMessage(chatID: chatID, content: "hello bob"))
        try await p.alice.waitFor("hello sent") { $0.currentChat?.messages.last?.delivery == .sent }
        try await p.alice.waitForListener()
        let deliveries = p.alice.recorder.updates.compactMap { update in
            currentChat(in: update)?.messages.first(where: { $0.content == "hello bob" })?.delivery
        }
        #expect(deliveries.first == .pending)
        #expect(deliveries.last == .sent)

        // Bob is on the chat list: unread count and preview.
        try await p.bob.waitFor("unread 1") { $0.chatList.first?.unreadCount == 1 }
        #expect(p.bob.state().chatList.first?.lastMessagePreview.contains("hello bob") == true)

        // Opening clears it; his reply reaches Alice's open chat without unread.
        p.bob.dispatch(.pushScreen(.chat(chatID: chatID)))
        try await p.bob.waitFor("thread loaded") { $0.currentChat?.messages.map(\.content) == ["hello bob"] }
        #expect(p.bob.state().chatList.first?.unreadCount == 0)
        #expect(p.bob.state().currentChat?.messages.first?.isMine == false)
        p.bob.dispatch(.sendMessage(chatID: chatID, content: "hi alice"))
        try await p.alice.waitFor("reply shown") { $0.currentChat?.messages.last?.content == "hi alice" }
        #expect(p.alice.state().chatList.first?.unreadCount == 0)
        #expect(p.alice.state().currentChat?.messages.last?.isMine == false)

        // Bob closes the chat; Alice sends 125 more, which Bob counts as unread.
        p.bob.dispatch(.updateScreenStack([]))
        try await p.bob.waitFor("chat closed") { $0.currentChat == nil }
        for index in 1...125 { p.alice.dispatch(.sendMessage(chatID: chatID, content: "bulk \(index)")) }
        try await p.alice.waitFor("bulk sent", timeout: .seconds(90)) { state in
            let messages = state.currentChat?.messages ?? []
            return messages.count == 127 && messages.allSatisfy { $0.delivery == .sent }
        }
        try await p.bob.waitFor("bulk received", timeout: .seconds(90)) { $0.chatList.first?.unreadCount == 125 }

        // Both restart from disk: chat list and history come back, and they keep talking.
        p.alice = try await p.alice.restarted(keys: p.aliceKeys)
        p.bob = try await p.bob.restarted(keys: p.bobKeys)
        try await p.alice.waitFor("list restored") { $0.chatList.first?.lastMessagePreview.contains("bulk 125") == true }
        p.alice.dispatch(.pushScreen(.chat(chatID: chatID)))
        try await p.alice.waitFor("history restored") { $0.currentChat?.messages.count == 50 }
        #expect(p.alice.state().currentChat?.messages.allSatisfy { $0.delivery == .sent } == true)

        // Bob pages back through the history from disk, 50 at a time.
        p.bob.dispatch(.pushScreen(.chat(chatID: chatID)))
        try await p.bob.waitFor("newest page") { $0.currentChat?.messages.count == 50 }
        #expect(p.bob.state().chatList.first?.unreadCount == 0)
        #expect(p.bob.state().currentChat?.canLoadOlder == true)
        #expect(p.bob.state().currentChat?.messages.last?.content == "bulk 125")
        for expected in [100, 127] {
            let oldest = try #require(p.bob.state().currentChat?.messages.first?.id)
            p.bob.dispatch(.loadOlderMessages(chatID: chatID, beforeMessageID: oldest, limit: 50))
            try await p.bob.waitFor("\(expected) loaded") { $0.currentChat?.messages.count == expected }
        }
        let bobThread = try #require(p.bob.state().currentChat)
        #expect(!bobThread.canLoadOlder)
        #expect(bobThread.messages.first?.content == "hello bob")
        #expect(bobThread.messages.map(\.content).filter { $0.hasPrefix("bulk") } == (1...125).map { "bulk \($0)" })

        p.alice.dispatch(.sendMessage(chatID: chatID, content: "after restart"))
        try await p.bob.waitFor("after restart received") { $0.currentChat?.messages.last?.content == "after restart" }
        p.bob.dispatch(.sendMessage(chatID: chatID, content: "still here"))
        try await p.alice.waitFor("bob after restart") { $0.currentChat?.messages.last?.content == "still here" }

        for app in [p.alice, p.bob] {
            try await app.waitForListener()
            let mirrored = app.recorder.mirror(from: app.initial)
            #expect(mirrored != nil, "\(app.name): rev gap or repeat in the update stream")
            #expect(mirrored?.rev == app.state().rev)
        }
    }
}
