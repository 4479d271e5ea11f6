/// Disappearing messages: what expired leaves the threads and the chat list at once.
extension AppCore {
    /// Messages of `chatID` reached their expiry and were deleted by the messaging layer (v2
    /// component 0x8005): they leave the loaded thread, and the chat list's preview falls back to the
    /// newest message left (the chat update that follows names the newest one stored).
    func messagesExpired(_ chatID: ChatID, _ ids: [MessageID]) {
        guard let session, var entry = session.chats[chatID] else { return }
        let gone = Set(ids)
        unindexForSearch(ids, in: session)
        entry.thread.removeExpired(gone)
        if let last = entry.info.lastMessage, gone.contains(last.id) {
            entry.info.lastMessage = entry.thread.messages.last
        }
        session.chats[chatID] = entry
    }
}

/// Convergence: messages of a branch the group abandoned stay, marked.
extension AppCore {
    /// Others' messages of `chatID` belonged to a branch that lost to a competing change (issue 24):
    /// the loaded thread marks them, so every renderer shows they were not part of the group's history.
    func messagesInvalidated(_ chatID: ChatID, _ ids: [MessageID]) {
        guard let session, var entry = session.chats[chatID] else { return }
        entry.thread.markInvalidated(Set(ids))
        session.chats[chatID] = entry
    }
}
