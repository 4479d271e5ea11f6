import Foundation
import MLS
import Nostr

/// Admins' deletions (spec `features/content-moderation.md`, with MDK 0.9.14's grant): in a group
/// that is not a direct conversation, an admin deletion (kind 4891) by an admin hides another
/// member's chat message; a deletion (kind 5) removes only its author's own. The grant is decided
/// once, by the group state that opened (or, for ours, queued) the deletion, and kept, so a later
/// demotion does not bring the message back.
extension MarmotClient {
    /// Whether `sender` holds the grant in `session`'s state (`ModerationGrant`).
    static func grantsModeration(_ sender: PublicKey, in session: GroupSession) -> Bool {
        ModerationGrant.holds(
            sender, admins: session.stored.admins, memberCount: session.mls.members.count, groupName: session.stored.name)
    }

    /// Whether `message` is a well-formed admin deletion (kind 4891): the only kind a grant is kept
    /// for, since a kind-5 deletion removes only its author's own messages (spec
    /// `features/content-moderation.md`).
    static func isAdminDeletion(_ message: StoredMessage) -> Bool {
        AdminDeletion(kind: message.kind, tags: message.tags, content: message.content) != nil
    }

    /// Records the grant of a deletion just stored, and sets it on `message`.
    func noteModeration(_ message: inout StoredMessage, in session: GroupSession) {
        guard Self.isAdminDeletion(message), Self.grantsModeration(message.sender, in: session) else { return }
        do {
            try store.saveModerationGrant(mlsGroupID: message.mlsGroupID, rumorID: message.rumorID, at: message.createdAt)
            message.moderationGrant = true
        } catch {
            logger.warning("cannot record the moderation grant of \(message.rumorID.hex): \(error)")
        }
    }

    /// `messages` with the grants of their deletions filled in from the store, each looked up in
    /// its own group (security review D3).
    func withModerationGrants(_ messages: [StoredMessage]) -> [StoredMessage] {
        var asked: [GroupID: [EventID]] = [:]
        for message in messages where Self.isAdminDeletion(message) { asked[message.mlsGroupID, default: []].append(message.rumorID) }
        guard !asked.isEmpty else { return messages }
        var granted: [GroupID: Set<EventID>] = [:]
        for (group, rumors) in asked { granted[group] = (try? store.moderationGrants(mlsGroupID: group, rumorIDs: rumors)) ?? [] }
        return messages.map { message in
            guard Self.isAdminDeletion(message) else { return message }
            var marked = message
            marked.moderationGrant = granted[message.mlsGroupID]?.contains(message.rumorID) ?? false
            return marked
        }
    }
}
