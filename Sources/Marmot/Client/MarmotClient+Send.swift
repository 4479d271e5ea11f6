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

    /// Sends any rumor kind (reactions, …): the unsigned rumor (pubkey = us, id set) is encrypted as
    /// an MLS PrivateMessage and wrapped in a kind-445 event under a throwaway key. The MLS state and
    /// the message (delivery `.pending`, id = rumor id) are stored before publishing; afterwards the
    /// delivery is `.sent` when at least one relay accepted the event, else `.failed` (see `retry`).
    public func send(kind: Kind, content: String, tags: [Tag], to chat: GroupID) async throws -> SentMessage {
        try requireStarted()
        await acquire()
        let prepared: (message: StoredMessage, event: Event)
        do {
            prepared = try prepareMessage(kind: kind, content: content, tags: tags, in: chat)
        } catch {
            release()
            throw error
        }
        release()
        return await deliver(prepared.message, event: prepared.event)
    }

    /// Publishes the stored kind-445 event of one of our messages again (same event id), after a
    /// failed or interrupted delivery.
    public func retry(_ messageID: EventID, in chat: GroupID) async throws -> SentMessage {
        guard let message = try storage({ try store.message(mlsGroupID: chat, rumorID: messageID) }) else {
            throw MarmotClientError.unknownMessage(messageID)
        }
        guard message.isMine, message.deliveryState != .sent,
              let data = try storage({ try store.setting(ClientSettings.outbox(chat, messageID)) }),
              let event = try? Event(jsonData: data)
        else { throw MarmotClientError.nothingToRetry(messageID) }
        return await deliver(message, event: event)
    }

    private func prepareMessage(kind: Kind, content: String, tags: [Tag], in id: GroupID) throws -> (StoredMessage, Event) {
        let rumor: ChatRumor
        do {
            rumor = try ChatRumor(author: publicKey, content: content, kind: kind, tags: tags, createdAt: now())
        } catch {
            throw MarmotClientError.encoding("\(error)")
        }
        let prepared = try prepare(rumor, in: id)
        alternates[id]?.sentSinceFork.append(rumor.id)
        return prepared
    }

    /// Encrypts the rumor in the group's current epoch and stores state, message (`.pending`) and
    /// the signed event (kept for `retry` until a relay accepts it).
    func prepare(_ rumor: ChatRumor, in id: GroupID) throws -> (StoredMessage, Event) {
        let session = try session(id)
        guard session.mls.isActive, session.stored.status != .inactive else { throw MarmotClientError.chatInactive(id) }
        var mls = session.mls
        let sealed: MLSMessage
        do {
            sealed = try mls.encrypt(rumor.plaintext)
        } catch {
            throw MarmotClientError.mls(error)
        }
        let event: Event
        do {
            event = try GroupEvent.build(
                mlsMessage: sealed.tlsSerialized, nostrGroupID: session.stored.nostrGroupID,
                key: try session.currentEventKey(), createdAt: now())
        } catch {
            throw MarmotClientError.encoding("group event: \(error)")
        }
        let message = StoredMessage(rumor: rumor, mlsGroupID: id, isMine: true, deliveryState: .pending, outerEventID: event.id)
        try storage {
            try persist(mls, for: id)
            try store.recordProcessedEvent(ProcessedEvent(eventID: event.id, outcome: .own, processedAt: now(), mlsGroupID: id))
            try store.setSetting(ClientSettings.outbox(id, rumor.id), Data(event.jsonBytes))
            try store.saveMessage(message)
        }
        refreshRow(id)
        return (message, event)
    }

    func deliver(_ message: StoredMessage, event: Event) async -> SentMessage {
        let result = await pool.publish(event)
        var delivered = message
        delivered.deliveryState = result.isSent ? .sent : .failed
        delivered.outerEventID = event.id
        do {
            try store.updateDeliveryState(
                mlsGroupID: message.mlsGroupID, rumorID: message.rumorID, state: delivered.deliveryState, outerEventID: event.id)
            if result.isSent { try store.setSetting(ClientSettings.outbox(message.mlsGroupID, message.rumorID), nil) }
        } catch {
            logger.error("cannot record delivery of \(message.rumorID.hex): \(error)")
        }
        if let chat = sessions[message.mlsGroupID]?.chat { emit(.deliveryChanged(chat, delivered)) }
        return SentMessage(message: delivered, publish: result)
    }
}
