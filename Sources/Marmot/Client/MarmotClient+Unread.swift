import Foundation
import MLS
import Nostr

/// The unread messages a chat's count stands for (issue 51: `marmot listen` prints each of them).
extension MarmotClient {
    /// Messages read from the store per page while looking for unread ones.
    static let unreadPageSize = 200

    /// The newest `unreadCount` messages of `chat` that count as unread, oldest first: the rule the
    /// store's counter follows (`StoredMessage.countsAsUnread`), in store order (same-second
    /// messages as they were received), so a reader shows exactly the messages the count promises.
    /// In the Notes chat every note may be one (which device wrote ours is not kept in the row).
    public func unreadMessages(in chat: GroupID) throws -> [StoredMessage] {
        let count = try storage { try store.groupActivity(mlsGroupID: chat) }?.unreadCount ?? 0
        guard count > 0 else { return [] }
        let notes = chat == notesGroupID()
        var found: [StoredMessage] = []
        var cursor: MessageCursor?
        repeat {
            let page = try storage { try store.messages(mlsGroupID: chat, before: cursor, limit: Self.unreadPageSize) }
            found += page.messages.filter { message in
                var candidate = message
                candidate.isNoteFromAnotherDevice = notes && message.isMine
                return candidate.countsAsUnread
            }.prefix(count - found.count)
            cursor = page.nextCursor
        } while found.count < count && cursor != nil
        return withAttachments(withModerationGrants(found.reversed()))
    }
}
