import Foundation
import MarmotCore
import Nostr
import NostrClient
import NostrRelay
import Testing

/// The live stack under faults: a relay that goes away during a send, junk on the relay, and peers
/// that cannot be invited. Everything is observed through app state.
@Suite(.serialized, .timeLimit(.minutes(3))) struct MarmotMessagingFaultTests {
    @Test func relayDownDuringSendFailsThenRetrySends() async throws {
        let world = LiveWorld()
        defer { Task { await world.close() } }
        let (server, relay) = try await world.startRelay(file: "relay.sqlite")
        let port = try #require(relay.port)
        let p = try await MarmotMessagingTests.pair(world, relay: relay, options: LiveApp.quickFailureOptions)
        p.bob.dispatch(.pushScreen(.chat(chatID: p.chatID)))

        await server.stop()
        try await p.alice.waitFor("offline shown") { !$0.network.isOnline }
        #expect(p.alice.state().network.statusText.hasPrefix("Offline"))
        p.alice.dispatch(.sendMessage(chatID: p.chatID, content: "while the relay is down"))
        try await p.alice.waitFor("failed") { state in
            if case .failed = state.currentChat?.messages.last?.delivery { true } else { false }
        }
        guard case .failed(let reason) = p.alice.state().currentChat?.messages.last?.delivery else { return }
        #expect(reason.contains("No relay accepted"))
        #expect(!reason.contains("while the relay is down"), "a failure reason never carries message text")
        #expect(p.alice.state().chatList.first?.lastMessage == "while the relay is down")

        // The relay comes back on the same port with its events; the user retries until it goes out.
        _ = try await world.startRelay(port: port, file: "relay.sqlite")
        try await p.alice.waitFor("back online") { $0.network.isOnline }
        let messageID = try #require(p.alice.state().currentChat?.messages.last?.id)
        var attempts = 0
        while p.alice.state().currentChat?.messages.last?.delivery != .sent, attempts < 10 {
            attempts += 1
            let seen = p.alice.recorder.updates.count
            p.alice.dispatch(.retryMessage(chatID: p.chatID, messageID: messageID))
            try await p.alice.waitFor("retry \(attempts) went pending") { _ in
                p.alice.recorder.updates.dropFirst(seen).contains { Self.delivery(of: messageID, in: $0) == .pending }
            }
            try await p.alice.waitFor("retry \(attempts) ended") { $0.currentChat?.messages.last?.delivery != .pending }
        }
        #expect(p.alice.state().currentChat?.messages.last?.delivery == .sent)
        #expect(p.alice.state().currentChat?.messages.last?.id == messageID, "the retried message keeps its id")
        #expect(p.alice.state().currentChat?.messages.filter { $0.content == "while the relay is down" }.count == 1)
        try await p.bob.waitFor("bob receives it once") { state in
            state.currentChat?.messages.filter { $0.content == "while the relay is down" }.count == 1
        }
    }

    static func delivery(of id: MessageID, in update: AppUpdate) -> MessageDeliveryState? {
        currentChat(in: update)?.messages.first { $0.id == id }?.delivery
    }

    @Test func garbageOnTheRelayIsIgnored() async throws {
        let world = LiveWorld()
        defer { Task { await world.close() } }
        let (_, relay) = try await world.startRelay()
        let p = try await MarmotMessagingTests.pair(world, relay: relay)
        p.bob.dispatch(.pushScreen(.chat(chatID: p.chatID)))
        p.alice.dispatch(.sendMessage(chatID: p.chatID, content: "before the junk"))
        try await p.bob.waitFor("first message") { $0.currentChat?.messages.last?.content == "before the junk" }

        // Junk aimed at the chat (its real `h` tag) and at Bob's gift-wrap inbox, signed by strangers.
        let pool = RelayPool(relays: [relay.absoluteString])
        await pool.connect()
        let groupEvents = try await LiveWorld.query(pool, Filter(kinds: [.groupMessage]))
        let h = try #require(groupEvents.first?.tags.first { $0.name == "h" }?.fields.dropFirst().first)
        let stranger = Keys.generate()
        let random = Data((0..<300).map { _ in UInt8.random(in: 0...255) })
        let chatTag = Nostr.Tag(["h", h])
        let inboxTag = Nostr.Tag(["p", p.bobKeys.publicKey.hex])
        let junk: [(Kind, [Nostr.Tag], String)] = [
            (.groupMessage, [chatTag], "not base64 at all!"),
            (.groupMessage, [chatTag], random.base64EncodedString()),
            (.groupMessage, [chatTag], ""),
            (.groupMessage, [chatTag, Nostr.Tag(["h", "00"])], random.prefix(40).base64EncodedString()),
            (.giftWrap, [inboxTag], "garbage gift wrap"),
            (.giftWrap, [inboxTag], random.base64EncodedString()),
        ]
        for (kind, tags, content) in junk {
            let event = try UnsignedEvent(pubkey: stranger.publicKey, kind: kind, tags: tags, content: content)
                .signed(with: stranger)
            #expect(await pool.publish(event).isSent)
        }
        await pool.disconnect()

        p.alice.dispatch(.sendMessage(chatID: p.chatID, content: "after the junk"))
        try await p.bob.waitFor("still receiving") { $0.currentChat?.messages.last?.content == "after the junk" }
        #expect(p.bob.state().chatList.count == 1)
        #expect(p.bob.state().toast == nil)
        #expect(p.bob.state().currentChat?.messages.map(\.content) == ["before the junk", "after the junk"])
        p.bob.dispatch(.sendMessage(chatID: p.chatID, content: "bob still sends"))
        try await p.alice.waitFor("alice hears bob") { $0.currentChat?.messages.last?.content == "bob still sends" }
    }

    @Test func invitingSomeoneWithoutAKeyPackageExplainsWhy() async throws {
        let world = LiveWorld()
        defer { Task { await world.close() } }
        let (_, relay) = try await world.startRelay()
        let alice = world.app("alice", relays: [relay])
        let me = try await alice.createAccount()
        alice.dispatch(.pushScreen(.newChat))

        alice.dispatch(.createChat(peerNpub: Keys.generate().publicKey.npub))
        try await alice.waitFor("toast") { $0.toast != nil && !$0.busy.creatingChat }
        #expect(alice.state().toast?.contains("No key package") == true, "toast: \(alice.state().toast ?? "-")")
        #expect(alice.state().router.topScreen == .newChat)
        #expect(alice.state().chatList.isEmpty)

        alice.dispatch(.clearToast)
        alice.dispatch(.createChat(peerNpub: "npub1notavalidnpub"))
        try await alice.waitFor("invalid npub toast") { $0.toast != nil }
        alice.dispatch(.clearToast)
        alice.dispatch(.createChat(peerNpub: me.publicKey.npub))
        try await alice.waitFor("own npub toast") { $0.toast != nil }
        #expect(alice.state().chatList.isEmpty)
    }
}
