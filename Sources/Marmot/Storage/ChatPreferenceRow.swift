import Foundation
import GRDB

/// A `chat_preferences_v2` row (migration `v10-chat-preferences`): whether a chat is muted or archived.
///
/// Keyed by the group's lookup hash and deleted with its group; a chat without a row is neither.
struct ChatPreferenceRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "chat_preferences_v2"
    var groupRef: Data
    /// `StoredMute`'s code: 0 off, 1 until `mutedUntil`, 2 for good.
    var mute: Int
    var mutedUntil: Int64?
    var archivedAt: Int64?
    var updatedAt: Int64

    enum CodingKeys: String, CodingKey {
        case groupRef = "group_ref", mute, mutedUntil = "muted_until", archivedAt = "archived_at", updatedAt = "updated_at"
    }

    enum Columns {
        static let groupRef = Column(CodingKeys.groupRef)
    }
}

extension ChatPreferenceRow {
    init(groupRef: Data, _ preferences: StoredChatPreferences, at now: Int64) {
        self.groupRef = groupRef
        switch preferences.mute {
        case .off: (mute, mutedUntil) = (0, nil)
        case .until(let until): (mute, mutedUntil) = (1, until)
        case .forever: (mute, mutedUntil) = (2, nil)
        }
        archivedAt = preferences.archivedAt
        updatedAt = now
    }

    /// The preferences the row holds; `.corruptRow` for a mute code this version does not know.
    func preferences() throws(StorageError) -> StoredChatPreferences {
        let mute: StoredMute
        switch (self.mute, mutedUntil) {
        case (0, _): mute = .off
        case (1, let until?): mute = .until(until)
        case (2, _): mute = .forever
        default: throw .corruptRow("chat_preferences.mute \(self.mute)")
        }
        return StoredChatPreferences(mute: mute, archivedAt: archivedAt)
    }
}
