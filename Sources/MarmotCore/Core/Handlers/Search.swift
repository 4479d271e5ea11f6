import Foundation
import Nostr

/// Message search (issue 48): the session's in-memory index, built from the stored (decrypted)
/// messages on the first search and fed every message after; no index is ever written to disk
/// (README, security model: nothing of a message is on disk unsealed).
extension AppCore {
    /// The most messages read into the index, so a huge history cannot take unbounded memory.
    static let searchIndexLimit = 1_000_000
    /// Messages read per page while the index is built.
    static let searchPageSize = 500

    func search(_ query: String, chatID: ChatID?, limit: Int) {
        guard let session else { return }
        let limit = max(1, min(limit, 1_000))
        state.search = SearchState(query: query, chatID: chatID, searching: session.searchIndex == nil)
        session.searchRequest = (query, chatID, limit)
        if let index = session.searchIndex {
            state.search.results = hits(index.search(query, chat: chatID, limit: limit), session: session)
            return
        }
        guard let service = session.service else {
            state.search.searching = false
            state.search.error = Self.messagingUnavailable
            return
        }
        guard !session.searchIndexLoading else { return }
        session.searchIndexLoading = true
        let id = session.id
        let chats = Array(session.chats.keys)
        spawn {
            var index = MessageSearchIndex()
            do {
                for chat in chats {
                    var before: MessageID?
                    while index.count < Self.searchIndexLimit {
                        let page = try await service.loadMessages(chatID: chat, before: before, limit: Self.searchPageSize)
                        for record in page.messages { Self.index(record, into: &index) }
                        guard page.hasOlder, let oldest = page.messages.first?.id else { break }
                        before = oldest
                    }
                }
                return .searchIndexBuilt(session: id, .success(index))
            } catch {
                return .searchIndexBuilt(session: id, .failure(ServiceError(error)))
            }
        }
    }

    func searchIndexBuilt(_ result: Result<MessageSearchIndex, ServiceError>) {
        guard let session else { return }
        session.searchIndexLoading = false
        switch result {
        case .success(var index):
            // Messages that arrived while the index was built.
            for entry in session.chats.values { for record in entry.thread.messages { Self.index(record, into: &index) } }
            session.searchIndex = index
            if let request = session.searchRequest { search(request.query, chatID: request.chat, limit: request.limit) }
        case .failure(let error):
            state.search.searching = false
            state.search.error = "Could not search: \(error.reason)"
        }
    }

    /// Keeps the index up to date with a message shown in a chat (new or edited).
    func indexForSearch(_ record: MessageRecord, in session: Session) {
        guard session.searchIndex != nil else { return }
        Self.index(record, into: &session.searchIndex!)
    }

    /// Takes messages that are gone (deleted, expired, invalidated) out of the index.
    func unindexForSearch(_ ids: [MessageID], in session: Session) {
        guard session.searchIndex != nil else { return }
        for id in ids { session.searchIndex!.remove(id) }
    }

    private static func index(_ record: MessageRecord, into index: inout MessageSearchIndex) {
        switch record.role {
        case .text: break
        case .deletion(let targets):
            for target in targets { index.remove(target) }
            return
        case .adminDeletion(let target):
            index.remove(target)
            return
        default: return  // reactions; an edit leaves the first text indexed (not yet re-indexed)
        }
        guard record.notice == nil, !record.invalidated, !record.content.isEmpty else { return }
        index.add(chatID: record.chatID, messageID: record.id, sender: record.sender.hex, createdAt: record.createdAt, text: record.content)
    }

    /// The hits with their senders as the chat list shows people: "You", or the short npub; blocked
    /// people's messages and hidden chats are left out.
    private func hits(_ found: [SearchHit], session: Session) -> [SearchHit] {
        found.compactMap { hit in
            guard let entry = session.chats[hit.chatID], !session.isBlockedDirect(entry),
                let sender = try? PublicKey(hex: hit.sender), session.blocked[sender] == nil
            else { return nil }
            var shown = hit
            shown.sender = sender == session.keys.publicKey ? "You" : DisplayFormatter.short(sender.npub)
            return shown
        }
    }
}
