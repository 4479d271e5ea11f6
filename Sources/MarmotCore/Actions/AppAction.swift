import Foundation

/// Every intent the UI can express; the only way the platform talks to the core (MVP spec, Actions).
///
/// Fire-and-forget: results come back as state. Printing an action shows only its `tag`, which never
/// contains a secret key or message text, so an action that slips into a log line leaks nothing.
public enum AppAction: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    // Auth
    case createAccount
    case login(nsec: String)
    /// Sent by the platform at launch with the nsec from its secure storage.
    case restoreSession(nsec: String)
    case logout
    /// Asks the core for the account's nsec, after the user confirmed they want to see it; it
    /// answers with the `secretExported` side effect (MVP spec, Key Storage: export).
    case exportSecret

    // Navigation
    /// Core-initiated navigation, also usable by the UI for pushes it decides (e.g. "New Chat").
    case pushScreen(Screen)
    /// Platform-initiated navigation: the stack after a swipe-back or system back.
    case updateScreenStack([Screen])

    // Chat
    case createChat(peerNpub: String)
    case sendMessage(chatID: ChatID, content: String)
    /// Sends a picture or file (MIP-04: encrypted, uploaded to the first Blossom server, referenced
    /// by the message), with `caption` as its text (may be empty).
    case sendAttachment(chatID: ChatID, data: Data, filename: String, mimeType: String, caption: String)
    /// Downloads and decrypts attachment `index` of a message (its state goes downloading → available).
    case downloadAttachment(chatID: ChatID, messageID: MessageID, index: Int)
    /// Adds a Blossom server (http or https) to the user's list.
    case addBlossomServer(url: String)
    /// Removes one of the user's Blossom servers.
    case removeBlossomServer(url: String)
    case retryMessage(chatID: ChatID, messageID: MessageID)
    case openChat(chatID: ChatID)
    /// Marks every message of a chat read without opening it (its unread count becomes 0, also in
    /// storage), for renderers that show messages outside a chat (`marmot listen --mark-read`).
    case markChatRead(chatID: ChatID)
    /// The next older page of the open chat; the core picks its size and says in
    /// `ChatViewState.canLoadOlder` whether more exist. Ignored while a page is in flight.
    case loadOlder(chatID: ChatID)
    /// Reacts to a message with an emoji (kind 7, NIP-25); the reaction shows under it at once.
    case react(chatID: ChatID, messageID: MessageID, emoji: String)
    /// Takes back this account's reactions to a message: those with `emoji`, or all when nil (a
    /// kind-5 deletion of our kind-7 events, as MDK 0.9.14's `Unreact` resolves it).
    case unreact(chatID: ChatID, messageID: MessageID, emoji: String?)
    /// Answers a message: a text quoting it (kind 9 with `e` and `q` tags).
    case reply(chatID: ChatID, messageID: MessageID, content: String)
    /// Replaces the text of one of this account's messages (kind 1009); shown marked "edited".
    case editMessage(chatID: ChatID, messageID: MessageID, content: String)
    /// Deletes one of this account's messages for everyone (kind 5, NIP-09).
    case deleteMessage(chatID: ChatID, messageID: MessageID)
    /// Older form of `loadOlder`, kept for compatibility: the named anchor must be the oldest loaded
    /// message; `limit` 0 means the core's page size.
    case loadOlderMessages(chatID: ChatID, beforeMessageID: MessageID, limit: UInt32)

    // Relays
    /// Adds a relay (ws:// or wss://) to the session's relays.
    case addRelay(url: String)
    /// Removes one of the session's relays (not the last one).
    case removeRelay(url: String)

    // Profile
    /// Publishes this account's name (kind 0); the core cleans it up first.
    case setProfileName(name: String)

    // Groups
    /// A named group with the given npubs (each needs a key package); the core opens it.
    case createGroup(name: String, memberNpubs: [String])
    /// Adds people to a group we administer.
    case addMembers(chatID: ChatID, npubs: [String])
    /// Removes a member from a group we administer.
    case removeMember(chatID: ChatID, npub: String)
    /// Renames a group we administer.
    case renameChat(chatID: ChatID, name: String)
    /// Sets the picture of a group we administer (PNG, JPEG, GIF or WebP; a nil type is read from
    /// the bytes): encrypted, uploaded to our Blossom server, then committed as group data.
    case setChatImage(chatID: ChatID, data: Data, mediaType: String?)
    /// Removes the picture of a group we administer.
    case clearChatImage(chatID: ChatID)
    /// Sets how long messages live in a v2 group we administer (seconds; 0 turns it off).
    case setRetention(chatID: ChatID, seconds: UInt64)
    /// Closes a v2 group we administer for every member, for good.
    case disbandChat(chatID: ChatID)
    /// Makes a member an admin, or takes it away (our own: stepping down).
    case setAdmin(chatID: ChatID, npub: String, isAdmin: Bool)
    /// Leaves a group (a SelfRemove proposal an admin commits).
    case leaveChat(chatID: ChatID)

    // Invitations
    /// Joins the chat an invitation is for and opens it.
    case acceptInvite(inviteID: InviteID)
    /// Refuses an invitation; nothing of its group is kept.
    case declineInvite(inviteID: InviteID)

    // UI
    /// Opens this account's Notes chat, making it on first use (issue 29).
    case openNotes
    /// Reads this account's devices again (linked, and waiting to be linked) into `AppState.devices`.
    case loadDevices
    /// Adds a device waiting to be linked to the Notes chat (the user confirmed it is theirs).
    case linkDevice(id: String)
    /// Removes a linked device's leaf from every group we may remove it from: the Notes chat, and
    /// chats where our account is admin (it reads nothing written there after).
    case removeDevice(id: String)
    /// Adds this account's other linked devices to a chat where our account is admin (an ordinary
    /// Add; they read the chat from then on).
    case addMyDevices(chatID: ChatID)

    // Chat preferences and blocking (issue 48): kept on this device, never sent to anyone
    /// Mutes a chat for a while or for good: its unread count stays, it never asks for attention.
    case muteChat(chatID: ChatID, duration: MuteDuration)
    case unmuteChat(chatID: ChatID)
    /// Leaves a chat out of the chat list (`AppState.inboxChats`) until unarchived, or until a
    /// message arrives while it is not muted.
    case archiveChat(chatID: ChatID)
    case unarchiveChat(chatID: ChatID)
    /// Blocks a person by npub (or hex key): their invitations are not listed, a 1:1 with them is
    /// hidden and refuses sends, their messages in groups show collapsed.
    case blockPerson(npub: String)
    case unblockPerson(npub: String)

    // Search (issue 48)
    /// Searches the messages of every chat, or of `chatID`, for `query` (every word, the last one
    /// as a prefix, case and accents ignored); newest first, at most `limit`, into `AppState.search`.
    case search(query: String, chatID: ChatID?, limit: Int)

    case clearToast

    // Lifecycle
    case foregrounded

    /// A log-safe name: identifiers and sizes only, never secrets or message content.
    public var tag: String {
        switch self {
        case .createAccount: "createAccount"
        case .login: "login"
        case .restoreSession: "restoreSession"
        case .logout: "logout"
        case .exportSecret: "exportSecret"
        case .loadOlder(let chatID): "loadOlder(chat: \(chatID))"
        case .pushScreen(let screen): "pushScreen(\(screen.tag))"
        case .updateScreenStack(let stack): "updateScreenStack(depth: \(stack.count))"
        case .createChat: "createChat"
        case .sendMessage(let chatID, let content): "sendMessage(chat: \(chatID), chars: \(content.count))"
        case .sendAttachment(let chatID, let data, filename: _, mimeType: _, caption: _):
            "sendAttachment(chat: \(chatID), bytes: \(data.count))"
        case .downloadAttachment(let chatID, let messageID, let index):
            "downloadAttachment(chat: \(chatID), message: \(messageID), index: \(index))"
        case .addBlossomServer: "addBlossomServer"
        case .removeBlossomServer: "removeBlossomServer"
        case .retryMessage(let chatID, let messageID): "retryMessage(chat: \(chatID), message: \(messageID))"
        case .react(let chatID, let messageID, _): "react(chat: \(chatID), message: \(messageID))"
        case .unreact(let chatID, let messageID, _): "unreact(chat: \(chatID), message: \(messageID))"
        case .reply(let chatID, let messageID, let content):
            "reply(chat: \(chatID), message: \(messageID), chars: \(content.count))"
        case .editMessage(let chatID, let messageID, let content):
            "editMessage(chat: \(chatID), message: \(messageID), chars: \(content.count))"
        case .deleteMessage(let chatID, let messageID): "deleteMessage(chat: \(chatID), message: \(messageID))"
        case .openChat(let chatID): "openChat(chat: \(chatID))"
        case .markChatRead(let chatID): "markChatRead(chat: \(chatID))"
        case .loadOlderMessages(let chatID, _, let limit): "loadOlderMessages(chat: \(chatID), limit: \(limit))"
        case .acceptInvite(let id): "acceptInvite(\(id))"
        case .declineInvite(let id): "declineInvite(\(id))"
        case .setProfileName: "setProfileName"
        case .addRelay: "addRelay"
        case .removeRelay: "removeRelay"
        case .createGroup(_, let members): "createGroup(members: \(members.count))"
        case .addMembers(let chatID, let npubs): "addMembers(chat: \(chatID), count: \(npubs.count))"
        case .removeMember(let chatID, _): "removeMember(chat: \(chatID))"
        case .renameChat(let chatID, _): "renameChat(chat: \(chatID))"
        case .setChatImage(let chatID, let data, _): "setChatImage(chat: \(chatID), bytes: \(data.count))"
        case .clearChatImage(let chatID): "clearChatImage(chat: \(chatID))"
        case .setRetention(let chatID, let seconds): "setRetention(chat: \(chatID), seconds: \(seconds))"
        case .disbandChat(let chatID): "disbandChat(chat: \(chatID))"
        case .setAdmin(let chatID, _, let isAdmin): "setAdmin(chat: \(chatID), admin: \(isAdmin))"
        case .leaveChat(let chatID): "leaveChat(chat: \(chatID))"
        case .clearToast: "clearToast"
        case .foregrounded: "foregrounded"
        case .openNotes: "openNotes"
        case .loadDevices: "loadDevices"
        case .linkDevice: "linkDevice"
        case .removeDevice: "removeDevice"
        case .addMyDevices: "addMyDevices"
        case .muteChat(let chatID, let duration):
            if case .seconds(let seconds) = duration { "muteChat(chat: \(chatID), seconds: \(seconds))" } else { "muteChat(chat: \(chatID), forever)" }
        case .unmuteChat(let chatID): "unmuteChat(chat: \(chatID))"
        case .archiveChat(let chatID): "archiveChat(chat: \(chatID))"
        case .unarchiveChat(let chatID): "unarchiveChat(chat: \(chatID))"
        case .blockPerson: "blockPerson"
        case .unblockPerson: "unblockPerson"
        case .search(let query, let chatID, let limit):
            "search(chars: \(query.count), chat: \(chatID.map(\.rawValue) ?? "all"), limit: \(limit))"
        }
    }

    public var description: String { tag }
    public var debugDescription: String { tag }
    public var customMirror: Mirror { Mirror(self, children: ["tag": tag], displayStyle: .enum) }
}

extension Screen {
    /// A short log-safe name.
    var tag: String {
        switch self {
        case .login: "login"
        case .chatList: "chatList"
        case .chat(let chatID): "chat(\(chatID))"
        case .newChat: "newChat"
        case .groupInfo(let chatID): "groupInfo(\(chatID))"
        case .newGroup: "newGroup"
        case .relays: "relays"
        case .profile: "profile"
        case .devices: "devices"
        }
    }
}
