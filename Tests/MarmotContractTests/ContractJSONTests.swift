import Foundation
import MarmotContract
import MarmotCore
import Testing

@Suite("Contract JSON")
struct ContractJSONTests {
    static let actions: [AppAction] = [
        .createAccount, .login(nsec: "nsec1xyz"), .restoreSession(nsec: "nsec1abc"), .logout,
        .pushScreen(.newChat), .pushScreen(.chat(chatID: "ab01")), .updateScreenStack([.chat(chatID: "cd"), .newChat]),
        .createChat(peerNpub: "npub1q"), .sendMessage(chatID: "ab", content: "hi \"there\"\n"),
        .retryMessage(chatID: "ab", messageID: "m1"), .openChat(chatID: "ab"), .markChatRead(chatID: "ab"),
        .loadOlderMessages(chatID: "ab", beforeMessageID: "m1", limit: 50), .acceptInvite(inviteID: "i1"),
        .declineInvite(inviteID: "i2"), .clearToast, .foregrounded, .exportSecret, .loadOlder(chatID: "ab"),
        .setProfileName(name: "Alice"), .createGroup(name: "Crew", memberNpubs: ["npub1a", "npub1b"]),
        .addMembers(chatID: "ab", npubs: ["npub1c"]), .removeMember(chatID: "ab", npub: "npub1c"),
        .renameChat(chatID: "ab", name: "New"), .setAdmin(chatID: "ab", npub: "npub1a", isAdmin: true),
        .leaveChat(chatID: "ab"), .pushScreen(.relays), .pushScreen(.profile), .updateScreenStack([.relays, .profile]),
        .addRelay(url: "wss://relay.example"), .removeRelay(url: "ws://127.0.0.1:7447"),
        .react(chatID: "ab", messageID: "m1", emoji: "👍"), .unreact(chatID: "ab", messageID: "m1", emoji: "👍"),
        .unreact(chatID: "ab", messageID: "m1", emoji: nil), .reply(chatID: "ab", messageID: "m1", content: "sure"),
        .editMessage(chatID: "ab", messageID: "m1", content: "fixed"), .deleteMessage(chatID: "ab", messageID: "m1"),
        .sendAttachment(chatID: "ab", data: Data([0, 1, 2, 250, 255]), filename: "a \"b\".png", mimeType: "image/png", caption: ""),
        .downloadAttachment(chatID: "ab", messageID: "m1", index: 2), .addBlossomServer(url: "https://blossom.example"),
        .removeBlossomServer(url: "http://127.0.0.1:7447"),
        .pushScreen(.devices), .updateScreenStack([.devices]),
        .muteChat(chatID: "ab", duration: .seconds(28_800)), .muteChat(chatID: "ab", duration: .forever),
        .unmuteChat(chatID: "ab"), .archiveChat(chatID: "ab"), .unarchiveChat(chatID: "ab"),
        .blockPerson(npub: "npub1q"), .unblockPerson(npub: "npub1q"),
    ]

    @Test("State JSON: mute, archive and block (issue 48)")
    func chatPreferencesJSON() throws {
        var summary = ChatSummary(
            chatID: "ab", peerNpub: "npub1x", peerName: nil, lastMessage: nil, lastMessageAt: nil, unreadCount: 3,
            displayName: "x", lastMessagePreview: "", lastMessageTimeDisplay: "")
        summary.isMuted = true
        summary.mutedUntil = 1_800_000_000
        summary.muteLabel = "muted until 14:05"
        summary.isArchived = true
        var blockedMessage = ChatMessage(
            id: "m1", senderPubkey: "ee", content: DisplayFormatter.blockedMessageText, timestamp: 1, isMine: false,
            delivery: .sent, displayTimestamp: "")
        blockedMessage.isBlocked = true
        var state = AppState.initial
        state.chatList = [summary]
        state.currentChat = ChatViewState(
            chatID: "ab", peerNpub: "npub1x", peerName: nil, displayName: "x", messages: [blockedMessage], canLoadOlder: false)
        state.blocked = BlockedState(
            people: [BlockedEntry(npub: "npub1q", pubkey: "0f", displayName: "npub1q", blockedAt: 5, blockedTimeDisplay: "Jan 1")],
            loaded: true)
        let json = try #require(JSONSerialization.jsonObject(with: Data(ContractJSON.stateString(state).utf8)) as? [String: Any])
        let row = try #require((json["chatList"] as? [[String: Any]])?.first)
        #expect(row["isMuted"] as? Bool == true && row["mutedUntil"] as? Int == 1_800_000_000)
        #expect(row["isArchived"] as? Bool == true && row["asksForAttention"] as? Bool == false && row["unreadCount"] as? Int == 3)
        let message = try #require(((json["currentChat"] as? [String: Any])?["messages"] as? [[String: Any]])?.first)
        #expect(message["isBlocked"] as? Bool == true)
        let blocked = try #require(json["blocked"] as? [String: Any])
        #expect((blocked["people"] as? [[String: Any]])?.first?["npub"] as? String == "npub1q" && blocked["loaded"] as? Bool == true)
        let update = ContractJSON.string(ContractJSON.updateObject(.blockedChanged(rev: 3, blocked: state.blocked)))
        #expect(update.contains("\"type\":\"blockedChanged\"") && update.contains("npub1q"))
    }

    @Test("State JSON: a message's attachments with their state, and the Blossom servers (issue 28)")
    func attachmentsShape() throws {
        var message = ChatMessage(
            id: "m9", senderPubkey: "cd", content: "", timestamp: 5, isMine: false, delivery: .sent, displayTimestamp: "14:05")
        message.attachments = [
            ChatAttachment(
                index: 0, filename: "cat.jpg", mimeType: "image/jpeg", size: 2048, width: 640, height: 480, isImage: true,
                state: .failed(reason: "blob not found (404)"), label: "cat.jpg · image/jpeg · 2.0 KB · 640×480"),
            ChatAttachment(
                index: 1, filename: "a.pdf", mimeType: "application/pdf", size: nil, width: nil, height: nil, isImage: false,
                state: .available, label: "a.pdf · application/pdf"),
        ]
        var state = AppState.initial
        state.currentChat = ChatViewState(
            chatID: "ab", peerNpub: "npub1x", peerName: nil, displayName: "x", messages: [message], canLoadOlder: false)
        state.network.blossomServers = ["https://blossom.example"]
        state.network.blossomServersNamed = true
        state.network.blossomServersLoaded = true
        let json = try #require(
            JSONSerialization.jsonObject(with: Data(ContractJSON.stateString(state).utf8)) as? [String: Any])
        let chat = try #require(json["currentChat"] as? [String: Any])
        let files = try #require((chat["messages"] as? [[String: Any]])?.first?["attachments"] as? [[String: Any]])
        #expect(files.count == 2)
        #expect(files[0]["state"] as? String == "failed")
        #expect(files[0]["reason"] as? String == "blob not found (404)")
        #expect(files[0]["canDownload"] as? Bool == true)
        #expect(files[0]["width"] as? Int == 640 && files[0]["isImage"] as? Bool == true)
        #expect(files[1]["state"] as? String == "available")
        #expect(files[1]["reason"] is NSNull && files[1]["size"] is NSNull)
        #expect(files[1]["canDownload"] as? Bool == false)
        #expect(files[0]["stateText"] as? String == "failed" && files[1]["stateText"] as? String == "")
        #expect(files[0]["progress"] is NSNull)
        let network = try #require(json["network"] as? [String: Any])
        #expect(network["blossomServers"] as? [String] == ["https://blossom.example"])
        #expect(network["blossomServersNamed"] as? Bool == true)
        #expect(network["blossomServersLoaded"] as? Bool == true)
    }

    @Test("State JSON: a message's reactions, reply quote, edit mark and mentions; a chat row's arrivals (issue 25)")
    func messageKindsShape() throws {
        var message = ChatMessage(
            id: "m2", senderPubkey: "cd", content: "new text", timestamp: 5, isMine: true, delivery: .sent,
            displayTimestamp: "14:05")
        message.reactions = [ReactionSummary(emoji: "👍", count: 2, senderPubkeys: ["aa", "bb"], includesMe: true)]
        message.isEdited = true
        message.replyTo = ReplyQuote(messageID: "m1", isAvailable: false, senderPubkey: nil, senderDisplay: "", text: ReplyQuote.unavailableText)
        message.mentionedPubkeys = ["ee"]
        message.mentionsMe = true
        var plain = message
        plain.id = "m3"
        plain.replyTo = nil
        var summary = ChatSummary(
            chatID: "ab", peerNpub: "npub1x", peerName: nil, lastMessage: nil, lastMessageAt: nil, unreadCount: 0,
            displayName: "x", lastMessagePreview: "", lastMessageTimeDisplay: "")
        summary.recentArrivals = [ArrivedMessage(
            sequence: 7, messageID: "r1", senderPubkey: "cd", senderNpub: "npub1cd", kind: "reaction", nostrKind: 7,
            timestamp: 9, target: "m1", text: "👍", isMine: false)]
        var state = AppState.initial
        state.chatList = [summary]
        state.currentChat = ChatViewState(
            chatID: "ab", peerNpub: "npub1x", peerName: nil, displayName: "x", messages: [message, plain], canLoadOlder: false)
        let json = try #require(
            JSONSerialization.jsonObject(with: Data(ContractJSON.stateString(state).utf8)) as? [String: Any])
        let chat = try #require(json["currentChat"] as? [String: Any])
        #expect(chat["isLoaded"] as? Bool == false)
        let messages = try #require(chat["messages"] as? [[String: Any]])
        let object = try #require(messages.first)
        #expect((object["reactions"] as? [[String: Any]])?.first?["label"] as? String == "👍 2")
        #expect((object["reactions"] as? [[String: Any]])?.first?["includesMe"] as? Bool == true)
        #expect(object["isEdited"] as? Bool == true && object["editedMark"] as? String == "edited")
        let quote = try #require(object["replyTo"] as? [String: Any])
        #expect(quote["messageId"] as? String == "m1" && quote["isAvailable"] as? Bool == false)
        #expect(quote["text"] as? String == "message not available" && quote["senderPubkey"] is NSNull)
        #expect(object["mentionedPubkeys"] as? [String] == ["ee"] && object["mentionsMe"] as? Bool == true)
        #expect(object["canModify"] as? Bool == true)
        #expect(object["canDelete"] as? Bool == false, "set by the core's projection, false by default")
        #expect(messages.last?["replyTo"] is NSNull)
        let list = try #require(json["chatList"] as? [[String: Any]])
        let arrival = try #require((list.first?["recentArrivals"] as? [[String: Any]])?.first)
        #expect(arrival["sequence"] as? Int == 7 && arrival["kind"] as? String == "reaction" && arrival["nostrKind"] as? Int == 7)
        #expect(arrival["target"] as? String == "m1" && arrival["senderNpub"] as? String == "npub1cd")
    }

    @Test("Every action survives JSON and back", arguments: actions)
    func actionRoundTrip(action: AppAction) throws {
        let text = ContractJSON.string(ContractJSON.actionObject(action))
        #expect(try ContractJSON.action(fromJSON: text) == action)
        #expect(text.contains("\"schemaVersion\":1"))
    }

    @Test("Refused actions carry their code and never echo the nsec")
    func refusals() {
        #expect(throws: ContractError.invalidJSON) { try ContractJSON.action(fromJSON: "[]") }
        #expect(throws: ContractError.unsupportedSchemaVersion(2)) {
            try ContractJSON.action(fromJSON: #"{"schemaVersion":2,"type":"logout"}"#)
        }
        #expect(throws: ContractError.unknownType("fly")) { try ContractJSON.action(fromJSON: #"{"type":"fly"}"#) }
        do {
            _ = try ContractJSON.action(fromJSON: #"{"type":"login","nsec":42,"secret":"nsec1leak"}"#)
            Issue.record("a login without a string nsec was accepted")
        } catch {
            #expect(error == .invalidField("nsec"))
            #expect(error.code == 5)
            #expect(!error.description.contains("nsec1leak"))
        }
    }

    @Test("State JSON: tagged enums, string ids, explicit nulls")
    func stateShape() throws {
        let message = ChatMessage(
            id: "m1", senderPubkey: "aa", content: "hi", timestamp: 1, isMine: true,
            delivery: .failed(reason: "offline"), displayTimestamp: "14:05")
        let state = AppState(
            rev: 7, router: Router(defaultScreen: .chatList, screenStack: [.chat(chatID: "c1")]),
            auth: .loggedIn(npub: "npub1x", pubkey: "aa"), busy: BusyState(answeringInvites: ["i1"]),
            chatList: [], currentChat: ChatViewState(
                chatID: "c1", peerNpub: "npub1y", peerName: nil, displayName: "npub1y", messages: [message],
                canLoadOlder: false),
            toast: nil)
        let object = try #require(
            JSONSerialization.jsonObject(with: Data(ContractJSON.stateString(state).utf8)) as? [String: Any])
        #expect(object["schemaVersion"] as? Int == 1)
        #expect(object["rev"] as? Int == 7)
        #expect(object["toast"] is NSNull)
        let router = try #require(object["router"] as? [String: Any])
        let stack = try #require(router["screenStack"] as? [[String: Any]])
        #expect(stack.first?["type"] as? String == "chat" && stack.first?["chatId"] as? String == "c1")
        let chat = try #require(object["currentChat"] as? [String: Any])
        let messages = try #require(chat["messages"] as? [[String: Any]])
        let delivery = try #require(messages.first?["delivery"] as? [String: Any])
        #expect(delivery["type"] as? String == "failed" && delivery["reason"] as? String == "offline")
        #expect(chat["peerName"] is NSNull)
    }

    @Test("State JSON: the outcome names its message; a message of an abandoned branch and retention are marked")
    func outcomeMessageAndMarks() throws {
        var message = ChatMessage(
            id: "m1", senderPubkey: "aa", content: "hi", timestamp: 1, isMine: false, delivery: .sent, displayTimestamp: "14:05")
        message.isInvalidated = true
        var view = ChatViewState(
            chatID: "c1", peerNpub: "npub1y", peerName: nil, displayName: "npub1y", messages: [message], canLoadOlder: false)
        view.retentionSeconds = 3_600
        view.convergence = .resolving
        var state = AppState.initial
        state.currentChat = view
        state.lastOutcome = OperationOutcome(operation: .sendMessage, code: .ok, message: "", sequence: 3, messageID: "m9")
        let object = try #require(
            JSONSerialization.jsonObject(with: Data(ContractJSON.stateString(state).utf8)) as? [String: Any])
        #expect((object["lastOutcome"] as? [String: Any])?["messageId"] as? String == "m9")
        let chat = try #require(object["currentChat"] as? [String: Any])
        #expect(chat["retentionSeconds"] as? Int == 3_600)
        #expect(chat["retentionLabel"] as? String == "Messages disappear after 1 hour")
        #expect(chat["convergence"] as? String == "resolving")
        #expect(chat["convergenceLabel"] as? String == "Resolving: our change is not confirmed by a relay yet")
        let first = try #require((chat["messages"] as? [[String: Any]])?.first)
        #expect(first["isInvalidated"] as? Bool == true)
        #expect(first["invalidatedLabel"] as? String == DisplayFormatter.invalidatedLabel)
        #expect(try ContractJSON.action(fromJSON: #"{"schemaVersion":1,"type":"setRetention","chatId":"c1","seconds":60}"#)
            == .setRetention(chatID: "c1", seconds: 60))
        #expect(try ContractJSON.action(fromJSON: #"{"schemaVersion":1,"type":"disbandChat","chatId":"c1"}"#) == .disbandChat(chatID: "c1"))
    }

    @Test("State JSON: the chat list and the open chat carry the protocol version and the core's label")
    func protocolShape() throws {
        var state = AppState.initial
        state.chatList = [
            ChatSummary(
                chatID: "c1", peerNpub: "npub1y", peerName: nil, lastMessage: nil, lastMessageAt: nil, unreadCount: 0,
                displayName: "npub1y", lastMessagePreview: "No messages yet", lastMessageTimeDisplay: "",
                protocolVersion: .v2),
            ChatSummary(
                chatID: "c2", peerNpub: "npub1z", peerName: nil, lastMessage: nil, lastMessageAt: nil, unreadCount: 0,
                displayName: "npub1z", lastMessagePreview: "No messages yet", lastMessageTimeDisplay: ""),
        ]
        var chat = ChatViewState(
            chatID: "c1", peerNpub: "npub1y", peerName: nil, displayName: "npub1y", messages: [], canLoadOlder: false)
        chat.protocolVersion = .v2
        state.currentChat = chat
        let object = try #require(
            JSONSerialization.jsonObject(with: Data(ContractJSON.stateString(state).utf8)) as? [String: Any])
        let list = try #require(object["chatList"] as? [[String: Any]])
        #expect(list.map { $0["protocolVersion"] as? String } == ["v2", "v1"])
        #expect(list.map { $0["protocolLabel"] as? String } == ["Marmot v2", "Marmot v1"])
        let current = try #require(object["currentChat"] as? [String: Any])
        #expect(current["protocolVersion"] as? String == "v2")
        #expect(current["protocolLabel"] as? String == "Marmot v2")
        // Every value a host reads back names a version the core knows.
        for value in list.compactMap({ $0["protocolVersion"] as? String }) {
            #expect(ChatProtocolVersion(rawValue: value) != nil)
        }
        // The chatListChanged update carries the same fields.
        let update = ContractJSON.updateString(.chatListChanged(rev: 2, chatList: state.chatList))
        #expect(update.contains("\"protocolVersion\":\"v2\"") && update.contains("\"protocolLabel\":\"Marmot v2\""))
    }

    @Test("Profile JSON carries the core's saving text; relays their status")
    func profileAndRelaysShape() throws {
        var state = AppState.initial
        state.profile = ProfileState(name: "Alice", saving: true)
        state.network.relays = [RelayEntry(url: "wss://relay.example", connected: true)]
        let object = try #require(
            JSONSerialization.jsonObject(with: Data(ContractJSON.stateString(state).utf8)) as? [String: Any])
        let profile = try #require(object["profile"] as? [String: Any])
        #expect(profile["name"] as? String == "Alice" && profile["saving"] as? Bool == true)
        #expect(profile["lookedUp"] as? Bool == false)
        #expect(profile["statusText"] as? String == "Saving your name…")
        let network = try #require(object["network"] as? [String: Any])
        let relays = try #require(network["relays"] as? [[String: Any]])
        #expect(relays.first?["url"] as? String == "wss://relay.example" && relays.first?["statusText"] as? String == "connected")
        #expect(relays.first?["lastEventAt"] is NSNull)
        #expect((relays.first?["state"] as? [String: Any])?["type"] as? String == "connected")
        #expect((relays.first?["auth"] as? [String: Any])?["type"] as? String == "notAsked")
        state.profile.saving = false
        let idle = try #require(
            JSONSerialization.jsonObject(with: Data(ContractJSON.stateString(state).utf8)) as? [String: Any])
        #expect((idle["profile"] as? [String: Any])?["statusText"] is NSNull)
    }

    @Test("a failing relay carries its state with the reason and its last event time (issue 17)")
    func failingRelayShape() throws {
        var state = AppState.initial
        state.network.relays = [
            RelayEntry(
                url: "wss://relay.example", state: .failing(reason: "connection refused"), lastEventAt: 1_700_000_000,
                statusText: "failing: connection refused · last event 5 min ago")
        ]
        state.network.relays[0].downSince = 1_700_000_300
        let object = try #require(
            JSONSerialization.jsonObject(with: Data(ContractJSON.stateString(state).utf8)) as? [String: Any])
        let relay = try #require(((object["network"] as? [String: Any])?["relays"] as? [[String: Any]])?.first)
        let relayState = try #require(relay["state"] as? [String: Any])
        #expect(relayState["type"] as? String == "failing" && relayState["reason"] as? String == "connection refused")
        #expect((relay["lastEventAt"] as? NSNumber)?.int64Value == 1_700_000_000)
        #expect((relay["downSince"] as? NSNumber)?.int64Value == 1_700_000_300)
        #expect(relay["connected"] as? Bool == false)
        #expect(relay["statusText"] as? String == "failing: connection refused · last event 5 min ago")
    }

    @Test("a relay's NIP-42 state: authenticated, or refused with the relay's reason (issue 44)")
    func relayAuthShape() throws {
        var state = AppState.initial
        state.network.relays = [RelayEntry(url: "wss://a.example", connected: true), RelayEntry(url: "wss://b.example", connected: true)]
        state.network.relays[0].auth = .authenticated
        state.network.relays[1].auth = .refused(reason: "restricted: not a member")
        let object = try #require(
            JSONSerialization.jsonObject(with: Data(ContractJSON.stateString(state).utf8)) as? [String: Any])
        let relays = try #require((object["network"] as? [String: Any])?["relays"] as? [[String: Any]])
        let auths = relays.compactMap { $0["auth"] as? [String: Any] }
        #expect(auths.count == 2)
        #expect(auths.first?["type"] as? String == "authenticated" && auths.first?["reason"] == nil)
        #expect(auths.last?["type"] as? String == "refused" && auths.last?["reason"] as? String == "restricted: not a member")
    }

    @Test("accountCreated: the nsec is in the update for the host, and removed in the redacted form")
    func accountCreatedRedaction() {
        let update = AppUpdate.accountCreated(rev: 3, nsec: "nsec1secret", pubkey: "aa", npub: "npub1x")
        #expect(ContractJSON.updateString(update).contains("nsec1secret"))
        let redacted = ContractJSON.string(ContractJSON.redactedUpdateObject(update))
        #expect(!redacted.contains("nsec1secret"))
        #expect(redacted.contains("\"type\":\"accountCreated\"") && redacted.contains("\"rev\":3"))
        #expect(!"\(update)".contains("nsec1secret"))
        for secret in [AppUpdate.secretAccepted(rev: 4, nsec: "nsec1secret", npub: "npub1x"), .secretExported(rev: 5, nsec: "nsec1secret")] {
            #expect(ContractJSON.updateString(secret).contains("nsec1secret"))
            #expect(!ContractJSON.string(ContractJSON.redactedUpdateObject(secret)).contains("nsec1secret"))
        }
    }
}
