import Foundation
import MLS
import Marmot
import Nostr

/// Chat preferences and blocked people (issue 48), kept in the session's store (migration
/// `v10-chat-preferences`): on this device only, nothing is published.
extension MarmotMessagingService {
    func setChatPreferences(_ preferences: ChatPreferences, chatID: ChatID) async throws {
        let store = try await openedStore()
        try store.saveChatPreferences(
            Self.stored(preferences), mlsGroupID: try Self.groupID(chatID), at: context.clock.unixSeconds())
    }

    func blockedPeople() async throws -> [BlockedPerson] {
        try await openedStore().blockedPeople().map { BlockedPerson(person: $0.person, blockedAt: $0.blockedAt) }
    }

    func setBlocked(_ person: PublicKey, blocked: Bool, at: Int64) async throws {
        let store = try await openedStore()
        if blocked { try store.block(person, at: at) } else { try store.unblock(person) }
    }

    /// `infos` with each chat's kept preferences.
    func withPreferences(_ infos: [ChatInfo]) async throws -> [ChatInfo] {
        let store = try await openedStore()
        let groups = infos.compactMap { try? Self.groupID($0.chatID) }
        let kept = try store.chatPreferences(of: groups)
        guard !kept.isEmpty else { return infos }
        return infos.map { info in
            guard let group = try? Self.groupID(info.chatID), let stored = kept[group] else { return info }
            var info = info
            info.preferences = Self.preferences(stored)
            return info
        }
    }

    /// The session's store once `start()` opened it.
    private func openedStore() async throws -> GRDBMarmotStore {
        _ = try await storedClient()
        guard let store else { throw MarmotMessagingError.notStarted }
        return store
    }

    static func stored(_ preferences: ChatPreferences) -> StoredChatPreferences {
        let mute: StoredMute =
            switch preferences.mute {
            case .off: .off
            case .until(let end): .until(end)
            case .forever: .forever
            }
        return StoredChatPreferences(mute: mute, archivedAt: preferences.archivedAt)
    }

    static func preferences(_ stored: StoredChatPreferences) -> ChatPreferences {
        let mute: ChatMute =
            switch stored.mute {
            case .off: .off
            case .until(let end): .until(end)
            case .forever: .forever
            }
        return ChatPreferences(mute: mute, archivedAt: stored.archivedAt)
    }
}
