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
            let connected = Dictionary(uniqueKeysWithValues: state.network.relays.map { ($0.url, $0.connected) })
            state.network.relays = urls.map { RelayEntry(url: $0.absoluteString, connected: connected[$0.absoluteString] ?? false) }
            finish(.changeRelays, .ok)
        case .failure(let error):
            finish(.changeRelays, error.code, "Could not change the relays: \(error.reason)")
        }
    }
}
