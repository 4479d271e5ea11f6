import Foundation
import Nostr

/// A logged-in account and everything the core knows beyond what `AppState` shows.
///
/// Lives only inside the `AppCore` actor and is dropped on logout, taking the keys with it.
final class Session {
    let id: UInt64
    let keys: Keys
    let directory: URL
    let service: (any MessagingService)?
    /// The task forwarding the service's events to the actor.
    var eventPump: Task<Void, Never>?
    var chats: [ChatID: ChatEntry] = [:]
    /// The chat whose view is in `state.currentChat`, as of the last reduction.
    var visibleChatID: ChatID?
    var relayStatus: RelayStatus?
    /// Whether `AppState.network.relays` lists the relays (from the first relay report or change on).
    var relaysShown = false
    /// The pending refresh of the relays' "last event … ago" texts (the core's timer, issue 17).
    var relayClock: Task<Void, Never>?
    /// The send pipeline (see `AppCore.outbox(for:service:)`) and the task that drains it.
    var outbox: AsyncStream<OutgoingMessage>.Continuation?
    var outboxPump: Task<Void, Never>?
    /// The session's relays as the user has them (configured at start, then added or removed).
    var relayURLs: [URL] = []
    /// Pending invitations as the messaging layer last listed them.
    var invites: [InviteInfo] = []
    /// Joins the messaging layer reported complete before the core had shown the accept's chat.
    var settledJoins: Set<ChatID> = []
    /// Whether the stored chat list has been read once this session.
    var chatsListed = false
    /// Whether the messaging layer reported that it is catching up, or that it is live.
    var serviceCatchingUp = false
    var serviceLive = false

    init(id: UInt64, keys: Keys, directory: URL, service: (any MessagingService)?) {
        self.id = id
        self.keys = keys
        self.directory = directory
        self.service = service
    }

    var myPublicKey: PublicKey { keys.publicKey }

    /// The proven 1:1 chat with `peer` we are still a member of, if one exists; a group that merely
    /// contains `peer` is not one, nor a chat we left (a new chat is started instead).
    func chat(with peer: PublicKey) -> ChatEntry? {
        chats.values.first { $0.info.isDirect && $0.info.isMember && $0.info.peer == peer }
    }
}

/// One chat as the core tracks it: the stored description plus the loaded part of its history.
struct ChatEntry {
    var info: ChatInfo
    /// `info.peer` in NIP-19 form, encoded once per peer.
    private(set) var peerNpub: String
    var thread = MessageThread()

    init(info: ChatInfo) {
        self.info = info
        self.peerNpub = info.peer.npub
    }

    var id: ChatID { info.chatID }

    /// Takes what the messaging layer now says of the chat (members, peer, names), keeping the
    /// core's unread count and newest message.
    mutating func refresh(from fresh: ChatInfo) {
        if fresh.peer != info.peer { peerNpub = fresh.peer.npub }
        info.peer = fresh.peer
        info.peerName = fresh.peerName
        info.createdAt = fresh.createdAt
        info.members = fresh.members
        info.isDirect = fresh.isDirect
        info.groupName = fresh.groupName
        info.admins = fresh.admins
        info.protocolVersion = fresh.protocolVersion
        info.isMember = fresh.isMember
        info.retentionSeconds = fresh.retentionSeconds
        if let last = fresh.lastMessage { noteMessage(last) }
    }

    /// When the chat last saw activity: its newest message, else its creation.
    var activityAt: Int64 { info.lastMessage?.createdAt ?? info.createdAt }

    /// Makes `record` the newest message if it is at least as new as the current one.
    mutating func noteMessage(_ record: MessageRecord) {
        if let last = info.lastMessage, last.id != record.id, last.createdAt > record.createdAt { return }
        info.lastMessage = record
    }
}

/// The loaded window of a chat's messages, oldest first, with paging bookkeeping.
struct MessageThread {
    private(set) var messages: [MessageRecord] = []
    private var ids: Set<MessageID> = []
    /// Whether the newest page has arrived from the service.
    var loaded = false
    /// Whether a page request is in flight.
    var loading = false
    /// Whether history older than `messages.first` exists.
    var hasOlder = false

    func contains(_ id: MessageID) -> Bool { ids.contains(id) }

    func message(_ id: MessageID) -> MessageRecord? {
        guard ids.contains(id) else { return nil }
        return messages.last { $0.id == id }
    }

    /// Adds a message in time order (after any of the same second), or replaces the one with its id.
    mutating func upsert(_ record: MessageRecord) {
        if ids.contains(record.id) {
            if let index = messages.lastIndex(where: { $0.id == record.id }) { messages[index] = record }
            return
        }
        ids.insert(record.id)
        var index = messages.endIndex
        while index > messages.startIndex, messages[index - 1].createdAt > record.createdAt { index -= 1 }
        messages.insert(record, at: index)
    }

    /// Adds the page's messages not already here; those already here keep the core's version, which
    /// reflects every event since.
    mutating func merge(_ page: [MessageRecord]) {
        let fresh = page.filter { !ids.contains($0.id) }
        guard !fresh.isEmpty else { return }
        ids.formUnion(fresh.map(\.id))
        messages = (fresh + messages).enumerated()
            .sorted { ($0.element.createdAt, $0.offset) < ($1.element.createdAt, $1.offset) }
            .map(\.element)
    }

    /// Marks messages as belonging to an abandoned branch of the group.
    mutating func markInvalidated(_ marked: Set<MessageID>) {
        guard !ids.isDisjoint(with: marked) else { return }
        for index in messages.indices where marked.contains(messages[index].id) { messages[index].invalidated = true }
    }

    /// Drops messages that no longer exist (they expired and were deleted).
    mutating func removeExpired(_ gone: Set<MessageID>) {
        guard !ids.isDisjoint(with: gone) else { return }
        ids.subtract(gone)
        messages.removeAll { gone.contains($0.id) }
    }

    /// Sets the delivery state of a message; false when the message is not here.
    mutating func setDelivery(_ id: MessageID, _ delivery: MessageDeliveryState) -> Bool {
        guard ids.contains(id), let index = messages.lastIndex(where: { $0.id == id }) else { return false }
        messages[index].delivery = delivery
        return true
    }
}
