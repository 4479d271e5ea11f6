import Foundation
import Nostr

/// The chat list: loading, creating and opening chats, and chats announced by the messaging layer.
extension AppCore {
    func openChat(_ chatID: ChatID) {
        pushScreen(.chat(chatID: chatID))
    }

    func createChat(peerNpub: String) {
        guard let session else { return }
        guard !state.busy.creatingChat else {
            logger.debug("chat creation already in progress; action ignored")
            return
        }
        let text = peerNpub.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let pointer = Self.profilePointer(text) else {
            finish(.createChat, .invalidNpub, "Invalid npub: enter a key that starts with npub1 (or an nprofile1)")
            return
        }
        let peer = pointer.publicKey
        let hints = pointer.relays.compactMap { URL(string: $0) }
        guard peer != session.myPublicKey else {
            finish(.createChat, .ownNpub, "That is your own npub: enter the other person's")
            return
        }
        guard session.blocked[peer] == nil else {
            finish(.createChat, .blocked, "You blocked this person: unblock them to chat")
            return
        }
        if let existing = session.chat(with: peer) {
            showChat(existing.id)
            finish(.createChat, .ok)
            return
        }
        guard let service = session.service else {
            finish(.createChat, .messagingUnavailable, Self.messagingUnavailable)
            return
        }
        state.busy.creatingChat = true
        let id = session.id
        spawn {
            do {
                return .chatCreated(session: id, .success(try await service.createChat(with: peer, relayHints: hints)))
            } catch {
                return .chatCreated(session: id, .failure(ServiceError(error)))
            }
        }
    }

    /// An npub, or an nprofile with its relay hints (NIP-19), as the person to chat with.
    static func profilePointer(_ text: String) -> NIP19.ProfilePointer? {
        if let key = try? PublicKey(npub: text) { return NIP19.ProfilePointer(publicKey: key) }
        guard text.lowercased().hasPrefix("nprofile1"), case .nprofile(let pointer)? = try? NIP19.decode(text) else { return nil }
        return pointer
    }

    func chatCreated(_ result: Result<ChatInfo, ServiceError>) {
        state.busy.creatingChat = false
        switch result {
        case .success(let info):
            upsertChat(info)
            showChat(info.chatID)
            finish(.createChat, .ok)
        case .failure(let error):
            fail(.createChat, error, prefix: "Could not create chat")
        }
    }

    func chatsLoaded(_ chats: [ChatInfo]) {
        for info in chats { upsertChat(info) }
        state.network.chatsLoaded = true
        state.busy.restoringSession = false
        session?.chatsListed = true
        updateSync()
    }

    /// Records a chat, or refreshes what the service says about one already known. Unread counts
    /// come from the service only for chats the core has not seen; after that they are the core's.
    func upsertChat(_ info: ChatInfo) {
        guard let session else { return }
        guard var entry = session.chats[info.chatID] else {
            var entry = ChatEntry(info: info)
            if session.visibleChatID == info.chatID { entry.info.unreadCount = 0 }
            session.chats[info.chatID] = entry
            fetchChatImageIfNew(info.chatID)
            return
        }
        entry.refresh(from: info)
        session.chats[info.chatID] = entry
        fetchChatImageIfNew(info.chatID)
    }

    /// Runs when a chat comes on top of the stack: clears its unread count and loads its newest page.
    func chatBecameVisible(_ chatID: ChatID, in session: Session) {
        guard var entry = session.chats[chatID], let service = session.service else { return }
        if entry.info.unreadCount > 0 {
            entry.info.unreadCount = 0
            spawnMarkRead(chatID, service: service)
        }
        if !entry.thread.loaded && !entry.thread.loading {
            entry.thread.loading = true
            spawnPageLoad(chatID, kind: .newest, before: nil, limit: Self.pageSize, service: service, session: session.id)
        }
        session.chats[chatID] = entry
    }

    /// Tells the service the chat was read; a failure only costs a stale count after restart, so it
    /// is logged, not shown.
    func spawnMarkRead(_ chatID: ChatID, service: any MessagingService) {
        let logger = self.logger
        spawn {
            do {
                try await service.markRead(chatID: chatID)
            } catch {
                logger.warning("mark read failed", metadata: ["chat": "\(chatID)", "code": "\(ServiceError(error).code)"])
            }
            return nil
        }
    }

    func serviceFailed(operation: String, error: ServiceError) {
        logger.warning("messaging failed", metadata: ["operation": "\(operation)", "code": "\(error.code)"])
        state.busy.restoringSession = false
        if operation == "start" { state.network.sync = .failed }
        fail(.messaging, error, prefix: "Messaging error (\(operation))")
    }
}
