import Foundation
import MarmotCore
import Nostr

/// A chat the test double knows before the session starts.
struct ChatSeed: Sendable {
    var chatID: ChatID
    var peer: PublicKey
    var peerName: String?
    var createdAt: Int64
    /// (from the peer?, text, unix seconds), oldest first.
    var messages: [(fromPeer: Bool, text: String, at: Int64)]
    var unreadCount: UInt32 = 0
    /// The Marmot protocol the chat speaks.
    var protocolVersion: ChatProtocolVersion = .v1
}

/// Why the double failed a call, as a real service would describe it.
struct TestServiceError: Error, CustomStringConvertible {
    let description: String
}

/// Opens once, letting every waiter through; used to hold a service call in flight.
actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }
}

/// Test double of the messaging layer: chats and messages in memory, scripted delivery outcomes,
/// gates that hold calls, and hooks to play the peer (incoming messages, invitations).
///
/// Lives in the test target only; product code has no fake service.
actor TestMessagingService: MessagingService {
    private(set) var reconnects = 0
    nonisolated let context: SessionContext
    private var chats: [ChatID: ChatInfo] = [:]
    private var history: [ChatID: [MessageRecord]] = [:]
    private var continuation: AsyncStream<MessagingEvent>.Continuation?
    private var pendingInvites: [(invite: InviteInfo, chat: ChatInfo)] = []

    /// Outcomes for the next sends and retries, in order; `.sent` once exhausted.
    var scriptedOutcomes: [DeliveryOutcome] = []
    var createChatFailure: String?
    var createChatGate: Gate?
    var sendGate: Gate?
    var attachmentFailure: String?
    private(set) var createChatEntered = false
    /// The relay hints of the last `createChat` (an nprofile's relays).
    private(set) var lastRelayHints: [URL] = []
    private(set) var sent: [OutgoingMessage] = []
    private(set) var retried: [OutgoingMessage] = []
    private(set) var markedRead: [ChatID] = []
    private(set) var pageRequests: [(before: MessageID?, limit: Int)] = []
    private(set) var started = false
    private(set) var stopped = false

    init(context: SessionContext, seeds: [ChatSeed]) {
        self.context = context
        let me = context.keys.publicKey
        for seed in seeds {
            let records = seed.messages.enumerated().map { index, message in
                MessageRecord(
                    id: MessageID("\(seed.chatID)-m\(index)"), chatID: seed.chatID,
                    sender: message.fromPeer ? seed.peer : me, content: message.text, createdAt: message.at)
            }
            history[seed.chatID] = records
            chats[seed.chatID] = ChatInfo(
                chatID: seed.chatID, peer: seed.peer, peerName: seed.peerName, createdAt: seed.createdAt,
                lastMessage: records.last, unreadCount: seed.unreadCount, protocolVersion: seed.protocolVersion)
        }
    }

    // MARK: Chat preferences and blocking (issue 48)

    private(set) var blocked: [PublicKey: Int64] = [:]
    private(set) var preferenceWrites: [(ChatID, ChatPreferences)] = []
    var preferencesFailure: String?

    func setChatPreferences(_ preferences: ChatPreferences, chatID: ChatID) async throws {
        if let reason = preferencesFailure { throw TestServiceError(description: reason) }
        guard chats[chatID] != nil else { throw TestServiceError(description: "unknown chat") }
        chats[chatID]?.preferences = preferences
        preferenceWrites.append((chatID, preferences))
    }

    func blockedPeople() async throws -> [BlockedPerson] {
        blocked.map { BlockedPerson(person: $0.key, blockedAt: $0.value) }.sorted { $0.blockedAt < $1.blockedAt }
    }

    func setBlocked(_ person: PublicKey, blocked: Bool, at: Int64) async throws {
        if let reason = preferencesFailure { throw TestServiceError(description: reason) }
        self.blocked[person] = blocked ? at : nil
    }

    func failPreferences(_ reason: String?) { preferencesFailure = reason }
    /// Plays a person blocked in an earlier session (read at start).
    func seedBlocked(_ person: PublicKey, at: Int64) { blocked[person] = at }
    /// What the double keeps of a chat (as `listChats` would return it after a restart).
    func storedChat(_ chatID: ChatID) -> ChatInfo? { chats[chatID] }

    /// Plays `sender` (a member of a group) writing `text` in `chatID`.
    @discardableResult
    func receive(_ text: String, in chatID: ChatID, from sender: PublicKey, at: Int64) -> MessageRecord {
        let record = MessageRecord(id: MessageID.generate(), chatID: chatID, sender: sender, content: text, createdAt: at)
        history[chatID, default: []].append(record)
        chats[chatID]?.lastMessage = record
        continuation?.yield(.messageReceived(record))
        return record
    }

    // MARK: Controls

    func script(_ outcomes: [DeliveryOutcome]) { scriptedOutcomes = outcomes }
    /// Holds the next sends until the gate opens (an upload in progress).
    func holdSends(_ gate: Gate?) { sendGate = gate }
    func failCreateChat(_ reason: String?) { createChatFailure = reason }
    func holdCreateChat(_ gate: Gate?) { createChatGate = gate }

    /// Plays the peer sending `text` in `chatID`; returns the stored record.
    @discardableResult
    func receive(_ text: String, in chatID: ChatID, at: Int64, id: MessageID? = nil) -> MessageRecord? {
        guard let peer = chats[chatID]?.peer else { return nil }
        let record = MessageRecord(
            id: id ?? MessageID.generate(), chatID: chatID, sender: peer, content: text, createdAt: at)
        history[chatID, default: []].append(record)
        chats[chatID]?.lastMessage = record
        continuation?.yield(.messageReceived(record))
        return record
    }

    /// Plays a peer inviting this account: the chat appears (a welcome was accepted).
    func invite(_ info: ChatInfo) {
        chats[info.chatID] = info
        continuation?.yield(.chatUpdated(info))
    }

    /// Emits an arbitrary event.
    func emit(_ event: MessagingEvent) { continuation?.yield(event) }

    /// Plays the end of the start-up catch-up: the invitations listed, then `.syncStatus(.live)`.
    func finishCatchUp() {
        continuation?.yield(.syncStatus(.catchingUp))
        continuation?.yield(.invitesChanged(pendingInvites.map(\.invite)))
        continuation?.yield(.syncStatus(.live))
    }

    /// Plays someone inviting this account: the invitation waits for accept or decline, and the
    /// chat it leads to is `chat`.
    func offerInvite(_ invite: InviteInfo, chat: ChatInfo) {
        pendingInvites.append((invite, chat))
        continuation?.yield(.invitesChanged(pendingInvites.map(\.invite)))
    }

    private(set) var declined: [InviteID] = []

    // MARK: MessagingService

    func start() async throws -> AsyncStream<MessagingEvent> {
        started = true
        // Writes what a careless service might: the context as printed, so tests can check that
        // printing it reveals no secret.
        let dump = "\(context)\n\(String(reflecting: context))\n\(context.keys)\n"
        try Data(dump.utf8).write(to: context.accountDirectory.appendingPathComponent("service-context.txt"))
        let (stream, continuation) = AsyncStream<MessagingEvent>.makeStream()
        self.continuation = continuation
        return stream
    }

    func listChats() async throws -> [ChatInfo] {
        chats.values.map { info in
            var info = info
            info.lastMessage = history[info.chatID]?.last ?? info.lastMessage
            return info
        }
    }

    func createChat(with peer: PublicKey, relayHints: [URL]) async throws -> ChatInfo {
        createChatEntered = true
        lastRelayHints = relayHints
        if let gate = createChatGate { await gate.wait() }
        if let reason = createChatFailure { throw TestServiceError(description: reason) }
        let info = ChatInfo(
            chatID: ChatID("chat-\(peer.hex.prefix(16))"), peer: peer, createdAt: context.clock.unixSeconds())
        chats[info.chatID] = info
        return info
    }

    private(set) var groupChanges: [(ChatID, GroupChange)] = []
    var groupFailure: String?

    func createGroup(name: String, members: [PublicKey]) async throws -> ChatInfo {
        if let reason = groupFailure { throw TestServiceError(description: reason) }
        let info = ChatInfo(
            chatID: ChatID("group-\(chats.count)"), peer: members[0], createdAt: context.clock.unixSeconds(),
            members: members, isDirect: false, groupName: name, admins: [context.keys.publicKey])
        chats[info.chatID] = info
        return info
    }

    /// Records the change; the fake does not model the group, so it describes no chat after it.
    func changeGroup(_ chatID: ChatID, _ change: GroupChange) async throws -> ChatInfo? {
        if let reason = groupFailure { throw TestServiceError(description: reason) }
        groupChanges.append((chatID, change))
        return nil
    }

    func failGroups(_ reason: String?) { groupFailure = reason }

    private(set) var relaySets: [[URL]] = []

    func setRelays(_ urls: [URL]) async throws {
        if let reason = groupFailure { throw TestServiceError(description: reason) }
        relaySets.append(urls)
    }

    func setProfileName(_ name: String) async throws -> String {
        if let reason = groupFailure { throw TestServiceError(description: reason) }
        return name
    }

    func listInvites() async throws -> [InviteInfo] { pendingInvites.map(\.invite) }

    /// Files "on their server", by message id: what `attachmentData` returns; absent ones fail.
    var attachmentBytes: [MessageID: Data] = [:]
    private(set) var blossom: [URL] = []

    func attachmentData(chatID: ChatID, messageID: MessageID, index: Int) async throws -> Data {
        if let attachmentFailure { throw TestServiceError(description: attachmentFailure) }
        guard let data = attachmentBytes[messageID] else { throw TestServiceError(description: "blob not found (404)") }
        return data
    }

    func setAttachmentBytes(_ data: Data?, for messageID: MessageID) { attachmentBytes[messageID] = data }
    /// Downloads fail with `reason` (text as a hostile server would word it).
    func failAttachments(_ reason: String?) { attachmentFailure = reason }

    /// Group pictures "on their server", by chat: what `chatImageData` returns; absent ones fail.
    var chatImages: [ChatID: Data] = [:]
    func setChatImage(_ data: Data?, for chatID: ChatID) { chatImages[chatID] = data }

    func chatImageData(chatID: ChatID) async throws -> Data {
        guard let data = chatImages[chatID] else { throw TestServiceError(description: "group picture not found (404)") }
        return data
    }

    func blossomServers() async -> (servers: [URL], named: Bool) { (blossom, !blossom.isEmpty) }

    func setBlossomServers(_ urls: [URL]) async throws {
        if let reason = groupFailure { throw TestServiceError(description: reason) }
        blossom = urls
    }

    func acceptInvite(_ id: InviteID) async throws -> ChatInfo {
        guard let index = pendingInvites.firstIndex(where: { $0.invite.inviteID == id }) else {
            throw TestServiceError(description: "That invitation is no longer pending")
        }
        let chat = pendingInvites.remove(at: index).chat
        chats[chat.chatID] = chat
        continuation?.yield(.invitesChanged(pendingInvites.map(\.invite)))
        return chat
    }

    func declineInvite(_ id: InviteID) async throws {
        guard let index = pendingInvites.firstIndex(where: { $0.invite.inviteID == id }) else {
            throw TestServiceError(description: "That invitation is no longer pending")
        }
        pendingInvites.remove(at: index)
        declined.append(id)
        continuation?.yield(.invitesChanged(pendingInvites.map(\.invite)))
    }

    private(set) var queued: [OutgoingMessage] = []
    var queueFailure: String?

    func queue(_ message: OutgoingMessage) async throws {
        if let reason = queueFailure { throw TestServiceError(description: reason) }
        queued.append(message)
    }

    func send(_ message: OutgoingMessage) async throws -> DeliveryOutcome {
        sent.append(message)
        if let sendGate { await sendGate.wait() }
        return store(message)
    }

    func retry(_ message: OutgoingMessage) async throws -> DeliveryOutcome {
        retried.append(message)
        return store(message)
    }

    private func store(_ message: OutgoingMessage) -> DeliveryOutcome {
        let outcome = scriptedOutcomes.isEmpty ? .sent : scriptedOutcomes.removeFirst()
        let delivery: MessageDeliveryState =
            switch outcome {
            case .sent: .sent
            case .failed(let reason): .failed(reason: reason)
            }
        var record = MessageRecord(
            id: message.id, chatID: message.chatID, sender: context.keys.publicKey, content: message.content,
            createdAt: message.createdAt, delivery: delivery, role: message.role, replyTo: message.replyTo)
        let sentFile = message.attachment ?? history[message.chatID]?.first { $0.id == message.id }?.attachments.first.map {
            OutgoingAttachment(data: Data(), filename: $0.filename, mimeType: $0.mimeType)
        }
        if let file = sentFile {
            record.attachments = [
                AttachmentInfo(filename: file.filename, mimeType: file.mimeType, size: file.data.count, isHere: true)
            ]
        }
        var messages = history[message.chatID, default: []]
        if let index = messages.firstIndex(where: { $0.id == message.id }) {
            messages[index] = record
        } else {
            messages.append(record)
        }
        history[message.chatID] = messages
        return outcome
    }

    func loadMessages(chatID: ChatID, before: MessageID?, limit: Int) async throws -> MessagePage {
        pageRequests.append((before, limit))
        let all = history[chatID] ?? []
        let end = before.flatMap { id in all.firstIndex { $0.id == id } } ?? all.count
        let start = max(0, end - limit)
        return MessagePage(messages: Array(all[start..<end]), hasOlder: start > 0)
    }

    func markRead(chatID: ChatID) async throws {
        markedRead.append(chatID)
        chats[chatID]?.unreadCount = 0
    }

    /// The newest `unreadCount` texts, oldest first, whoever wrote them: the core applies its own rule.
    func unreadMessages(chatID: ChatID) async throws -> [MessageRecord] {
        unreadRequests.append(chatID)
        let count = Int(chats[chatID]?.unreadCount ?? 0)
        return Array((history[chatID] ?? []).filter { $0.role == .text }.suffix(count))
    }

    private(set) var unreadRequests: [ChatID] = []

    func reconnect() async {
        reconnects += 1
    }

    func stop() async {
        stopped = true
        continuation?.finish()
        continuation = nil
    }
}
