import Foundation
import MLS
import Nostr
import NostrClient

/// MIP-03: sending application messages.
extension MarmotClient {
    /// Sends a kind-9 chat message.
    public func send(text: String, to chat: GroupID) async throws -> SentMessage {
        try await send(kind: .chatMessage, content: text, tags: [], to: chat)
    }

    /// Sends any rumor kind (reactions, …): `queue` then `deliverQueued`. The message is durable
    /// (`.pending`) before anything else happens, so a crash at any later point cannot lose it.
    public func send(kind: Kind, content: String, tags: [Tag], to chat: GroupID) async throws -> SentMessage {
        let queued = try await queue(kind: kind, content: content, tags: tags, to: chat)
        return try await deliverQueued(queued.rumorID, in: chat)
    }

    /// Stores a message of ours as `.pending` (the outbox) without encrypting or publishing it. Once
    /// this returns, the message survives a crash: the next `resumeOutbox` sends it.
    public func queue(kind: Kind = .chatMessage, content: String, tags: [Tag] = [], to chat: GroupID) async throws -> StoredMessage {
        try requireStarted()
        await acquire()
        defer { release() }
        let session = try session(chat)
        guard session.mls.isActive, session.stored.status == .active else { throw MarmotClientError.chatInactive(chat) }
        let rumor: ChatRumor
        do {
            rumor = try ChatRumor(author: publicKey, content: content, kind: kind, tags: tags, createdAt: now())
        } catch {
            throw MarmotClientError.encoding("\(error)")
        }
        var message = StoredMessage(rumor: rumor, mlsGroupID: chat, isMine: true, deliveryState: .pending, outerEventID: nil)
        message.expiresAt = expiry(createdAt: rumor.createdAt, in: session)
        try storage { try store.saveMessage(message) }
        noteExpiry(message.expiresAt)
        noteModeration(&message, in: session)
        // The save changed the row only in its newest-message time (ours are never unread): set it
        // here rather than reading and opening the whole row, sealed state included, again (issue 27).
        sessions[chat]?.stored.lastMessageAt = max(session.stored.lastMessageAt ?? rumor.createdAt, rumor.createdAt)
        crashIfRequested(.afterQueue)
        return message
    }

    /// Encrypts (once) and publishes a queued message of ours. A message already encrypted keeps its
    /// kind-445 event, so a relay that stored it before a crash sees the same event again and the
    /// peers (who record event ids) never get a second copy. While the group is syncing or resolving
    /// the message stays queued (`.pending`, durable) and is encrypted once it settled, on the state
    /// it settled on (`awaitOutboundTurn`; issue 24).
    public func deliverQueued(_ rumorID: EventID, in chat: GroupID) async throws -> SentMessage {
        try requireStarted()
        // A media message's blob is on its server before the message that names it goes out.
        try await uploadPendingMedia(rumorID, in: chat)
        await awaitOutboundTurn(chat)
        await acquire()
        let prepared: (message: StoredMessage, event: Event)
        do {
            prepared = try outboxEvent(rumorID, in: chat)
        } catch {
            release()
            throw error
        }
        release()
        return await deliver(prepared.message, event: prepared.event)
    }

    /// Publishes the stored kind-445 event of one of our messages again (same event id), after a
    /// failed or interrupted delivery; encrypts it first if it never was.
    public func retry(_ messageID: EventID, in chat: GroupID) async throws -> SentMessage {
        guard let message = try storage({ try store.message(mlsGroupID: chat, rumorID: messageID) }) else {
            throw MarmotClientError.unknownMessage(messageID)
        }
        guard message.isMine, message.deliveryState == .pending || message.deliveryState == .failed else {
            throw MarmotClientError.nothingToRetry(messageID)
        }
        return try await deliverQueued(messageID, in: chat)
    }

    /// Sends every message a previous run left unsent (queued, encrypted but not published, or
    /// published without a relay's OK), oldest first per chat; called once after start-up.
    public func resumeOutbox() async -> [SentMessage] {
        var sent: [SentMessage] = []
        let groups = sessions.values.filter { $0.stored.status == .active && $0.mls.isActive }.map(\.id)
        for group in groups {
            guard let unsent = try? store.unsentMessages(mlsGroupID: group), !unsent.isEmpty else { continue }
            logger.info("resending \(unsent.count) unsent messages of \(group)")
            for message in unsent {
                do {
                    sent.append(try await deliverQueued(message.rumorID, in: group))
                } catch {
                    logger.warning("cannot resend \(message.rumorID.hex) in \(group): \(error)")
                }
            }
        }
        return sent
    }

    /// The kind-445 event of a queued message: the stored one, else the message encrypted now.
    private func outboxEvent(_ rumorID: EventID, in id: GroupID) throws -> (StoredMessage, Event) {
        guard let stored = try storage({ try store.message(mlsGroupID: id, rumorID: rumorID) }), stored.isMine else {
            throw MarmotClientError.unknownMessage(rumorID)
        }
        if let event = try storage({ try store.outboxEvent(mlsGroupID: id, rumorID: rumorID) }) { return (stored, event) }
        let rumor: ChatRumor
        do {
            rumor = try ChatRumor(
                author: publicKey, content: stored.content, kind: stored.kind, tags: stored.tags, createdAt: stored.createdAt)
        } catch {
            throw MarmotClientError.encoding("\(error)")
        }
        guard rumor.id == rumorID else { throw MarmotClientError.encoding("stored message does not rebuild its rumor") }
        let prepared = try prepare(rumor, in: id)
        noteOwnSend(rumor.id, in: id)
        crashIfRequested(.afterEncrypt)
        return prepared
    }

    /// Notes a message of ours just encrypted in group `id`'s current epoch on its branch: sent
    /// there (a switch or rollback sends it again) and our witness there, as every member that
    /// reads it counts it (MDK 0.9.14 witnesses).
    func noteOwnSend(_ rumorID: EventID, in id: GroupID) {
        if branchBooks[id, default: BranchBook()].noteSentOnForks(rumorID) { saveBranches(id) }
        if let epoch = sessions[id]?.mls.epoch {
            branchBooks[id, default: BranchBook()].noteSent(rumorID, epoch: epoch)
            noteWitness(publicKey, epoch: epoch, in: id)
        }
    }

    /// Encrypts the rumor in the group's current epoch and stores state, message (`.pending`) and
    /// the signed event (kept for `retry` until a relay accepts it).
    func prepare(_ rumor: ChatRumor, in id: GroupID) throws -> (StoredMessage, Event) {
        let session = try session(id)
        guard session.mls.isActive, session.stored.status != .inactive else { throw MarmotClientError.chatInactive(id) }
        let (sealed, key, keepState) = try sealOwn(rumor, in: session)
        // The retention of the state it is encrypted in decides when it expires, for everyone.
        let expiresAt = expiry(createdAt: rumor.createdAt, in: session)
        let event: Event
        do {
            event = try session.rules.groupEvent(
                sealed, nostrGroupID: session.stored.nostrGroupID, key: key,
                createdAt: session.rules.outerCreatedAt(inner: rumor.createdAt, now: now()), expiration: expiresAt)
        } catch {
            throw MarmotClientError.encoding("group event: \(error)")
        }
        var message = StoredMessage(rumor: rumor, mlsGroupID: id, isMine: true, deliveryState: .pending, outerEventID: event.id)
        message.expiresAt = expiresAt
        message.epoch = session.mls.epoch
        // One unit: the state (engine rows or ratchets) never moves without the envelope and the
        // outbox row that send it (review §3.3-e).
        try storage {
            try store.unitOfWork {
                try keepState()
                try store.recordProcessedEvent(ProcessedEvent(eventID: event.id, outcome: .own, processedAt: now(), mlsGroupID: id))
                try store.saveMessage(message)
                try store.saveOutboxEvent(event, mlsGroupID: id, rumorID: rumor.id)
            }
        }
        noteExpiry(message.expiresAt)
        refreshRow(id)
        return (message, event)
    }

    func deliver(_ message: StoredMessage, event: Event) async -> SentMessage {
        let result = await pool.publish(event, to: route(message.mlsGroupID))
        crashIfRequested(.afterPublish)
        var delivered = message
        delivered.deliveryState = result.isSent ? .sent : .failed
        delivered.outerEventID = event.id
        do {
            try store.updateDeliveryState(
                mlsGroupID: message.mlsGroupID, rumorID: message.rumorID, state: delivered.deliveryState, outerEventID: event.id)
            if result.isSent { try store.deleteOutboxEvent(mlsGroupID: message.mlsGroupID, rumorID: message.rumorID) }
        } catch {
            logger.error("cannot record delivery of \(message.rumorID.hex): \(error)")
        }
        if let chat = sessions[message.mlsGroupID]?.chat { emit(.deliveryChanged(chat, delivered)) }
        return SentMessage(message: delivered, publish: result)
    }
}
