import Nostr

/// Sending (optimistic, with a stable id), retrying, receiving and paging messages.
extension AppCore {
    /// Messages per page (the core's choice; `loadOlder` carries no size), and the most the older
    /// `loadOlderMessages` action may ask for.
    static let pageSize = 50
    static let maxPageSize = 200

    func sendMessage(chatID: ChatID, content: String) {
        guard let session else { return }
        let text = content.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return }
        guard let entry = session.chats[chatID] else {
            finish(.sendMessage, .unknownChat, "Chat not found")
            return
        }
        guard entry.info.isMember else {
            finish(.sendMessage, .notMember, Self.notMember)
            return
        }
        if let refusal = blockedRefusal(entry, in: session) {
            finish(.sendMessage, .blocked, refusal)
            return
        }
        guard let service = session.service else {
            finish(.sendMessage, .messagingUnavailable, Self.messagingUnavailable)
            return
        }
        let outgoing = OutgoingMessage(
            id: .generate(), chatID: chatID, content: text, createdAt: configuration.clock.unixSeconds())
        // Pending is shown once the message is durable (the outbox), never before; messages go
        // through one pipeline per session, so they are stored and sent in the order they were written.
        outbox(for: session, service: service).yield(outgoing)
    }

    /// Puts a reaction, reply, edit or deletion into the same crash-proof outbox as a text; its
    /// outcome is recorded under `operation`.
    func enqueue(_ outgoing: OutgoingMessage, operation: UserOperation, session: Session, service: any MessagingService) {
        if operation != .sendMessage { session.pendingOperations[outgoing.id] = operation }
        outbox(for: session, service: service).yield(outgoing)
    }

    /// The session's send pipeline: queue (durable) → `messageQueued`, then send → `deliveryFinished`,
    /// each stage one message at a time and in the order written.
    ///
    /// The stages run side by side: a message waiting for a slow relay or for its group to settle
    /// (the client holds outbound work while a group is syncing or resolving, issue 24) does not keep
    /// the next one from being stored and shown as pending.
    private func outbox(for session: Session, service: any MessagingService) -> AsyncStream<OutgoingMessage>.Continuation {
        if let existing = session.outbox { return existing }
        let (stream, continuation) = AsyncStream.makeStream(of: OutgoingMessage.self)
        let inbox = self.inbox
        let id = session.id
        session.outboxPump = Task.detached {
            let (queued, deliver) = AsyncStream.makeStream(of: OutgoingMessage.self)
            await withTaskGroup(of: Void.self) { stages in
                stages.addTask {
                    for await message in queued {
                        inbox.yield(.event(await Self.delivery(of: message, retry: false, service: service, session: id)))
                    }
                }
                for await message in stream {
                    do {
                        try await service.queue(message)
                    } catch {
                        inbox.yield(.event(.messageQueued(session: id, message, .failure(ServiceError(error)))))
                        continue
                    }
                    inbox.yield(.event(.messageQueued(session: id, message, .success(()))))
                    deliver.yield(message)
                }
                deliver.finish()
            }
        }
        session.outbox = continuation
        return continuation
    }

    /// Sends (or, for `retry`, sends again) one stored message and reports the outcome: the
    /// pipeline's second stage and the retry action share it.
    private static func delivery(
        of message: OutgoingMessage, retry: Bool, service: any MessagingService, session id: UInt64
    ) async -> InternalEvent {
        let outcome: DeliveryOutcome
        var code = OutcomeCode.notSent
        do {
            outcome = retry ? try await service.retry(message) : try await service.send(message)
        } catch {
            let failure = ServiceError(error)
            if failure.code != .failed { code = failure.code }
            outcome = .failed(reason: failure.reason)
        }
        return .deliveryFinished(session: id, chatID: message.chatID, messageID: message.id, retry: retry, code: code, outcome)
    }

    /// The message is in the outbox: shown as pending (the pipeline sends it next); or it could not
    /// be stored.
    func messageQueued(_ outgoing: OutgoingMessage, result: Result<Void, ServiceError>) {
        guard let session else { return }
        switch result {
        case .success:
            var queued = MessageRecord(
                id: outgoing.id, chatID: outgoing.chatID, sender: session.myPublicKey, content: outgoing.content,
                createdAt: outgoing.createdAt, delivery: .pending, role: outgoing.role, replyTo: outgoing.replyTo)
            if let file = outgoing.attachment {
                queued.attachments = [
                    AttachmentInfo(filename: file.filename, mimeType: file.mimeType, size: file.data.count, isHere: true)
                ]
            }
            record(queued, in: session)
        case .failure(let error):
            let operation = session.pendingOperations.removeValue(forKey: outgoing.id) ?? .sendMessage
            finish(operation, error.code == .failed ? .notSent : error.code, "Could not send: \(error.reason)")
        }
    }

    func retryMessage(chatID: ChatID, messageID: MessageID) {
        guard let session, var entry = session.chats[chatID] else { return }
        guard let message = entry.thread.message(messageID), message.sender == session.myPublicKey,
            case .failed = message.delivery
        else {
            logger.debug("retry ignored: not a failed message of this account", metadata: ["message": "\(messageID)"])
            return
        }
        guard let service = session.service else {
            finish(.retryMessage, .messagingUnavailable, Self.messagingUnavailable)
            return
        }
        _ = entry.thread.setDelivery(messageID, .pending)
        if entry.info.lastMessage?.id == messageID { entry.info.lastMessage?.delivery = .pending }
        session.chats[chatID] = entry
        let outgoing = OutgoingMessage(
            id: messageID, chatID: chatID, content: message.content, createdAt: message.createdAt)
        spawnDelivery(outgoing, retry: true, service: service, session: session.id)
    }

    private func spawnDelivery(_ message: OutgoingMessage, retry: Bool, service: any MessagingService, session id: UInt64) {
        spawn { await Self.delivery(of: message, retry: retry, service: service, session: id) }
    }

    /// Sets a message's delivery state; `operation` (send or retry) also records the outcome of the
    /// user's operation, with `code` for a failure.
    func applyDelivery(
        chatID: ChatID, messageID: MessageID, outcome: DeliveryOutcome, operation: UserOperation? = nil,
        code: OutcomeCode = .notSent
    ) {
        guard let session, var entry = session.chats.removeValue(forKey: chatID) else { return }
        if let operation {
            switch outcome {
            case .sent: finish(operation, .ok, messageID: messageID)
            case .failed(let reason): finish(operation, code, "Message not sent: \(reason)", messageID: messageID)
            }
        }
        let delivery: MessageDeliveryState =
            switch outcome {
            case .sent: .sent
            case .failed(let reason): .failed(reason: reason)
            }
        _ = entry.thread.setDelivery(messageID, delivery)
        session.uploadProgress[messageID] = nil
        if entry.info.lastMessage?.id == messageID { entry.info.lastMessage?.delivery = delivery }
        session.chats[chatID] = entry
    }

    /// Pages back from the oldest loaded message. A request naming another message comes from a
    /// view that has not caught up with an earlier page yet, and is dropped like a duplicate.
    func loadOlderMessages(chatID: ChatID, before: MessageID, limit: UInt32) {
        guard let session, var entry = session.chats[chatID], let service = session.service else { return }
        guard entry.thread.loaded, entry.thread.hasOlder, !entry.thread.loading,
            entry.thread.messages.first?.id == before
        else {
            logger.debug("older page not requested", metadata: ["chat": "\(chatID)"])
            return
        }
        let count = limit == 0 ? Self.pageSize : min(Int(limit), Self.maxPageSize)
        requestOlder(chatID: chatID, entry: &entry, before: before, count: count, service: service, session: session)
    }

    /// The next older page of `chatID`, of the core's page size: the rule for "load older" lives here,
    /// not in the renderers (issue 16). Ignored while a page is in flight or when no more exist.
    func loadOlder(chatID: ChatID) {
        guard let session, var entry = session.chats[chatID], let service = session.service else { return }
        guard entry.thread.loaded, entry.thread.hasOlder, !entry.thread.loading, let oldest = entry.thread.messages.first
        else {
            logger.debug("older page not requested", metadata: ["chat": "\(chatID)"])
            return
        }
        requestOlder(chatID: chatID, entry: &entry, before: oldest.id, count: Self.pageSize, service: service, session: session)
    }

    private func requestOlder(
        chatID: ChatID, entry: inout ChatEntry, before: MessageID, count: Int, service: any MessagingService,
        session: Session
    ) {
        entry.thread.loading = true
        session.chats[chatID] = entry
        spawnPageLoad(chatID, kind: .older, before: before, limit: count, service: service, session: session.id)
    }

    func spawnPageLoad(
        _ chatID: ChatID, kind: PageKind, before: MessageID?, limit: Int, service: any MessagingService,
        session id: UInt64
    ) {
        spawn {
            do {
                let page = try await service.loadMessages(chatID: chatID, before: before, limit: limit)
                return .pageLoaded(session: id, chatID: chatID, kind: kind, .success(page))
            } catch {
                return .pageLoaded(session: id, chatID: chatID, kind: kind, .failure(ServiceError(error)))
            }
        }
    }

    func pageLoaded(chatID: ChatID, kind: PageKind, result: Result<MessagePage, ServiceError>) {
        guard let session, var entry = session.chats[chatID] else { return }
        if kind != .refresh { entry.thread.loading = false }
        switch result {
        case .success(let page):
            entry.thread.merge(page.messages)
            if let newest = entry.thread.messages.last { entry.noteMessage(newest) }
            switch kind {
            case .newest, .older:
                entry.thread.loaded = true
                entry.thread.hasOlder = page.hasOlder
            case .refresh:
                break
            }
        case .failure(let error):
            if kind != .refresh { fail(.loadMessages, error, prefix: "Could not load messages") }
            logger.warning("page load failed", metadata: ["chat": "\(chatID)", "code": "\(error.code)"])
        }
        session.chats[chatID] = entry
    }

    /// A message from the messaging layer: the peer's, or this account's from another device or as
    /// an echo of one sent here (which confirms it).
    func messageReceived(_ message: MessageRecord) {
        guard let session, session.chats[message.chatID] != nil else {
            logger.notice("message for an unknown chat dropped", metadata: ["chat": "\(message.chatID)"])
            return
        }
        let isNew = !(session.chats[message.chatID]?.thread.contains(message.id) ?? false)
            && session.chats[message.chatID]?.info.lastMessage?.id != message.id
        record(message, in: session)
        indexForSearch(message, in: session)
        if isNew { noteArrival(message, in: session) }
        guard isNew, countsAsUnread(message, in: session) else { return }
        unarchiveOnArrival(message.chatID, from: message.sender, in: session)
        if session.visibleChatID == message.chatID {
            if let service = session.service { spawnMarkRead(message.chatID, service: service) }
        } else {
            session.chats[message.chatID]?.info.unreadCount += 1
        }
    }

    /// Whether `message` is an unread one by the core's rule: a text or system line someone else
    /// wrote, or in the Notes chat one of ours (written on another device, issue 29). Reactions,
    /// edits and deletions change other messages; they are no unread messages. The store's counter
    /// follows the same rule (`StoredMessage.countsAsUnread`).
    func countsAsUnread(_ message: MessageRecord, in session: Session) -> Bool {
        message.role == .text && (message.sender != session.myPublicKey || session.chats[message.chatID]?.info.isNotes == true)
    }

    /// Numbers an arrived message for scripts (`ChatSummary.recentArrivals`); see `noteArrival`.
    func numberArrival(_ message: MessageRecord, in session: Session) {
        guard var entry = session.chats[message.chatID] else { return }
        session.arrivalSequence += 1
        let me = session.myPublicKey
        var arrival = ArrivedMessage(
            sequence: session.arrivalSequence, messageID: message.id, senderPubkey: message.sender.hex,
            senderNpub: message.sender.npub, kind: message.notice == nil ? message.role.name : "system",
            nostrKind: message.notice == nil ? message.role.nostrKind : nil, timestamp: message.createdAt,
            target: message.replyTo ?? message.role.targets.first,
            text: message.notice.map { formatter.notice($0, me: me) }
                ?? (message.sender != me && session.blocked[message.sender] != nil ? DisplayFormatter.blockedMessageText : message.content),
            isMine: message.sender == me)
        arrival.displayTimestamp = formatter.messageTime(message.createdAt)
        entry.arrivals.append(arrival)
        if entry.arrivals.count > ChatSummary.arrivalsKept { entry.arrivals.removeFirst(entry.arrivals.count - ChatSummary.arrivalsKept) }
        session.chats[message.chatID] = entry
    }

    /// Puts a message into its chat's thread and, if newest, into the chat list; a deletion that
    /// removed the chat list's newest message puts the newest one left there instead.
    func record(_ message: MessageRecord, in session: Session) {
        // Taken out while changed, so the thread's arrays are not copied (copy-on-write) on every
        // message (issue 27: a copy of the open chat's whole window per send).
        guard var entry = session.chats.removeValue(forKey: message.chatID) else { return }
        entry.thread.upsert(message)
        if message.role == .text {
            entry.noteMessage(message)
        } else if let last = entry.info.lastMessage, entry.thread.deleted.contains(last.id) {
            entry.info.lastMessage = entry.thread.messages.last
        }
        session.chats[message.chatID] = entry
    }

    func messagingEvent(_ event: MessagingEvent) {
        switch event {
        case .chatUpdated(let info): upsertChat(info)
        case .joinSettled(let chatID): joinSettled(chatID)
        case .messagesExpired(let chatID, let ids): messagesExpired(chatID, ids)
        case .messagesInvalidated(let chatID, let ids): messagesInvalidated(chatID, ids)
        case .messageReceived(let message): messageReceived(message)
        case .deliveryChanged(let chatID, let messageID, let outcome):
            applyDelivery(chatID: chatID, messageID: messageID, outcome: outcome)
        case .uploadProgress(_, let messageID, let percent): session?.uploadProgress[messageID] = percent
        case .relayStatus(let status): relayStatusChanged(status)
        case .keyPackagePublished(let published): state.network.keyPackagePublished = published
        case .ownProfileName(let name): state.profile.name = name
        case .ownProfileLookedUp(let name):
            state.profile.name = name
            state.profile.lookedUp = true
        case .invitesChanged(let invites):
            session?.invites = invites
            state.network.invitesLoaded = true
        case .syncStatus(let status): serviceSyncChanged(status)
        }
    }
}
