import Nostr
import Marmot

/// Reactions, replies, edits and deletions (issue 25): each checked here, then sent through the
/// same outbox as a text, so it is durable before it is shown and survives a crash.
///
/// Wire forms follow MDK 0.9.14 (`crates/marmot-app/src/messages/intents.rs` 259-321); the
/// messaging layer writes the tags.
extension AppCore {
    func react(chatID: ChatID, messageID: MessageID, emoji: String) {
        guard let (session, entry, service) = writableChat(chatID, for: .react) else { return }
        guard let emoji = ReactionText.clean(emoji) else {
            finish(.react, .invalidReaction, "A reaction is one emoji or short text, without spaces around it")
            return
        }
        guard let target = entry.thread.message(messageID), target.notice == nil else {
            finish(.react, .unknownMessage, Self.unknownMessage)
            return
        }
        let outgoing = OutgoingMessage(
            id: .generate(), chatID: chatID, content: emoji, createdAt: configuration.clock.unixSeconds(),
            role: .reaction(target: target.id))
        enqueue(outgoing, operation: .react, session: session, service: service)
    }

    /// Deletes our own reactions to the message (with `emoji`, or all of them).
    func unreact(chatID: ChatID, messageID: MessageID, emoji: String?) {
        guard let (session, entry, service) = writableChat(chatID, for: .unreact) else { return }
        let me = session.myPublicKey
        let ours = entry.thread.annotations.values
            .filter { $0.role == .reaction(target: messageID) && $0.sender == me && (emoji == nil || $0.content == emoji) }
            .sorted { ($0.createdAt, $0.id.rawValue) < ($1.createdAt, $1.id.rawValue) }
        guard !ours.isEmpty else {
            finish(.unreact, .notReacted, "You have not reacted to that message")
            return
        }
        let outgoing = OutgoingMessage(
            id: .generate(), chatID: chatID, content: "", createdAt: configuration.clock.unixSeconds(),
            role: .deletion(targets: ours.map(\.id)))
        enqueue(outgoing, operation: .unreact, session: session, service: service)
    }

    func reply(chatID: ChatID, messageID: MessageID, content: String) {
        let text = content.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return }
        guard let (session, entry, service) = writableChat(chatID, for: .reply) else { return }
        guard let target = entry.thread.message(messageID), target.notice == nil else {
            finish(.reply, .unknownMessage, Self.unknownMessage)
            return
        }
        let outgoing = OutgoingMessage(
            id: .generate(), chatID: chatID, content: text, createdAt: configuration.clock.unixSeconds(),
            replyTo: target.id)
        enqueue(outgoing, operation: .reply, session: session, service: service)
    }

    func editMessage(chatID: ChatID, messageID: MessageID, content: String) {
        let text = content.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return }
        guard let (session, entry, service) = writableChat(chatID, for: .editMessage) else { return }
        guard let target = ownText(messageID, in: entry, session: session, for: .editMessage) else { return }
        let outgoing = OutgoingMessage(
            id: .generate(), chatID: chatID, content: text, createdAt: configuration.clock.unixSeconds(),
            role: .edit(target: target.id))
        enqueue(outgoing, operation: .editMessage, session: session, service: service)
    }

    func deleteMessage(chatID: ChatID, messageID: MessageID) {
        guard let (session, entry, service) = writableChat(chatID, for: .deleteMessage) else { return }
        // An admin of a group that is not a direct conversation may delete anyone's message (MDK's
        // moderation grant); everyone else only their own.
        let moderates = entry.info.grantsModeration(to: session.myPublicKey)
        guard let target = ownText(messageID, in: entry, session: session, for: .deleteMessage, orAnyone: moderates)
        else { return }
        // Someone else's message goes by an admin deletion (kind 4891); kind 5 deletes only one's own.
        let role: MessageRole = target.sender == session.myPublicKey ? .deletion(targets: [target.id]) : .adminDeletion(target: target.id)
        let outgoing = OutgoingMessage(
            id: .generate(), chatID: chatID, content: "", createdAt: configuration.clock.unixSeconds(), role: role)
        enqueue(outgoing, operation: .deleteMessage, session: session, service: service)
    }

    /// The session, chat and service when `operation` may write to `chatID`; otherwise records why not.
    private func writableChat(
        _ chatID: ChatID, for operation: UserOperation
    ) -> (Session, ChatEntry, any MessagingService)? {
        guard let session else { return nil }
        guard let entry = session.chats[chatID] else {
            finish(operation, .unknownChat, "Chat not found")
            return nil
        }
        guard entry.info.isMember else {
            finish(operation, .notMember, Self.notMember)
            return nil
        }
        if let refusal = blockedRefusal(entry, in: session) {
            finish(operation, .blocked, refusal)
            return nil
        }
        guard let service = session.service else {
            finish(operation, .messagingUnavailable, Self.messagingUnavailable)
            return nil
        }
        return (session, entry, service)
    }

    /// The message when it is a text this account wrote (or any text, with `orAnyone`); otherwise
    /// records why not.
    private func ownText(
        _ messageID: MessageID, in entry: ChatEntry, session: Session, for operation: UserOperation, orAnyone: Bool = false
    ) -> MessageRecord? {
        guard let target = entry.thread.message(messageID), target.notice == nil else {
            finish(operation, .unknownMessage, Self.unknownMessage)
            return nil
        }
        guard orAnyone || target.sender == session.myPublicKey else {
            finish(operation, .notAuthor, "Only its author can change or delete a message")
            return nil
        }
        return target
    }

    static let unknownMessage = "That message is not in this chat (deleted, or not loaded)"
}

extension ChatInfo {
    /// Whether `me` holds the moderation grant here (deletes anyone's message): the messaging
    /// layer's rule (`ModerationGrant`), over this chat's members (`members` leaves us out).
    func grantsModeration(to me: PublicKey) -> Bool {
        ModerationGrant.holds(me, admins: admins, memberCount: members.count + 1, groupName: groupName)
    }
}
