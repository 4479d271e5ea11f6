import Nostr

/// Derived state, re-established after every reduction: the single place that decides what the chat
/// list and the open chat look like.
extension AppCore {
    /// Enforces the invariants: logged out shows only Login; `currentChat` is the view of the chat on
    /// top of the stack, else nil; the chat list is sorted by latest activity.
    func reconcileDerivedState() {
        guard let session else {
            projectionMemo = ProjectionMemo()
            state.router = .loggedOut
            state.chatList = []
            state.currentChat = nil
            state.invites = []
            return
        }
        let visible: ChatID? =
            switch state.router.topScreen {
            case .chat(let chatID) where session.chats[chatID] != nil, .groupInfo(let chatID) where session.chats[chatID] != nil:
                chatID
            default:
                nil
            }
        let day = formatter.labelDay
        if projectionMemo.sessionID != session.id || projectionMemo.day != day {
            projectionMemo = ProjectionMemo(sessionID: session.id, day: day)
        }
        if visible != session.visibleChatID {
            session.visibleChatID = visible
            if let visible { chatBecameVisible(visible, in: session) }
        }
        state.chatList = chatList(session)
        state.currentChat = visible.flatMap { chatView($0, session) }
        state.network.blossomServers = session.blossomServers.map(\.absoluteString)
        state.network.blossomServersNamed = session.blossomServersNamed
        state.network.blossomServersLoaded = session.blossomServersLoaded
        if session.relaysShown {
            state.network.relays = relayEntries(session)
            state.network.groupRelays = groupRelayEntries(session)
        }
        state.blocked = BlockedState(
            people: session.blocked.sorted { ($0.value, $0.key.hex) < ($1.value, $1.key.hex) }.map { person, at in
                let npub = person.npub
                return BlockedEntry(
                    npub: npub, pubkey: person.hex, displayName: formatter.shortNpub(npub), blockedAt: at,
                    blockedTimeDisplay: formatter.listTime(at))
            },
            loaded: session.blockedListed)
        // Invitations from someone this account blocked are not listed (issue 48).
        state.invites = session.invites.filter { session.blocked[$0.inviter] == nil }.map { invite in
            InviteSummary(
                inviteID: invite.inviteID, inviterNpub: invite.inviter.npub,
                inviterDisplayName: formatter.shortNpub(invite.inviter.npub), groupName: invite.groupName,
                memberCount: invite.memberCount, title: formatter.inviteTitle(invite),
                receivedTimeDisplay: formatter.listTime(invite.receivedAt),
                canAnswer: state.busy.canAnswer(invite.inviteID))
        }
    }

    /// What a message says in the chat list and the chat: its text, or the system line's wording.
    private func text(of record: MessageRecord, me: PublicKey) -> String {
        record.notice.map { formatter.notice($0, me: me) } ?? record.content
    }

    private func chatList(_ session: Session) -> [ChatSummary] {
        let me = session.myPublicKey
        var changed = false
        let last = projectionMemo.chatList
        let now = configuration.clock.unixSeconds()
        let list = session.chats.values
            // A 1:1 with someone this account blocked is not listed (issue 48).
            .filter { !session.isBlockedDirect($0) }
            // The Notes chat first (issue 29), then by latest activity.
            .sorted { ($0.info.isNotes ? 1 : 0, $0.activityAt, $1.id) > ($1.info.isNotes ? 1 : 0, $1.activityAt, $0.id) }
            .enumerated().map { index, entry in
                var edit: MessageRecord?
                if let shown = entry.info.lastMessage, shown.notice == nil { edit = entry.thread.latestEdit(of: shown) }
                let inputs = SummaryInputs(
                    info: entry.info, edit: edit, arrivals: entry.arrivals, image: chatImageState(entry, session: session),
                    mutedNow: entry.info.preferences.mute.isActive(at: now),
                    lastFromBlocked: entry.info.lastMessage.map { $0.sender != me && session.blocked[$0.sender] != nil } ?? false)
                if let kept = projectionMemo.summaries[entry.id], kept.inputs == inputs {
                    if index >= last.count || last[index].chatID != entry.id { changed = true }
                    return kept.summary
                }
                changed = true
                let summary = chatSummary(entry, inputs, me: me)
                projectionMemo.summaries[entry.id] = (inputs, summary)
                return summary
            }
        if projectionMemo.summaries.count > list.count {
            let shown = Set(list.map(\.chatID))
            projectionMemo.summaries = projectionMemo.summaries.filter { shown.contains($0.key) }
        }
        // Unchanged rows in the same order: the same array, which the commit compares at once.
        guard changed || list.count != last.count else { return last }
        projectionMemo.chatList = list
        return list
    }

    /// One chat-list row, drawn from `inputs` (what it depends on besides the chat's id and peer).
    private func chatSummary(_ entry: ChatEntry, _ inputs: SummaryInputs, me: PublicKey) -> ChatSummary {
        var last = entry.info.lastMessage
        // A file sent without a caption is previewed by its name.
        if let shown = last, shown.notice == nil, shown.content.isEmpty, let file = shown.attachments.first {
            last?.content = formatter.attachmentPreview(file)
        }
        // An edited newest message is previewed with its new text.
        if let edit = inputs.edit { last?.content = edit.content }
        // One from someone this account blocked is previewed collapsed (issue 48).
        if inputs.lastFromBlocked, last?.notice == nil { last?.content = DisplayFormatter.blockedMessageText }
        let preview =
            if let last, last.notice != nil { formatter.preview(text(of: last, me: me)) } else {
                formatter.lastMessagePreview(last?.content, isMine: last?.sender == me)
            }
        var summary = ChatSummary(
            chatID: entry.id,
            peerNpub: entry.peerNpub,
            peerName: entry.info.peerName,
            lastMessage: last.map { text(of: $0, me: me) },
            lastMessageAt: last?.createdAt,
            unreadCount: entry.info.unreadCount,
            displayName: formatter.chatTitle(entry.info),
            lastMessagePreview: preview,
            lastMessageTimeDisplay: formatter.listTime(last?.createdAt),
            isGroup: !entry.info.isDirect, memberCount: entry.info.members.count + 1,
            lastMessageKind: last.map { $0.notice == nil ? .text : .system },
            protocolVersion: entry.info.protocolVersion)
        summary.isMember = entry.info.isMember
        summary.retentionSeconds = entry.info.retentionSeconds
        summary.convergence = entry.info.convergence
        summary.adminNpubs = entry.info.admins.map(\.npub)
        summary.recentArrivals = entry.arrivals
        summary.image = inputs.image
        summary.isNotes = entry.info.isNotes
        summary.isArchived = entry.info.preferences.archived
        summary.isMuted = inputs.mutedNow
        if inputs.mutedNow {
            summary.mutedUntil = entry.info.preferences.mute.end(after: configuration.clock.unixSeconds())
            summary.muteLabel = formatter.muteLabel(until: summary.mutedUntil)
        }
        return summary
    }

    private func chatView(_ chatID: ChatID, _ session: Session) -> ChatViewState? {
        guard let entry = session.chats[chatID] else { return nil }
        let me = session.myPublicKey
        var hexCache: [PublicKey: String] = [:]
        let overlay = entry.thread.overlay()
        let moderates = entry.info.grantsModeration(to: me)
        // Taken out while drawn, so adding a row does not copy the whole memo of the chat.
        var rows = projectionMemo.messages.removeValue(forKey: chatID) ?? MessageRows()
        var changed = false
        let messages = entry.thread.messages.enumerated().map { index, record in
            let edit = record.notice == nil ? overlay.latestEdit(of: record) : nil
            // A row is drawn again only when something it shows changed (issue 27); rows with
            // files follow the session's download and upload states, and are always drawn.
            var inputs: MessageInputs?
            if record.attachments.isEmpty {
                let quoted = record.replyTo.flatMap { entry.thread.message($0) }
                let made = MessageInputs(
                    record: record, edit: edit, reactions: overlay.reactions[record.id] ?? [], quoted: quoted,
                    quotedEdit: quoted.flatMap { overlay.latestEdit(of: $0) }, moderates: moderates,
                    fromBlocked: record.sender != me && session.blocked[record.sender] != nil)
                if let kept = rows.byID[record.id], kept.inputs == made {
                    if index >= rows.shown.count || rows.shown[index].id != record.id { changed = true }
                    return kept.message
                }
                inputs = made
            }
            changed = true
            let sender = hexCache[record.sender] ?? record.sender.hex
            hexCache[record.sender] = sender
            let message = chatMessage(record, sender: sender, edit: edit, overlay: overlay, entry: entry, moderates: moderates, me: me, session: session)
            if let inputs { rows.byID[record.id] = (inputs, message) }
            return message
        }
        if rows.byID.count > 2 * messages.count + 16 {
            let shown = Set(messages.map(\.id))
            rows.byID = rows.byID.filter { shown.contains($0.key) }
        }
        // Unchanged rows in the same order: the same array, which the commit compares at once.
        let shownMessages = changed || messages.count != rows.shown.count ? messages : rows.shown
        rows.shown = shownMessages
        projectionMemo.messages[chatID] = rows
        var view = ChatViewState(
            chatID: chatID, peerNpub: entry.peerNpub, peerName: entry.info.peerName,
            displayName: formatter.chatTitle(entry.info),
            messages: shownMessages, canLoadOlder: entry.thread.loaded && entry.thread.hasOlder,
            isGroup: !entry.info.isDirect, memberNpubs: entry.info.members.map(\.npub),
            isLoadingOlder: entry.thread.loaded && entry.thread.loading, memberCount: entry.info.members.count + 1)
        view.adminNpubs = entry.info.admins.map(\.npub)
        view.members = ([me] + entry.info.members).map { key in
            ChatMemberEntry(
                npub: key.npub, deviceCount: max(entry.info.deviceCounts[key] ?? 1, 1), isMe: key == me,
                isAdmin: entry.info.admins.contains(key))
        }
        view.protocolVersion = entry.info.protocolVersion
        view.isMember = entry.info.isMember
        view.retentionSeconds = entry.info.retentionSeconds
        view.convergence = entry.info.convergence
        view.image = chatImageState(entry, session: session)
        view.isLoaded = entry.thread.loaded
        view.isNotes = entry.info.isNotes
        view.canManage = entry.info.isMember && entry.info.admins.contains(me)
        view.isMuted = entry.info.preferences.mute.isActive(at: configuration.clock.unixSeconds())
        view.isArchived = entry.info.preferences.archived
        view.peerBlocked = session.isBlockedDirect(entry)
        return view
    }

    /// One message of the open chat as drawn.
    private func chatMessage(
        _ record: MessageRecord, sender: String, edit: MessageRecord?, overlay: ThreadOverlay, entry: ChatEntry,
        moderates: Bool, me: PublicKey, session: Session
    ) -> ChatMessage {
        var message = ChatMessage(
            id: record.id, senderPubkey: sender, content: edit?.content ?? text(of: record, me: me),
            timestamp: record.createdAt, isMine: record.notice == nil && record.sender == me, delivery: record.delivery,
            displayTimestamp: formatter.messageTime(record.createdAt), kind: record.notice == nil ? .text : .system)
        message.isInvalidated = record.invalidated
        guard record.notice == nil else { return message }
        // Someone this account blocked: shown collapsed, without their text, files or reactions (issue 48).
        if record.sender != me, session.blocked[record.sender] != nil {
            message.isBlocked = true
            message.content = DisplayFormatter.blockedMessageText
            return message
        }
        message.canDelete = message.canModify || moderates
        message.isEdited = edit != nil
        message.reactions = reactionSummaries(overlay.reactions[record.id] ?? [], me: me)
        message.replyTo = record.replyTo.map { quote($0, in: entry.thread, overlay: overlay, me: me) }
        message.mentionedPubkeys = record.mentions.map(\.hex)
        message.mentionsMe = record.mentions.contains(me)
        if !record.attachments.isEmpty { message.attachments = chatAttachments(record, session: session) }
        return message
    }

    /// One summary per emoji, in the order each first appeared; a person counts once per emoji.
    private func reactionSummaries(_ reactions: [MessageRecord], me: PublicKey) -> [ReactionSummary] {
        var summaries: [ReactionSummary] = []
        let ordered = reactions.sorted { ($0.createdAt, $0.id.rawValue) < ($1.createdAt, $1.id.rawValue) }
        for reaction in ordered {
            let sender = reaction.sender.hex
            // A reaction is a peer's free text (NIP-25): shown on one line, at most 32 characters.
            let emoji = UntrustedText.line(reaction.content, limit: 32)
            if let index = summaries.firstIndex(where: { $0.emoji == emoji }) {
                guard !summaries[index].senderPubkeys.contains(sender) else { continue }
                summaries[index].senderPubkeys.append(sender)
                summaries[index].count += 1
                summaries[index].includesMe = summaries[index].includesMe || reaction.sender == me
            } else {
                summaries.append(
                    ReactionSummary(emoji: emoji, count: 1, senderPubkeys: [sender], includesMe: reaction.sender == me))
            }
        }
        return summaries
    }

    /// The quote a reply shows: its target's (edited) text on one line, or "message not available".
    private func quote(_ target: MessageID, in thread: MessageThread, overlay: ThreadOverlay, me: PublicKey) -> ReplyQuote {
        guard let quoted = thread.message(target), quoted.notice == nil else {
            return ReplyQuote(
                messageID: target, isAvailable: false, senderPubkey: nil, senderDisplay: "", text: ReplyQuote.unavailableText)
        }
        let text = overlay.latestEdit(of: quoted)?.content ?? quoted.content
        return ReplyQuote(
            messageID: target, isAvailable: true, senderPubkey: quoted.sender.hex,
            senderDisplay: quoted.sender == me ? "You" : formatter.shortNpub(quoted.sender.npub), text: formatter.preview(text))
    }
}

/// What the projection drew last and from what, so a reduction draws again only the rows whose
/// inputs changed, and hands the commit the very same arrays when none did (issue 27: the chat list
/// and the open chat were drawn in full, with every time label, after each change). Valid for one
/// session and one local day (the time labels); `reconcileDerivedState` starts it over otherwise.
struct ProjectionMemo {
    var sessionID: UInt64 = 0
    var day: Int64 = 0
    /// Chat-list rows by chat, with what each was drawn from, and the list last shown.
    var summaries: [ChatID: (inputs: SummaryInputs, summary: ChatSummary)] = [:]
    var chatList: [ChatSummary] = []
    /// The open chats' rows.
    var messages: [ChatID: MessageRows] = [:]
}

/// A chat's drawn messages by id, with what each was drawn from, and the list last shown.
struct MessageRows {
    var byID: [MessageID: (inputs: MessageInputs, message: ChatMessage)] = [:]
    var shown: [ChatMessage] = []
}

/// Everything a chat-list row shows besides the session's account: the chat as stored, the edit
/// of its newest message, its arrivals and its picture's state.
struct SummaryInputs: Equatable {
    let info: ChatInfo
    let edit: MessageRecord?
    let arrivals: [ArrivedMessage]
    let image: ChatImageState
    /// Muted now (a timed mute ends by the clock, issue 48).
    let mutedNow: Bool
    /// The newest message is from someone this account blocked.
    let lastFromBlocked: Bool
}

/// Everything a message row without files shows besides the session's account and the day: the
/// message, its newest edit and its reactions, the message it replies to with that one's edit,
/// and whether this account may delete others' messages.
struct MessageInputs: Equatable {
    let record: MessageRecord
    let edit: MessageRecord?
    let reactions: [MessageRecord]
    let quoted: MessageRecord?
    let quotedEdit: MessageRecord?
    let moderates: Bool
    /// From someone this account blocked (issue 48).
    let fromBlocked: Bool
}
