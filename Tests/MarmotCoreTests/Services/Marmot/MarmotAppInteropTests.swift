import Foundation
import MarmotCore
import Nostr
import NostrClient
import TestSupport
import Testing

/// A `MarmotApp` talking to the real MDK 0.8.0 peer (`shared/interop/mdk_peer.py`) over the
/// embedded relay, driven only by app actions: the app invites MDK, and MDK invites the app.
@Suite(
    .serialized, .timeLimit(.minutes(3)),
    .enabled(if: InteropKit.shouldRun, "interop kit (shared/interop + venv) not found"))
struct MarmotAppInteropTests {
    /// Runs `body` with a relay, an initialised MDK peer (its public key) and a logged-in app.
    static func withPeer(_ body: (LiveApp, Keys, MDKPeer, PublicKey) async throws -> Void) async throws {
        try InteropKit.require()
        let world = LiveWorld()
        let (_, relay) = try await world.startRelay()
        try await withMDK("mdk", in: world, on: relay) { mdk, mdkKey in
            let app = world.app("swift", relays: [relay])
            let keys = try await app.createAccount()
            try await body(app, keys, mdk, mdkKey)
        }
    }

    /// Starts the MDK peer `name` on `relay` (its data under `world`'s root; with `keys` when given),
    /// runs `body` with it and its public key and expects MDK to have rejected nothing; then stops
    /// the peer and closes `world`, whether `body` returns or throws.
    static func withMDK(
        _ name: String, in world: LiveWorld, on relay: URL, as keys: Keys? = nil,
        _ body: (MDKPeer, PublicKey) async throws -> Void
    ) async throws {
        let mdk = try await MDKPeer(name)
        do {
            var command: [String: Any] = [
                "cmd": "init", "relay": relay.absoluteString, "data_dir": world.root.appendingPathComponent("mdk").path,
                "name": name,
            ]
            if let keys { command["nsec"] = keys.secretKey.nsecEncoded() }
            let initialised = try await mdk.call(command)
            let mdkKey = try PublicKey(hex: initialised.string("pubkey") ?? "")
            try await body(mdk, mdkKey)
            let errors = await mdk.reportedErrors
            #expect(errors.isEmpty, "MDK rejected: \(errors)")
        } catch {
            await mdk.stop()
            await world.close()
            throw error
        }
        await mdk.stop()
        await world.close()
    }

    @Test func appInvitesMDKAndTheyTalk() async throws {
        try await Self.withPeer { app, keys, mdk, mdkKey in
            _ = try await mdk.call(["cmd": "publish_key_package"])
            app.dispatch(.pushScreen(.newChat))
            app.dispatch(.createChat(peerNpub: mdkKey.npub))
            try await app.waitFor("chat open") { $0.currentChat?.peerNpub == mdkKey.npub }
            let chatID = try #require(app.state().currentChat?.chatID)
            // MDK 0.8.0 has only v1 key packages: the chat speaks v1, and the header and list say so.
            #expect(app.state().currentChat?.protocolVersion == .v1)
            #expect(app.state().currentChat?.protocolLabel == "Marmot v1")
            #expect(app.state().chatList.first { $0.chatID == chatID }?.protocolLabel == "Marmot v1")
            let welcome = try await mdk.waitForEvent("welcome")
            #expect(welcome.string("from_pubkey") == keys.publicKey.hex)
            #expect(welcome.string("group_id") == chatID.rawValue)

            app.dispatch(.sendMessage(chatID: chatID, content: "hello mdk, from the app"))
            try await app.waitFor("sent") { $0.currentChat?.messages.last?.delivery == .sent }
            let got = try await mdk.waitForEvent("message") { $0.string("text") == "hello mdk, from the app" }
            #expect(got.string("from_pubkey") == keys.publicKey.hex)

            let group = try #require(welcome.string("group_id"))
            _ = try await mdk.call(["cmd": "send", "group_id": group, "text": "hello app, from mdk"])
            try await app.waitFor("reply shown") { $0.currentChat?.messages.last?.content == "hello app, from mdk" }
            #expect(app.state().currentChat?.messages.last?.isMine == false)
            #expect(app.state().chatList.first?.unreadCount == 0)
        }
    }

    @Test func mdkInvitesTheAppAndTheyTalk() async throws {
        try await Self.withPeer { app, keys, mdk, mdkKey in
            // The app published its key package when the session started.
            try await LiveWorld.waitForKeyPackage(of: keys.publicKey, on: app.relays[0])
            let created = try await mdk.call(["cmd": "create_chat", "peer_npub": keys.publicKey.npub])
            let group = try #require(created.string("group_id"))

            let chatID = try await app.acceptInvite(from: mdkKey)
            #expect(app.state().chatList.first?.peerNpub == mdkKey.npub)
            #expect(chatID.rawValue == group)
            // MDK's invitation is a v1 group: listed as such.
            #expect(app.state().chatList.first?.protocolVersion == .v1)
            // The app rotates its leaf after joining (MIP-02); MDK applies that commit.
            _ = try await mdk.waitForEvent("commit") { $0.int("epoch") == 2 }

            _ = try await mdk.call(["cmd": "send", "group_id": group, "text": "welcome, app"])
            try await app.waitFor("unread") { $0.chatList.first?.unreadCount == 1 }
            #expect(app.state().chatList.first?.lastMessagePreview.contains("welcome, app") == true)
            app.dispatch(.pushScreen(.chat(chatID: chatID)))
            try await app.waitFor("thread") { $0.currentChat?.messages.map(\.content) == ["welcome, app"] }
            app.dispatch(.sendMessage(chatID: chatID, content: "thanks, mdk"))
            _ = try await mdk.waitForEvent("message") { $0.string("text") == "thanks, mdk" }
        }
    }

    /// Issue #17 with the app as Alice: the app uses relays A and B, MDK-Bob only C (its key
    /// package names C), and Bob's relay lists naming C are on A. The app finds them, invites Bob
    /// through C, names C among the group's relays, and they talk.
    @Test func appOnOtherRelaysInvitesMDKThroughItsRelayLists() async throws {
        try InteropKit.require()
        let world = LiveWorld()
        let (_, relayA) = try await world.startRelay()
        let (_, relayB) = try await world.startRelay()
        let (_, relayC) = try await world.startRelay()
        let bob = Keys.generate()
        try await Self.withMDK("mdk-bob", in: world, on: relayC, as: bob) { mdk, mdkKey in
            #expect(mdkKey == bob.publicKey)
            _ = try await mdk.call(["cmd": "publish_key_package"])
            // MDK 0.8.0's peer cannot publish relay lists: signed here with Bob's nsec, put on A.
            let now = UnsignedEvent.now()
            let lists = [
                UnsignedEvent(pubkey: bob.publicKey, createdAt: now, kind: .relayList,
                              tags: [Tag(["r", relayC.absoluteString])], content: ""),
                UnsignedEvent(pubkey: bob.publicKey, createdAt: now, kind: .dmRelays,
                              tags: [Tag(["relay", relayC.absoluteString])], content: ""),
                UnsignedEvent(pubkey: bob.publicKey, createdAt: now, kind: .keyPackageRelays,
                              tags: [Tag(["relay", relayC.absoluteString])], content: ""),
            ]
            let poolA = RelayPool(relays: [relayA.absoluteString])
            await poolA.connect()
            for unsigned in lists { #expect(await poolA.publish(try unsigned.signed(with: bob)).isSent) }
            await poolA.disconnect()

            let app = world.app("swift", relays: [relayA, relayB])
            let keys = try await app.createAccount()
            app.dispatch(.pushScreen(.newChat))
            app.dispatch(.createChat(peerNpub: bob.publicKey.npub))
            try await app.waitFor("chat open") { $0.currentChat?.peerNpub == bob.publicKey.npub }
            let chatID = try #require(app.state().currentChat?.chatID)
            let welcome = try await mdk.waitForEvent("welcome")
            #expect(welcome.string("from_pubkey") == keys.publicKey.hex)
            #expect(welcome.string("group_id") == chatID.rawValue)

            app.dispatch(.sendMessage(chatID: chatID, content: "found you on C"))
            _ = try await mdk.waitForEvent("message") { $0.string("text") == "found you on C" }
            let group = try #require(welcome.string("group_id"))
            _ = try await mdk.call(["cmd": "send", "group_id": group, "text": "reading you on C"])
            try await app.waitFor("reply shown") { $0.currentChat?.messages.last?.content == "reading you on C" }
        }
    }
}
