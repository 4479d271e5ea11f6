import Foundation
import Logging
import MLS
import Marmot
import Nostr

/// Reactions, replies, edits, deletions and mentions: reading them from stored rumors, writing their
/// tags, and removing deleted messages from the store (issue 25).
///
/// Wire forms are MDK 0.9.14's (`crates/marmot-app/src/messages/intents.rs` 259-321): a reaction
/// is kind 7 with one `e` tag and the emoji as content; a reply is kind 9 with `e` and `q` tags
/// naming the target; an edit is kind 1009 with an `e` tag and the new text; a deletion is kind 5
/// with one `e` tag per target and empty content; mentions are `p` tags (NIP-27). MDK 0.8.0 (v1)
/// carries any kind unchanged, so v1 uses the same forms.
extension MarmotMessagingService {
    /// What a stored rumor is to the core; nil for kinds the chat never shows (push-token gossip
    /// 447-449, group system events 1210, anything unknown) and for malformed references.
    func role(of message: StoredMessage) -> (role: MessageRole, replyTo: MessageID?)? {
        let kind = message.kind.rawValue
        switch kind {
        case MarmotMessageKind.chat:
            // MDK's reply carries both; NIP-C7 names the quoted message in `q`.
            let quoted = firstReference(message.tags, "q") ?? firstReference(message.tags, "e")
            return (.text, quoted)
        case MarmotMessageKind.reaction:
            // MDK reads the first `e` tag as the target (`timeline.rs` 2895, `tag_value`).
            guard let target = firstReference(message.tags, "e"), ReactionText.clean(message.content) != nil else {
                return nil
            }
            return (.reaction(target: target), nil)
        case MarmotMessageKind.edit:
            guard let target = firstReference(message.tags, "e"),
                !message.content.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
            else { return nil }
            return (.edit(target: target), nil)
        case MarmotMessageKind.deletion:
            let targets = message.tags.filter { $0.name == "e" }.compactMap { $0.value.flatMap(reference) }
            return targets.isEmpty ? nil : (.deletion(targets: targets), nil)
        case MarmotMessageKind.adminDeletion:
            // Malformed (other tags, other content, duplicate keys): no effect at all.
            guard let deletion = AdminDeletion(kind: message.kind, tags: message.tags, content: message.content) else { return nil }
            return (.adminDeletion(target: ids.local(for: deletion.target)), nil)
        case let kind where MarmotMessageKind.isCustom(kind):
            // An app's own kind: a row of its own (`customRowText`), never a reply or a change.
            return (.text, nil)
        default:
            return nil
        }
    }

    /// What a custom kind's row says: that this app cannot show it, and its text if it has one
    /// (already cleaned, cut to 280 characters).
    static func customRowText(kind: UInt16, content: String) -> String {
        let label = "Unsupported message (kind \(kind))"
        let text = content.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return label }
        return "\(label): \(text.count > 280 ? String(text.prefix(280)) + "…" : text)"
    }

    /// The mentioned people: the `p` tags' keys (malformed ones skipped).
    static func mentions(_ tags: [Tag]) -> [PublicKey] {
        var seen: Set<PublicKey> = []
        return tags.filter { $0.name == "p" }.compactMap { $0.value.flatMap { try? PublicKey(hex: $0) } }
            .filter { seen.insert($0).inserted }
    }

    private func firstReference(_ tags: [Tag], _ name: String) -> MessageID? {
        tags.first { $0.name == name }?.value.flatMap(reference)
    }

    /// The core's id of the message a 64-hex event id names.
    private func reference(_ hex: String) -> MessageID? {
        guard let id = try? EventID(hex: hex.lowercased()) else { return nil }
        return ids.local(for: id)
    }

    // MARK: Sending

    /// The inner event's kind, content and tags for an outgoing message (MDK 0.9.14 forms).
    func wireForm(_ message: OutgoingMessage) throws -> (kind: Kind, content: String, tags: [Tag]) {
        func rumor(_ target: MessageID) throws -> String {
            guard let id = ids.rumor(for: target) else { throw MarmotMessagingError.unknownMessage }
            return id.hex
        }
        switch message.role {
        case .text:
            var tags: [Tag] = []
            if let target = message.replyTo {
                let hex = try rumor(target)
                tags = [Tag(["e", hex]), Tag(["q", hex])]
            }
            return (.chatMessage, message.content, tags + Self.mentionTags(message.content))
        case .reaction(let target):
            return (.reaction, message.content, [Tag(["e", try rumor(target)])])
        case .edit(let target):
            return (Kind(MarmotMessageKind.edit), message.content, [Tag(["e", try rumor(target)])] + Self.mentionTags(message.content))
        case .deletion(let targets):
            return (.deletion, "", try targets.map { Tag(["e", try rumor($0)]) })
        case .adminDeletion(let target):
            let deletion = AdminDeletion(target: try EventID(hex: try rumor(target)))
            return (AdminDeletion.kind, AdminDeletion.content, deletion.tags)
        }
    }

    /// One `p` tag per distinct npub written in the text (`nostr:npub1…` or `@npub1…`), as MDK
    /// 0.9.14 derives them (`intents.rs` 137-152, `mention_p_tags`).
    static func mentionTags(_ content: String) -> [Tag] {
        var seen: Set<PublicKey> = []
        var tags: [Tag] = []
        var rest = Substring(content)
        while let range = rest.range(of: "npub1") {
            let token = rest[range.lowerBound...].prefix { $0.isLetter || $0.isNumber }
            rest = rest[range.upperBound...]
            let before = range.lowerBound > content.startIndex ? content[content.index(before: range.lowerBound)] : " "
            guard before == "@" || before == ":", let key = try? PublicKey(npub: String(token)) else { continue }
            if seen.insert(key).inserted { tags.append(Tag(["p", key.hex])) }
        }
        return tags
    }

    // MARK: Deleting

    /// Applies a deletion to the store: each target written by the deleter, or any chat message
    /// when the deleter held the moderation grant (only ever for a kind-4891 admin deletion), is removed with its reactions and edits (no
    /// plaintext of it stays); any other deletion is ignored and logged (MDK 0.9.14 `timeline.rs`
    /// 2932-2945).
    func applyDeletion(_ deletion: StoredMessage, targets: [MessageID]) async {
        guard let store else { return }
        let group = deletion.mlsGroupID
        for target in targets {
            guard let rumorID = ids.rumor(for: target),
                let stored = try? store.message(mlsGroupID: group, rumorID: rumorID)
            else { continue }
            guard stored.sender == deletion.sender || (deletion.moderationGrant && stored.kind == .chatMessage) else {
                logger.notice("deletion of another member's message ignored", metadata: ["chat": "\(group)"])
                continue
            }
            await client?.forgetMedia(of: stored)
            do {
                try store.deleteMessage(mlsGroupID: group, rumorID: rumorID)
                if stored.kind == .chatMessage {
                    for dependent in try dependents(of: rumorID, in: group, since: stored.createdAt, author: stored.sender) {
                        try store.deleteMessage(mlsGroupID: group, rumorID: dependent)
                    }
                }
            } catch {
                logger.warning("deleted message not removed from the store", metadata: ["reason": "\(error)"])
            }
        }
    }

    /// Reactions to `target` (anyone's) and its author's edits of it, among messages stored since it.
    private func dependents(of target: EventID, in group: GroupID, since: Int64, author: PublicKey) throws -> [EventID] {
        guard let store else { return [] }
        var found: [EventID] = []
        var cursor: MessageCursor?
        repeat {
            let page = try store.messages(mlsGroupID: group, before: cursor, limit: 200)
            for message in page.messages where message.tags.contains(where: { $0.name == "e" && $0.value == target.hex }) {
                if message.kind == .reaction || (message.kind.rawValue == MarmotMessageKind.edit && message.sender == author) {
                    found.append(message.rumorID)
                }
            }
            guard let next = page.nextCursor, let oldest = page.messages.last, oldest.createdAt >= since else { break }
            cursor = next
        } while true
        return found
    }
}
