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
                return .serviceFailed(session: id, operation: "load chats", ServiceError(error))
            }
        }
        if let chatID = session.visibleChatID, session.chats[chatID]?.thread.loaded == true {
            spawnPageLoad(chatID, kind: .refresh, before: nil, limit: Self.pageSize, service: service, session: id)
        }
    }

    /// Relay connectivity, shown as the network slice's status line.
    func relayStatusChanged(_ status: RelayStatus) {
        guard let session else { return }
        session.relayStatus = status
        let chatsLoaded = state.network.chatsLoaded
        state.network = NetworkState(
            connectedRelays: status.connected, totalRelays: status.total,
            keyPackagePublished: state.network.keyPackagePublished, sync: state.network.sync,
            invitesLoaded: state.network.invitesLoaded)
        state.network.chatsLoaded = chatsLoaded
        session.relaysShown = true
        state.network.relays = relayEntries(session)
        state.network.groupRelays = groupRelayEntries(session)
        updateSync()
        logger.info("relays", metadata: ["connected": "\(status.connected)", "total": "\(status.total)"])
    }
}

/// The sync status of the network slice (issue 16): connecting → catching up → live.
extension AppCore {
    /// Re-derives `state.network.sync` from what the session knows: live once the stored chats are
    /// listed and the messaging layer said its start-up catch-up is over; catching up once a relay
    /// is connected (or the layer said so); else connecting.
    func updateSync() {
        guard let session, session.service != nil, state.network.sync != .failed else { return }
        let next: SyncStatus =
            if session.chatsListed && session.serviceLive { .live } else if session.serviceLive
                || session.serviceCatchingUp || state.network.connectedRelays > 0
            { .catchingUp } else { .connecting }
        if state.network.sync != next {
            state.network.sync = next
            logger.info("sync", metadata: ["status": "\(next.rawValue)"])
        }
    }

    /// What the messaging layer says of its catch-up.
    func serviceSyncChanged(_ status: MessagingSyncStatus) {
        guard let session else { return }
        switch status {
        case .catchingUp: session.serviceCatchingUp = true
        case .live: session.serviceLive = true
        }
        updateSync()
    }
}
