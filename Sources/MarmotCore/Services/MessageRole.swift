import Foundation
import Nostr

/// What a message does to its chat: a text (possibly a reply), or a change to another message.
///
/// Marmot carries any Nostr kind as an inner event (MIP-03); White Noise (MDK 0.9.14,
/// `crates/marmot-app/src/messages/intents.rs` `build_inner_event`) sends these: kind 9 chat (a
/// reply adds `e` and `q` tags), kind 7 reaction (NIP-25: `e` target, emoji content), kind 1009 edit
/// (`e` target, the new text) and kind 5 deletion (NIP-09: one `e` tag per target, its author's own
/// messages only); an admin deletes someone else's message with kind 4891 (spec
/// `features/content-moderation.md`). The messaging layer maps each stored rumor to one role; kinds
/// it does not know never reach the core.
public enum MessageRole: Sendable, Equatable, Hashable {
    /// A message someone wrote (kind 9), or a system line (`MessageRecord.notice`).
    case text
    /// `content` is the emoji reacting to `target` (kind 7).
    case reaction(target: MessageID)
    /// `content` is the new text of `target` (kind 1009); only the target's author may edit it.
    case edit(target: MessageID)
    /// Deletes `targets` (kind 5): messages or reactions, each only by its own author.
    case deletion(targets: [MessageID])
    /// An admin hides the chat message `target`, anyone's (kind 4891); it has an effect only when
    /// its author was an admin in the state it was sent in (`MessageRecord.moderated`).
    case adminDeletion(target: MessageID)

    /// The inner event's Nostr kind for this role (9, 7, 1009, 5 or 4891).
    public var nostrKind: UInt16 {
        switch self {
        case .text: 9
        case .reaction: 7
        case .edit: 1009
        case .deletion: 5
        case .adminDeletion: 4891
        }
    }

    /// The messages this one refers to (reaction, edit or deletion targets); empty for a text.
    public var targets: [MessageID] {
        switch self {
        case .text: []
        case .reaction(let target), .edit(let target), .adminDeletion(let target): [target]
        case .deletion(let targets): targets
        }
    }

    /// The messages this one deletes (a deletion's or an admin deletion's targets); empty otherwise.
    public var deletes: [MessageID] {
        switch self {
        case .deletion(let targets): targets
        case .adminDeletion(let target): [target]
        case .text, .reaction, .edit: []
        }
    }

    /// The role's name in scripts' output (`marmot listen --json`, `marmot messages --json`).
    public var name: String {
        switch self {
        case .text: "text"
        case .reaction: "reaction"
        case .edit: "edit"
        case .deletion: "deletion"
        case .adminDeletion: "adminDeletion"
        }
    }
}

/// The kinds White Noise sends that the messaging layer reads (MDK 0.9.14 `cgka-traits`
/// `app_event.rs` 46-56 and `marmot-app/src/notifications.rs` 40-42).
public enum MarmotMessageKind {
    public static let deletion: UInt16 = 5
    public static let reaction: UInt16 = 7
    public static let chat: UInt16 = 9
    public static let edit: UInt16 = 1009
    /// An admin's deletion of someone's chat message (spec `features/content-moderation.md`).
    public static let adminDeletion: UInt16 = 4891
    /// A group system event (MDK's local record of a commit); never a chat bubble.
    public static let groupSystem: UInt16 = 1210
    /// Push-token gossip (MIP-05: update, list, removal); never a chat bubble.
    public static let pushTokens: ClosedRange<UInt16> = 447...449

    /// Kinds the registry gives a meaning that is not a row of its own (spec `foundation/registries.md`):
    /// transport kinds, push (446-451), group system events, reports and dismissals (1984, 1985),
    /// poll responses (1018) and agent streams (1200-1202), besides the kinds read above.
    static let reserved: [ClosedRange<UInt16>] = [
        5...5, 7...7, 9...9, 13...13, 444...451, 1009...1009, 1018...1018, 1059...1059, 1200...1202, 1210...1210,
        1984...1985, 4891...4891,
    ]

    /// Whether `kind` is an app's own (custom) kind, shown as a row of its own as White Noise shows
    /// it (MDK 0.9.15; spec `foundation/application-messages.md`: an unknown kind is never rejected).
    public static func isCustom(_ kind: UInt16) -> Bool {
        !reserved.contains { $0.contains(kind) }
    }
}

/// Reaction content as MDK 0.9.14 accepts it (`intents.rs` `validate_reaction_content` 554-576):
/// non-empty, no surrounding whitespace, no control characters, at most 64 characters.
public enum ReactionText {
    public static let maxCharacters = 64

    /// The emoji when acceptable; nil otherwise (the reaction is dropped or refused).
    public static func clean(_ raw: String) -> String? {
        guard !raw.isEmpty, raw.trimmingCharacters(in: .whitespacesAndNewlines) == raw else { return nil }
        guard !raw.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return nil }
        guard raw.count <= maxCharacters else { return nil }
        return raw
    }
}
