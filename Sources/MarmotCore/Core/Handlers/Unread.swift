import Nostr

/// The unread backlog (issue 51): the messages stored unread before the session began become
/// arrivals (`ChatSummary.recentArrivals`), oldest first and before anything that arrives live, so
/// `marmot listen` prints them exactly like live ones; and marking a chat read without opening it.
extension AppCore {
    /// Reads the unread messages of every chat whose stored count is above zero, merged oldest first
    /// across chats (a chat's own in store order); run by the session's event pump before it forwards
    /// any event, so the backlog is numbered before live arrivals.
    static func unreadBacklog(_ chats: [ChatInfo], service: any MessagingService, session id: UInt64) async -> InternalEvent? {
        var found: [(order: Int, message: MessageRecord)] = []
        var failed: [ChatID: ServiceError] = [:]
        for chat in chats where chat.unreadCount > 0 {
            do {
                for message in try await service.unreadMessages(chatID: chat.chatID) { found.append((found.count, message)) }
            } catch {
                failed[chat.chatID] = ServiceError(error)
            }
        }
        guard !found.isEmpty || !failed.isEmpty else { return nil }
        let merged = found.sorted { ($0.message.createdAt, $0.order) < ($1.message.createdAt, $1.order) }.map(\.message)
        return .unreadLoaded(session: id, merged, failed: failed)
    }

    /// Queues the backlog by the core's unread rule (texts and system lines others wrote; in the
    /// Notes chat ours too), skipping any already numbered, and releases its first step.
    func unreadLoaded(_ messages: [MessageRecord], failed: [ChatID: ServiceError]) {
        guard let session else { return }
        for (chatID, error) in failed {
            logger.warning("unread messages not read", metadata: ["chat": "\(chatID)", "code": "\(error.code)"])
        }
        let unread = messages.filter { message in
            guard let entry = session.chats[message.chatID], countsAsUnread(message, in: session) else { return false }
            return !entry.thread.contains(message.id) && !entry.arrivals.contains { $0.messageID == message.id }
        }
        // One written after its chat was archived brings the chat back (issue 48).
        for message in unread { unarchiveOnArrival(message.chatID, from: message.sender, writtenAt: message.createdAt, in: session) }
        session.backlogIDs.formUnion(unread.map(\.id))
        session.backlog.insert(contentsOf: unread, at: 0)
        releaseBacklog()
    }

    /// Numbers the next queued messages, at most `ChatSummary.arrivalsKept` per chat (what a chat row
    /// keeps), and asks for another step while some wait: each step is its own commit, so a renderer
    /// reading every update sees every message however long the backlog (memory stays bounded).
    func releaseBacklog() {
        guard let session else { return }
        var perChat: [ChatID: Int] = [:]
        var taken = 0
        for message in session.backlog {
            if perChat[message.chatID, default: 0] == ChatSummary.arrivalsKept { break }
            perChat[message.chatID, default: 0] += 1
            taken += 1
        }
        let step = session.backlog.prefix(taken)
        session.backlog.removeFirst(taken)
        for message in step { numberArrival(message, in: session) }
        if !session.backlog.isEmpty { inbox.yield(.event(.backlogStep(session: session.id))) }
    }

    /// A message that just arrived: numbered now, or queued behind the backlog still being released
    /// (so it keeps its place after older ones); one of the backlog that also arrives live is skipped.
    func noteArrival(_ message: MessageRecord, in session: Session) {
        guard !session.backlogIDs.contains(message.id) else { return }
        if session.backlog.isEmpty {
            numberArrival(message, in: session)
        } else {
            session.backlog.append(message)
        }
    }

    /// Clears a chat's unread count, here and in storage; the outcome (`markChatRead`) comes once
    /// storage has it, so a caller about to exit knows the next session starts with it read.
    func markChatRead(_ chatID: ChatID) {
        guard let session, session.chats[chatID] != nil else {
            finish(.markChatRead, .unknownChat, "Chat not found")
            return
        }
        guard let service = session.service else {
            finish(.markChatRead, .messagingUnavailable, Self.messagingUnavailable)
            return
        }
        session.chats[chatID]?.info.unreadCount = 0
        let id = session.id
        spawn {
            do {
                try await service.markRead(chatID: chatID)
                return .chatMarkedRead(session: id, chatID, .success(()))
            } catch {
                return .chatMarkedRead(session: id, chatID, .failure(ServiceError(error)))
            }
        }
    }

    func chatMarkedRead(_ chatID: ChatID, result: Result<Void, ServiceError>) {
        switch result {
        case .success: finish(.markChatRead, .ok)
        case .failure(let error): fail(.markChatRead, error, prefix: "Could not mark the chat read")
        }
    }
}
