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
    /// The in-memory message search index (issue 48), built on the first search; never on disk.
    var searchIndex: MessageSearchIndex?
    var searchIndexLoading = false
    /// The last search asked for, run again once the index is built.
    var searchRequest: (query: String, chat: ChatID?, limit: Int)?
    /// The chat whose view is in `state.currentChat`, as of the last reduction.
    var visibleChatID: ChatID?
    var relayStatus: RelayStatus?
    /// Whether `AppState.network.relays` lists the relays (from the first relay report or change on).
    var relaysShown = false
    /// The pending refresh of the relays' "last event … ago" texts (the core's timer, issue 17).
    var relayClock: Task<Void, Never>?
    /// The pending redraw at the end of the next timed mute, and that moment (issue 48).
    var muteClock: (end: Int64, task: Task<Void, Never>)?
    /// The people this account blocked, with since when (Unix seconds); read at start (issue 48).
    var blocked: [PublicKey: Int64] = [:]
    /// Whether `blocked` has been read from storage this session.
    var blockedListed = false
    /// The send pipeline (see `AppCore.outbox(for:service:)`) and the task that drains it.
    var outbox: AsyncStream<OutgoingMessage>.Continuation?
    var outboxPump: Task<Void, Never>?
    /// The operation each message in the outbox carries out (a reaction, an edit, …), for its
    /// outcome; a plain text is `sendMessage` and is not listed.
    var pendingOperations: [MessageID: UserOperation] = [:]
    /// The number of the last message that arrived (`ArrivedMessage.sequence`).
    var arrivalSequence: UInt64 = 0
    /// Messages waiting to be numbered as arrivals, oldest first: the unread backlog of the session's
    /// start, then what arrived while it is released step by step (`AppCore.releaseBacklog`).
    var backlog: [MessageRecord] = []
    /// The ids of the start's unread messages, so one that also arrives live is numbered once.
    var backlogIDs: Set<MessageID> = []
    /// The session's relays as the user has them (configured at start, then added or removed).
    var relayURLs: [URL] = []
    /// Pending invitations as the messaging layer last listed them.
    var invites: [InviteInfo] = []
    /// Joins the messaging layer reported complete before the core had shown the accept's chat.
    var settledJoins: Set<ChatID> = []
    /// Whether the stored chat list has been read once this session.
    var chatsListed = false
    /// Attachments whose state differs from what the messaging layer says (downloading, failed,
    /// downloaded this session), by message and index.
    var attachmentStates: [MessageID: [Int: AttachmentState]] = [:]
    /// Upload progress of our pending messages' attachments, in whole percent (while uploading).
    var uploadProgress: [MessageID: Int] = [:]
    /// Group pictures whose state differs from what the messaging layer says (loading, failed,
    /// downloaded this session), by chat, for the picture `imageID` names.
    var chatImageStates: [ChatID: (imageID: String, state: ChatImageState)] = [:]
    /// The Blossom servers in use, and whether the user named them.
    var blossomServers: [URL] = []
    var blossomServersNamed = false
    var blossomServersLoaded = false
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

    /// Whether `entry` is a 1:1 chat with someone this account blocked (issue 48): hidden, no sends.
    func isBlockedDirect(_ entry: ChatEntry) -> Bool {
        entry.info.isDirect && !entry.info.isNotes && blocked[entry.info.peer] != nil
    }
}

/// One chat as the core tracks it: the stored description plus the loaded part of its history.
struct ChatEntry {
    var info: ChatInfo
    /// `info.peer` in NIP-19 form, encoded once per peer.
    private(set) var peerNpub: String
    var thread = MessageThread()
    /// Messages that arrived this session, newest last (see `ChatSummary.recentArrivals`).
    var arrivals: [ArrivedMessage] = []

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
        info.deviceCounts = fresh.deviceCounts
        info.isDirect = fresh.isDirect
        info.groupName = fresh.groupName
        info.admins = fresh.admins
        info.protocolVersion = fresh.protocolVersion
        info.isMember = fresh.isMember
        info.retentionSeconds = fresh.retentionSeconds
        info.convergence = fresh.convergence
        info.imageID = fresh.imageID
        info.imageIsHere = fresh.imageIsHere
        if let last = fresh.lastMessage { noteMessage(last) }
    }

    /// When the chat last saw activity: its newest message, else its creation.
    var activityAt: Int64 { info.lastMessage?.createdAt ?? info.createdAt }

    /// Makes `record` the newest message if it is at least as new as the current one.
    mutating func noteMessage(_ record: MessageRecord) {
        guard record.role == .text, !thread.deleted.contains(record.id) else { return }
        if let last = info.lastMessage, last.id != record.id, last.createdAt > record.createdAt { return }
        info.lastMessage = record
    }
}
