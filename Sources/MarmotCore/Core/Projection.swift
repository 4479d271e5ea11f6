import Nostr

/// Derived state, re-established after every reduction: the single place that decides what the chat
/// list and the open chat look like.
extension AppCore {
    /// Enforces the invariants: logged out shows only Login; `currentChat` is the view of the chat on
    /// top of the stack, else nil; the chat list is sorted by latest activity.
    func reconcileDerivedState() {
        guard let session else {
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
        state.invites = session.invites.map { invite in
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
        return session.chats.values
            // The Notes chat first (issue 29), then by latest activity.
            .sorted { ($0.info.isNotes ? 1 : 0, $0.activityAt, $1.id) > ($1.info.isNotes ? 1 : 0, $1.activityAt, $0.id) }
            .map { entry in
                var last = entry.info.lastMessage
                // A file sent without a caption is previewed by its name.
                if let shown = last, shown.notice == nil, shown.content.isEmpty, let file = shown.attachments.first {
                    last?.content = formatter.attachmentPreview(file)
                }
                // An edited newest message is previewed with its new text.
                if let shown = last, shown.notice == nil, let edit = entry.thread.latestEdit(of: shown) {
                    last?.content = edit.content
                }
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
                summary.image = chatImageState(entry, session: session)
                summary.isNotes = entry.info.isNotes
                return summary
            }
    }

    private func chatView(_ chatID: ChatID, _ session: Session) -> ChatViewState? {
        guard let entry = session.chats[chatID] else { return nil }
        let me = session.myPublicKey
        var hexCache: [PublicKey: String] = [:]
        let overlay = entry.thread.overlay()
        let moderates = entry.info.grantsModeration(to: me)
        let messages = entry.thread.messages.map { record in
            let sender = hexCache[record.sender] ?? record.sender.hex
            hexCache[record.sender] = sender
            let edit = record.notice == nil ? overlay.latestEdit(of: record) : nil
            var message = ChatMessage(
                id: record.id, senderPubkey: sender, content: edit?.content ?? text(of: record, me: me),
                timestamp: record.createdAt, isMine: record.notice == nil && record.sender == me, delivery: record.delivery,
                displayTimestamp: formatter.messageTime(record.createdAt), kind: record.notice == nil ? .text : .system)
            message.isInvalidated = record.invalidated
            guard record.notice == nil else { return message }
            message.canDelete = message.canModify || moderates
            message.isEdited = edit != nil
            message.reactions = reactionSummaries(overlay.reactions[record.id] ?? [], me: me)
            message.replyTo = record.replyTo.map { quote($0, in: entry.thread, overlay: overlay, me: me) }
            message.mentionedPubkeys = record.mentions.map(\.hex)
            message.mentionsMe = record.mentions.contains(me)
            if !record.attachments.isEmpty { message.attachments = chatAttachments(record, session: session) }
            return message
        }
        var view = ChatViewState(
            chatID: chatID, peerNpub: entry.peerNpub, peerName: entry.info.peerName,
            displayName: formatter.chatTitle(entry.info),
            messages: messages, canLoadOlder: entry.thread.loaded && entry.thread.hasOlder,
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
        return view
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
