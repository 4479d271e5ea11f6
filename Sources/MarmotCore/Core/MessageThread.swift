import Nostr

/// The loaded window of a chat's messages, oldest first, with paging bookkeeping, and the
/// reactions, edits and deletions that refer to them.
///
/// A reaction, edit or deletion may arrive before or after its target (pages load newest first,
/// and relays do not order events), so they are kept by id and applied whenever both are here.
/// Authority follows the spec (`features/content-moderation.md`): a deletion (kind 5) removes a
/// message or reaction of its own author; an admin deletion (kind 4891) removes any member's chat
/// message when it carries the moderation grant (`MessageRecord.moderated`: its author was an admin,
/// in a group that is not a direct conversation, in the state it was sent in); an edit counts only
/// when its author wrote the target; anything else is ignored.
struct MessageThread {
    /// Texts and system lines, oldest first; deleted messages are gone from here.
    private(set) var messages: [MessageRecord] = []
    private var ids: Set<MessageID> = []
    /// Reactions, edits and deletions by id (those of this window and those waiting for a target).
    private(set) var annotations: [MessageID: MessageRecord] = [:]
    /// Messages and reactions their authors deleted: never shown again, even if a page brings them.
    private(set) var deleted: Set<MessageID> = []
    /// Whether the newest page has arrived from the service.
    var loaded = false
    /// Whether a page request is in flight.
    var loading = false
    /// Whether history older than `messages.first` exists.
    var hasOlder = false

    func contains(_ id: MessageID) -> Bool { ids.contains(id) || annotations[id] != nil || deleted.contains(id) }

    func message(_ id: MessageID) -> MessageRecord? {
        guard ids.contains(id) else { return nil }
        return messages.last { $0.id == id }
    }

    /// A reaction, edit or deletion known here by id.
    func annotation(_ id: MessageID) -> MessageRecord? { annotations[id] }

    /// Adds a message in time order (after any of the same second), or replaces the one with its id;
    /// a reaction, edit or deletion is recorded and applied.
    mutating func upsert(_ record: MessageRecord) {
        guard record.role == .text else {
            note(record)
            return
        }
        guard !isDeleted(record) else {
            deleted.insert(record.id)
            return
        }
        if ids.contains(record.id) {
            if let index = messages.lastIndex(where: { $0.id == record.id }) { messages[index] = record }
            return
        }
        ids.insert(record.id)
        var index = messages.endIndex
        while index > messages.startIndex, messages[index - 1].createdAt > record.createdAt { index -= 1 }
        messages.insert(record, at: index)
    }

    /// Adds the page's messages not already here; those already here keep the core's version, which
    /// reflects every event since.
    mutating func merge(_ page: [MessageRecord]) {
        for record in page where record.role != .text && annotations[record.id] == nil { note(record) }
        for record in page where record.role == .text && !ids.contains(record.id) && isDeleted(record) {
            deleted.insert(record.id)
        }
        let fresh = page.filter { $0.role == .text && !ids.contains($0.id) && !deleted.contains($0.id) }
        guard !fresh.isEmpty else { return }
        ids.formUnion(fresh.map(\.id))
        messages = (fresh + messages).enumerated()
            .sorted { ($0.element.createdAt, $0.offset) < ($1.element.createdAt, $1.offset) }
            .map(\.element)
    }

    /// Sets the delivery state of a message (or of a reaction, edit or deletion of ours); false when
    /// it is not here.
    mutating func setDelivery(_ id: MessageID, _ delivery: MessageDeliveryState) -> Bool {
        if annotations[id] != nil {
            annotations[id]?.delivery = delivery
            return true
        }
        guard ids.contains(id), let index = messages.lastIndex(where: { $0.id == id }) else { return false }
        messages[index].delivery = delivery
        return true
    }

    /// Marks messages as belonging to an abandoned branch of the group (issue 24).
    mutating func markInvalidated(_ marked: Set<MessageID>) {
        guard !ids.isDisjoint(with: marked) else { return }
        for index in messages.indices where marked.contains(messages[index].id) { messages[index].invalidated = true }
    }

    /// Drops messages, reactions and edits that no longer exist (they expired and were deleted).
    mutating func removeExpired(_ gone: Set<MessageID>) {
        ids.subtract(gone)
        messages.removeAll { gone.contains($0.id) }
        for id in gone { annotations[id] = nil }
    }

    // MARK: Reactions, edits, deletions

    /// Records a reaction, edit or deletion (or its new delivery state) and applies a deletion.
    private mutating func note(_ record: MessageRecord) {
        if annotations[record.id] != nil {
            annotations[record.id] = record
            return
        }
        guard !isDeleted(record) else {
            deleted.insert(record.id)
            return
        }
        annotations[record.id] = record
        for target in record.role.deletes { apply(deletion: record, of: target) }
    }

    /// Removes `target` if the deletion's author wrote it (a message or a reaction), or if it is a
    /// message and the deletion carries the moderation grant; otherwise nothing happens.
    private mutating func apply(deletion: MessageRecord, of target: MessageID) {
        let author = deletion.sender
        if let index = messages.lastIndex(where: { $0.id == target }), Self.removes(deletion, messages[index]) {
            messages.remove(at: index)
            ids.remove(target)
            deleted.insert(target)
        } else if case .deletion = deletion.role, let annotation = annotations[target], annotation.sender == author,
                  annotation.role != .text {
            if !annotation.role.deletes.isEmpty { return }
            annotations[target] = nil
            deleted.insert(target)
        }
    }

    /// Whether `record` was deleted (now, or by a deletion that came first).
    private func isDeleted(_ record: MessageRecord) -> Bool {
        if deleted.contains(record.id) { return true }
        return annotations.values.contains { other in
            guard other.role.deletes.contains(record.id) else { return false }
            if case .adminDeletion = other.role { return record.role == .text && Self.removes(other, record) }
            return other.sender == record.sender || (record.role == .text && Self.removes(other, record))
        }
    }

    /// Whether `deletion` removes the text or system line `message`: its author's own, or any
    /// member's message under the moderation grant (system lines are the core's, never removed).
    private static func removes(_ deletion: MessageRecord, _ message: MessageRecord) -> Bool {
        guard message.notice == nil else { return false }
        if message.sender == deletion.sender { return true }
        // Someone else's message: only an admin deletion (4891) whose author held the grant.
        guard case .adminDeletion = deletion.role else { return false }
        return deletion.moderated && message.role == .text
    }

    /// The newest edit of `message` by its author, if any (for the chat list's preview).
    func latestEdit(of message: MessageRecord) -> MessageRecord? {
        annotations.values.filter { $0.role == .edit(target: message.id) && $0.sender == message.sender }
            .max { ($0.createdAt, $0.id.rawValue) < ($1.createdAt, $1.id.rawValue) }
    }

    /// Reactions and edits by target, for drawing: one pass over what is known.
    func overlay() -> ThreadOverlay {
        var overlay = ThreadOverlay()
        for record in annotations.values {
            switch record.role {
            case .reaction(let target): overlay.reactions[target, default: []].append(record)
            case .edit(let target): overlay.edits[target, default: []].append(record)
            case .text, .deletion, .adminDeletion: break
            }
        }
        return overlay
    }
}

/// Reactions and edits of a thread grouped by the message they refer to.
struct ThreadOverlay {
    var reactions: [MessageID: [MessageRecord]] = [:]
    var edits: [MessageID: [MessageRecord]] = [:]

    /// The newest edit of `message` by its own author (an edit by anyone else is ignored).
    func latestEdit(of message: MessageRecord) -> MessageRecord? {
        edits[message.id]?.filter { $0.sender == message.sender }
            .max { ($0.createdAt, $0.id.rawValue) < ($1.createdAt, $1.id.rawValue) }
    }
}
