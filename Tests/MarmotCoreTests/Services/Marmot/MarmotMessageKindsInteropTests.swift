import Foundation
import MarmotCore
import Nostr
import NostrClient
import TestSupport
import Testing

/// Issue 25 live against MDK 0.8.0 (`shared/interop/mdk_peer.py`, whose `send` carries any kind and
/// tags): v1 reactions, replies, edits and deletions both ways through the real messaging service,
/// a hostile deletion ignored, and push-token gossip and group system events kept out of the chat.
@Suite(
    .serialized, .timeLimit(.minutes(4)),
    .enabled(if: InteropKit.shouldRun, "interop kit (shared/interop + venv) not found"))
struct MarmotMessageKindsInteropTests {
    /// The app invites MDK; returns the chat (open in the app) and MDK's group id.
    static func chat(_ app: LiveApp, _ mdk: MDKPeer, _ mdkKey: PublicKey) async throws -> (ChatID, String) {
        _ = try await mdk.call(["cmd": "publish_key_package"])
        app.dispatch(.pushScreen(.newChat))
        app.dispatch(.createChat(peerNpub: mdkKey.npub))
        try await app.waitFor("chat open") { $0.currentChat?.peerNpub == mdkKey.npub }
        let chatID = try #require(app.state().currentChat?.chatID)
        let welcome = try await mdk.waitForEvent("welcome")
        return (chatID, try #require(welcome.string("group_id")))
    }

    @Test("MDK's reaction, reply, edit and deletion show as meant; its deletion of our message is ignored, also after a restart")
    func incomingFromMDK() async throws {
        try InteropKit.require()
        let world = LiveWorld()
        let (_, relay) = try await world.startRelay()
        try await MarmotAppInteropTests.withMDK("mdk", in: world, on: relay) { mdk, mdkKey in
            var app = world.app("swift", relays: [relay])
            let keys = try await app.createAccount()
            let (chatID, group) = try await Self.chat(app, mdk, mdkKey)

            app.dispatch(.sendMessage(chatID: chatID, content: "hello mdk"))
            let ours = try await mdk.waitForEvent("message") { $0.string("text") == "hello mdk" }
            let ourRumor = try #require(ours.string("rumor_id"))

            // Kind 7 on our message (NIP-25), a kind-9 reply with e and q, and a hostile kind 5.
            _ = try await mdk.call(["cmd": "send", "group_id": group, "text": "👍", "kind": 7, "tags": [["e", ourRumor]]])
            _ = try await mdk.call([
                "cmd": "send", "group_id": group, "text": "hi app", "kind": 9, "tags": [["e", ourRumor], ["q", ourRumor]],
            ])
            _ = try await mdk.call(["cmd": "send", "group_id": group, "text": "", "kind": 5, "tags": [["e", ourRumor]]])
            // Push-token gossip and a group system event: never bubbles.
            _ = try await mdk.call(["cmd": "send", "group_id": group, "text": "token", "kind": 448, "tags": [["v", "1"]]])
            _ = try await mdk.call(["cmd": "send", "group_id": group, "text": "{\"v\":1}", "kind": 1210])
            _ = try await mdk.call(["cmd": "send", "group_id": group, "text": "to be edited"])
            try await app.waitFor("MDK's messages shown") { $0.currentChat?.messages.last?.content == "to be edited" }

            var messages = try #require(app.state().currentChat?.messages)
            #expect(messages.map(\.content) == ["hello mdk", "hi app", "to be edited"])
            #expect(messages[0].reactions == [
                ReactionSummary(emoji: "👍", count: 1, senderPubkeys: [mdkKey.hex], includesMe: false)
            ])
            #expect(messages[1].replyTo?.text == "hello mdk" && messages[1].replyTo?.isAvailable == true)

            let theirs = messages[2].id
            _ = try await mdk.call([
                "cmd": "send", "group_id": group, "text": "edited by mdk", "kind": 1009, "tags": [["e", theirs.rawValue]],
            ])
            try await app.waitFor("edit shown") { $0.currentChat?.messages.last?.isEdited == true }
            #expect(app.state().currentChat?.messages.last?.content == "edited by mdk")
            _ = try await mdk.call(["cmd": "send", "group_id": group, "text": "", "kind": 5, "tags": [["e", theirs.rawValue]]])
            try await app.waitFor("MDK's own message deleted") { $0.currentChat?.messages.count == 2 }

            // From the store after a restart: ours still there (the hostile deletion changed
            // nothing), theirs gone, the reaction and the reply still in place.
            app = try await app.restarted(keys: keys)
            app.dispatch(.openChat(chatID: chatID))
            try await app.waitFor("history read back") { $0.currentChat?.messages.count == 2 }
            messages = try #require(app.state().currentChat?.messages)
            #expect(messages.map(\.content) == ["hello mdk", "hi app"])
            #expect(messages[0].reactions.map(\.label) == ["👍 1"])
            #expect(messages[1].replyTo?.messageID == messages[0].id)
            #expect(messages.allSatisfy { !$0.isEdited })
        }
    }

    @Test("our reaction, reply, unreact, edit and delete reach MDK 0.8.0 in their v1 forms")
    func outgoingToMDK() async throws {
        try InteropKit.require()
        let world = LiveWorld()
        let (_, relay) = try await world.startRelay()
        try await MarmotAppInteropTests.withMDK("mdk", in: world, on: relay) { mdk, mdkKey in
            let app = world.app("swift", relays: [relay])
            _ = try await app.createAccount()
            let (chatID, group) = try await Self.chat(app, mdk, mdkKey)
            _ = try await mdk.call(["cmd": "send", "group_id": group, "text": "react to me"])
            try await app.waitFor("shown") { $0.currentChat?.messages.last?.content == "react to me" }
            let target = try #require(app.state().currentChat?.messages.last?.id)

            app.dispatch(.react(chatID: chatID, messageID: target, emoji: "🎉"))
            let reaction = try await mdk.waitForEvent("message") { $0.int("kind") == 7 }
            #expect(reaction.string("text") == "🎉")
            #expect(reaction["tags"] as? [[String]] == [["e", target.rawValue]])
            try await app.waitFor("react ok") { $0.lastOutcome?.operation == .react && $0.lastOutcome?.code == .ok }

            app.dispatch(.reply(chatID: chatID, messageID: target, content: "replying"))
            let reply = try await mdk.waitForEvent("message") { $0.string("text") == "replying" }
            #expect(reply.int("kind") == 9)
            #expect(reply["tags"] as? [[String]] == [["e", target.rawValue], ["q", target.rawValue]])

            app.dispatch(.unreact(chatID: chatID, messageID: target, emoji: "🎉"))
            let unreact = try await mdk.waitForEvent("message") { $0.int("kind") == 5 }
            let reactionRumor = try #require(reaction.string("rumor_id"))
            #expect(unreact["tags"] as? [[String]] == [["e", reactionRumor]])
            try await app.waitFor("reaction gone") { $0.currentChat?.messages.first { $0.id == target }?.reactions == [] }

            try await app.waitFor("reply sent") { $0.currentChat?.messages.last?.delivery == .sent }
            let mine = try #require(app.state().currentChat?.messages.last)
            let replyRumor = try #require(reply.string("rumor_id"))
            app.dispatch(.editMessage(chatID: chatID, messageID: mine.id, content: "replying, edited"))
            let edit = try await mdk.waitForEvent("message") { $0.int("kind") == 1009 }
            #expect(edit.string("text") == "replying, edited")
            #expect(edit["tags"] as? [[String]] == [["e", replyRumor]])
            app.dispatch(.deleteMessage(chatID: chatID, messageID: mine.id))
            let deletion = try await mdk.waitForEvent("message") { $0.int("kind") == 5 && $0.string("rumor_id") != unreact.string("rumor_id") }
            #expect(deletion["tags"] as? [[String]] == [["e", replyRumor]])
            try await app.waitFor("deleted here too") { !($0.currentChat?.messages.contains { $0.id == mine.id } ?? true) }
        }
    }

    @Test("an app's own kind from MDK shows as a row saying what it is; reports and poll responses make none")
    func customKindsAreRows() async throws {
        try InteropKit.require()
        let world = LiveWorld()
        let (_, relay) = try await world.startRelay()
        try await MarmotAppInteropTests.withMDK("mdk", in: world, on: relay) { mdk, mdkKey in
            let app = world.app("swift", relays: [relay])
            _ = try await app.createAccount()
            let (_, group) = try await Self.chat(app, mdk, mdkKey)
            // A NIP-88 poll (kind 1068, a custom row), a report (1984) and a poll response (1018).
            _ = try await mdk.call(["cmd": "send", "group_id": group, "text": "Lunch?", "kind": 1068, "tags": [["option", "a", "Pizza"]]])
            _ = try await mdk.call(["cmd": "send", "group_id": group, "text": "spam", "kind": 1984, "tags": [["p", mdkKey.hex]]])
            _ = try await mdk.call(["cmd": "send", "group_id": group, "text": "", "kind": 1018, "tags": [["response", "a"]]])
            _ = try await mdk.call(["cmd": "send", "group_id": group, "text": "after"])
            try await app.waitFor("MDK's messages shown") { $0.currentChat?.messages.last?.content == "after" }
            #expect(app.state().currentChat?.messages.map(\.content) == ["Unsupported message (kind 1068): Lunch?", "after"])
        }
    }
}
