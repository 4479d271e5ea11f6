import Nostr

/// Derived state, re-established after every reduction: the single place that decides what the chat
/// list and the open chat look like.
extension AppCore {
    /// Enforces the invariants: logged out shows only Login; `currentChat` is the view of the chat on
    /// top of the stack, else nil; the chat list is sorted by latest activity.
    func reconcileDerivedState() {
        guard let session else {
            state.router = .loggedOut
            state.chatList = []
            state.currentChat = nil
            return
        }
        let visible: ChatID? =
            if case .chat(let chatID) = state.router.topScreen, session.chats[chatID] != nil { chatID } else { nil }
        if visible != session.visibleChatID {
            session.visibleChatID = visible
            if let visible { chatBecameVisible(visible, in: session) }
        }
        state.chatList = chatList(session)
        state.currentChat = visible.flatMap { chatView($0, session) }
    }

    private func chatList(_ session: Session) -> [ChatSummary] {
        let me = session.myPublicKey
        return session.chats.values
            .sorted { ($0.activityAt, $1.id) > ($1.activityAt, $0.id) }
            .map { entry in
                let last = entry.info.lastMessage
                return ChatSummary(
                    chatID: entry.id,
                    peerNpub: entry.peerNpub,
                    peerName: entry.info.peerName,
                    lastMessage: last?.content,
                    lastMessageAt: last?.createdAt,
                    unreadCount: entry.info.unreadCount,
                    displayName: formatter.displayName(peerName: entry.info.peerName, npub: entry.peerNpub),
                    lastMessagePreview: formatter.lastMessagePreview(last?.content, isMine: last?.sender == me),
                    lastMessageTimeDisplay: formatter.listTime(last?.createdAt))
            }
    }

    private func chatView(_ chatID: ChatID, _ session: Session) -> ChatViewState? {
        guard let entry = session.chats[chatID] else { return nil }
        let me = session.myPublicKey
        var hexCache: [PublicKey: String] = [:]
        let messages = entry.thread.messages.map { record in
            let sender = hexCache[record.sender] ?? record.sender.hex
            hexCache[record.sender] = sender
            return ChatMessage(
                id: record.id, senderPubkey: sender, content: record.content, timestamp: record.createdAt,
                isMine: record.sender == me, delivery: record.delivery,
                displayTimestamp: formatter.messageTime(record.createdAt))
        }
        return ChatViewState(
            chatID: chatID, peerNpub: entry.peerNpub, peerName: entry.info.peerName,
            displayName: formatter.displayName(peerName: entry.info.peerName, npub: entry.peerNpub),
            messages: messages, canLoadOlder: entry.thread.loaded && entry.thread.hasOlder)
    }
}
