import Foundation

/// The session's relays: added and removed by the user (NIP-65 lists follow in the messaging layer).
extension AppCore {
    func changeRelays(adding text: String) {
        guard let session else { return }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(), scheme == "ws" || scheme == "wss",
              let host = url.host, !host.isEmpty
        else {
            finish(.changeRelays, .failed, "Not a relay address: use ws:// or wss://")
            return
        }
        guard !session.relayURLs.contains(url) else {
            finish(.changeRelays, .ok)
            return
        }
        setRelays(session.relayURLs + [url], in: session)
    }

    func changeRelays(removing text: String) {
        guard let session else { return }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard session.relayURLs.contains(where: { $0.absoluteString == trimmed }) else {
            finish(.changeRelays, .failed, "Not one of your relays: \(trimmed)")
            return
        }
        let remaining = session.relayURLs.filter { $0.absoluteString != trimmed }
        guard !remaining.isEmpty else {
            finish(.changeRelays, .relayUnreachable, "Keep at least one relay")
            return
        }
        setRelays(remaining, in: session)
    }

    private func setRelays(_ urls: [URL], in session: Session) {
        guard let service = session.service else {
            finish(.changeRelays, .messagingUnavailable, Self.messagingUnavailable)
            return
        }
        let id = session.id
        spawn {
            do {
                try await service.setRelays(urls)
                return .relaysSet(session: id, .success(urls))
            } catch {
                return .relaysSet(session: id, .failure(ServiceError(error)))
            }
        }
    }

    func relaysSet(_ result: Result<[URL], ServiceError>) {
        guard let session else { return }
        switch result {
        case .success(let urls):
            session.relayURLs = urls
            session.relaysShown = true
            state.network.relays = relayEntries(session)
            state.network.groupRelays = groupRelayEntries(session)
            finish(.changeRelays, .ok)
        case .failure(let error):
            finish(.changeRelays, error.code, "Could not change the relays: \(error.reason)")
        }
    }
}

/// Each relay's state and its words (issue 17): the messaging layer reports states and activity, the
/// core words them and keeps the "… ago" part current with its own timer.
extension AppCore {
    /// The session's relays in the user's order, from the last relay report: a relay not reported
    /// yet is connecting.
    func relayEntries(_ session: Session) -> [RelayEntry] {
        session.relayURLs.map { relayEntry($0.absoluteString, session) }
    }

    /// The relays chats brought (issue 26), in the messaging layer's order, each with the chats
    /// naming it; one that is also the user's own is listed only there.
    func groupRelayEntries(_ session: Session) -> [GroupRelayEntry] {
        let own = Set(session.relayURLs.map(\.absoluteString))
        return (session.relayStatus?.groupRelays ?? []).filter { !own.contains($0.url) }.map { origin in
            let chats = origin.chats.map { id in
                GroupRelayEntry.Origin(chatID: id, title: session.chats[id].map { formatter.chatTitle($0.info) } ?? "a chat")
            }
            return GroupRelayEntry(
                relay: relayEntry(origin.url, session), chats: chats, originText: formatter.relayOrigin(chats.map(\.title)))
        }
    }

    private func relayEntry(_ key: String, _ session: Session) -> RelayEntry {
        let status = session.relayStatus
        let detail = status?.details[key] ?? RelayDetail(state: status?.relays[key] == true ? .connected : .connecting)
        var entry = RelayEntry(
            url: key, state: detail.state, lastEventAt: detail.lastEventAt,
            statusText: formatter.relayStatus(detail.state, lastEventAt: detail.lastEventAt, downSince: detail.downSince)
                + formatter.relayAuth(detail.auth))
        entry.downSince = detail.downSince
        entry.auth = detail.auth
        return entry
    }

    /// Schedules, on the core's timer, the next moment a relay's "last event … ago" text may change;
    /// nothing while no relay has sent anything or a refresh is already pending.
    func scheduleRelayClock() {
        guard let session, session.relayClock == nil,
              let delay = formatter.nextAgeChange(state.network.relays.flatMap { [$0.lastEventAt, $0.downSince].compactMap { $0 } })
        else { return }
        let timer = configuration.timer
        let inbox = self.inbox
        let id = session.id
        session.relayClock = Task.detached {
            await timer.sleep(delay)
            guard !Task.isCancelled else { return }
            inbox.yield(.event(.relayClockTick(session: id)))
        }
    }
}
