/// App lifecycle and connectivity.
extension AppCore {
    /// On return to the foreground: reconnects relays, re-reads the chat list and the open chat's
    /// newest page, to catch anything the messaging layer stored while events were not flowing.
    /// Display labels ("Yesterday") are recomputed by the same reduction.
    func foregrounded() {
        guard let session, let service = session.service else { return }
        let id = session.id
        spawn {
            await service.reconnect()
            do {
                return .chatsLoaded(session: id, try await service.listChats())
            } catch {
                return .serviceFailed(session: id, operation: "load chats", reason: ServiceError(error).reason)
            }
        }
        if let chatID = session.visibleChatID, session.chats[chatID]?.thread.loaded == true {
            spawnPageLoad(chatID, kind: .refresh, before: nil, limit: Self.pageSize, service: service, session: id)
        }
    }

    /// Relay connectivity is not shown in the MVP; it is kept and logged.
    func relayStatusChanged(_ status: RelayStatus) {
        session?.relayStatus = status
        logger.info("relays", metadata: ["connected": "\(status.connected)", "total": "\(status.total)"])
    }
}
