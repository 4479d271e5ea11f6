import Nostr

/// Who may delete other members' messages (MDK 0.9.14's moderation grant): an admin, in a group
/// that is not a direct conversation (two members and no name); elsewhere a deletion removes only
/// its author's own messages (`marmot-app/src/groups.rs` 1858-1866, `delete_moderation_grant`).
///
/// One rule for the client (which decides a received deletion's grant) and the core (which offers
/// deletion to the user), so the two never disagree.
public enum ModerationGrant {
    public static func holds(_ person: PublicKey, admins: [PublicKey], memberCount: Int, groupName: String) -> Bool {
        let direct = memberCount == 2 && groupName.trimmingCharacters(in: .whitespaces).isEmpty
        return !direct && admins.contains(person)
    }
}
