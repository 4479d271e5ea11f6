import Foundation
import MarmotCore

/// `AppState` and its parts as contract JSON (docs/ffi-contract.md, "AppState").
extension ContractJSON {
    /// The whole state, with `schemaVersion`.
    public static func stateObject(_ state: AppState) -> Object {
        var object = stateBody(state)
        object["schemaVersion"] = schemaVersion
        return object
    }

    /// The state as a JSON string, with `schemaVersion`.
    public static func stateString(_ state: AppState) -> String { string(stateObject(state)) }

    static func stateBody(_ state: AppState) -> Object {
        [
            "rev": Int(truncatingIfNeeded: state.rev),
            "router": router(state.router),
            "auth": auth(state.auth),
            "busy": busy(state.busy),
            "chatList": state.chatList.map(chatSummary),
            "currentChat": orNull(state.currentChat.map(chatView)),
            "toast": orNull(state.toast),
            "network": network(state.network),
            "invites": state.invites.map(invite),
            "lastOutcome": orNull(state.lastOutcome.map(outcome)),
            "profile": profile(state.profile),
            "devices": devices(state.devices),
            "blocked": blocked(state.blocked),
            "search": search(state.search),
        ]
    }

    /// `{"query","chatId","results":[{"chatId","messageId","sender","createdAt","snippet"}],"searching","error"}` (issue 48).
    static func search(_ search: SearchState) -> Object {
        [
            "query": search.query, "chatId": orNull(search.chatID?.rawValue),
            "results": search.results.map { hit -> Object in
                [
                    "chatId": hit.chatID.rawValue, "messageId": hit.messageID.rawValue, "sender": hit.sender,
                    "createdAt": Int(hit.createdAt), "snippet": hit.snippet,
                ]
            },
            "searching": search.searching, "error": orNull(search.error),
        ]
    }

    /// `{"people":[{"npub","pubkey","displayName","blockedAt","blockedTimeDisplay"}],"loaded"}` (issue 48).
    static func blocked(_ blocked: BlockedState) -> Object {
        [
            "people": blocked.people.map { person -> Object in
                [
                    "npub": person.npub, "pubkey": person.pubkey, "displayName": person.displayName,
                    "blockedAt": Int(person.blockedAt), "blockedTimeDisplay": person.blockedTimeDisplay,
                ]
            },
            "loaded": blocked.loaded,
        ]
    }

    /// `{"list":[{"id","name","addedAt","addedDisplay","isThisDevice","isLinked","statusLabel"}],"loaded","loading","historyNotice",
    /// "lastRemoval":[{"chatID","isNotes","status","reason"}]}`.
    static func devices(_ devices: DevicesState) -> Object {
        [
            "list": devices.list.map { device -> Object in
                [
                    "id": device.id, "name": device.name, "addedAt": orNull(device.addedAt.map { Int($0) }),
                    "addedDisplay": device.addedDisplay, "isThisDevice": device.isThisDevice, "isLinked": device.isLinked,
                    "statusLabel": device.statusLabel,
                ]
            },
            "loaded": devices.loaded, "loading": devices.loading, "historyNotice": DevicesState.historyNotice,
            "lastRemoval": devices.lastRemoval.map { group -> Object in
                ["chatID": group.chatID.rawValue, "isNotes": group.isNotes, "status": group.status.rawValue, "reason": group.reason]
            },
        ]
    }

    static func profile(_ profile: ProfileState) -> Object {
        ["name": orNull(profile.name), "saving": profile.saving, "lookedUp": profile.lookedUp, "statusText": orNull(profile.statusText)]
    }

    static func router(_ router: Router) -> Object {
        ["defaultScreen": screen(router.defaultScreen), "screenStack": router.screenStack.map(screen)]
    }

    /// A screen, tagged: `{"type":"chat","chatId":"…"}`.
    public static func screen(_ screen: Screen) -> Object {
        switch screen {
        case .login: ["type": "login"]
        case .chatList: ["type": "chatList"]
        case .newChat: ["type": "newChat"]
        case .chat(let chatID): ["type": "chat", "chatId": chatID.rawValue]
        case .groupInfo(let chatID): ["type": "groupInfo", "chatId": chatID.rawValue]
        case .newGroup: ["type": "newGroup"]
        case .relays: ["type": "relays"]
        case .profile: ["type": "profile"]
        case .devices: ["type": "devices"]
        }
    }

    static func auth(_ auth: AuthState) -> Object {
        switch auth {
        case .loggedOut: ["type": "loggedOut"]
        case .loggedIn(let npub, let pubkey): ["type": "loggedIn", "npub": npub, "pubkey": pubkey]
        }
    }

    static func busy(_ busy: BusyState) -> Object {
        [
            "creatingAccount": busy.creatingAccount, "loggingIn": busy.loggingIn,
            "creatingChat": busy.creatingChat, "restoringSession": busy.restoringSession,
            "answeringInvites": busy.answeringInvites.map(\.rawValue).sorted(),
            "finishingJoins": busy.finishingJoins.map(\.rawValue).sorted(),
        ]
    }

    static func chatSummary(_ chat: ChatSummary) -> Object {
        [
            "chatId": chat.chatID.rawValue, "peerNpub": chat.peerNpub, "peerName": orNull(chat.peerName),
            "lastMessage": orNull(chat.lastMessage), "lastMessageAt": orNull(chat.lastMessageAt.map { Int($0) }),
            "unreadCount": Int(chat.unreadCount), "displayName": chat.displayName,
            "lastMessagePreview": chat.lastMessagePreview, "lastMessageTimeDisplay": chat.lastMessageTimeDisplay,
            "isGroup": chat.isGroup, "memberCount": chat.memberCount,
            "lastMessageKind": orNull(chat.lastMessageKind.map { $0 == .system ? "system" : "text" }),
            "protocolVersion": chat.protocolVersion.rawValue, "protocolLabel": chat.protocolLabel,
            "isMember": chat.isMember, "membershipLabel": orNull(chat.membershipLabel), "adminNpubs": chat.adminNpubs,
            "retentionSeconds": Int(clamping: chat.retentionSeconds),
            "convergence": chat.convergence.code, "convergenceLabel": orNull(chat.convergenceLabel),
            "image": chat.image.name, "imageError": orNull(chat.image.reason),
            "recentArrivals": chat.recentArrivals.map(arrival),
            "isNotes": chat.isNotes,
            "isMuted": chat.isMuted, "mutedUntil": orNull(chat.mutedUntil.map { Int($0) }), "muteLabel": orNull(chat.muteLabel),
            "isArchived": chat.isArchived, "asksForAttention": chat.asksForAttention,
        ]
    }

    static func chatView(_ chat: ChatViewState) -> Object {
        [
            "chatId": chat.chatID.rawValue, "peerNpub": chat.peerNpub, "peerName": orNull(chat.peerName),
            "displayName": chat.displayName, "messages": chat.messages.map(message),
            "canLoadOlder": chat.canLoadOlder, "isGroup": chat.isGroup, "memberNpubs": chat.memberNpubs,
            "members": chat.members.map { member -> Object in
                [
                    "npub": member.npub, "deviceCount": member.deviceCount, "isMe": member.isMe, "isAdmin": member.isAdmin,
                    "devicesLabel": orNull(member.devicesLabel),
                ]
            },
            "isLoadingOlder": chat.isLoadingOlder, "memberCount": chat.memberCount,
            "adminNpubs": chat.adminNpubs, "canManage": chat.canManage,
            "protocolVersion": chat.protocolVersion.rawValue, "protocolLabel": chat.protocolLabel,
            "isMember": chat.isMember, "membershipLabel": orNull(chat.membershipLabel), "isLoaded": chat.isLoaded,
            "retentionSeconds": Int(clamping: chat.retentionSeconds), "retentionLabel": orNull(chat.retentionLabel),
            "convergence": chat.convergence.code, "convergenceLabel": orNull(chat.convergenceLabel),
            "image": chat.image.name, "imageError": orNull(chat.image.reason),
            "isNotes": chat.isNotes,
            "isMuted": chat.isMuted, "isArchived": chat.isArchived, "peerBlocked": chat.peerBlocked,
        ]
    }

    /// `{"sequence","messageId","senderPubkey","senderNpub","kind","nostrKind","timestamp","target","text","isMine"}`.
    static func arrival(_ arrival: ArrivedMessage) -> Object {
        [
            "sequence": Int(arrival.sequence), "messageId": arrival.messageID.rawValue,
            "senderPubkey": arrival.senderPubkey, "senderNpub": arrival.senderNpub, "kind": arrival.kind,
            "nostrKind": orNull(arrival.nostrKind.map { Int($0) }), "timestamp": Int(arrival.timestamp),
            "target": orNull(arrival.target?.rawValue), "text": arrival.text, "isMine": arrival.isMine,
            "displayTimestamp": arrival.displayTimestamp,
        ]
    }

    static func message(_ message: ChatMessage) -> Object {
        [
            "id": message.id.rawValue, "senderPubkey": message.senderPubkey, "content": message.content,
            "timestamp": Int(message.timestamp), "isMine": message.isMine, "delivery": delivery(message.delivery),
            "displayTimestamp": message.displayTimestamp,
            "kind": message.kind == .system ? "system" : "text",
            "isInvalidated": message.isInvalidated, "invalidatedLabel": orNull(message.invalidatedLabel),
            "reactions": message.reactions.map(reaction), "isEdited": message.isEdited,
            "editedMark": message.editedMark, "replyTo": orNull(message.replyTo.map(quote)),
            "mentionedPubkeys": message.mentionedPubkeys, "mentionsMe": message.mentionsMe,
            "canModify": message.canModify,
            "canDelete": message.canDelete,
            "attachments": message.attachments.map(attachment),
            "isBlocked": message.isBlocked,
        ]
    }

    /// `{"index","filename","mimeType","size","width","height","isImage","state","reason","progress","stateText","label","canDownload"}`
    /// (issue 28).
    static func attachment(_ attachment: ChatAttachment) -> Object {
        [
            "index": attachment.index, "filename": attachment.filename, "mimeType": attachment.mimeType,
            "size": orNull(attachment.size), "width": orNull(attachment.width), "height": orNull(attachment.height),
            "isImage": attachment.isImage, "state": attachment.state.name, "reason": orNull(attachment.state.reason),
            "progress": orNull(attachment.progress), "stateText": attachment.stateText,
            "label": attachment.label, "canDownload": attachment.canDownload,
        ]
    }

    /// `{"emoji","count","senderPubkeys","includesMe","label"}` (issue 25).
    static func reaction(_ reaction: ReactionSummary) -> Object {
        [
            "emoji": reaction.emoji, "count": reaction.count, "senderPubkeys": reaction.senderPubkeys,
            "includesMe": reaction.includesMe, "label": reaction.label,
        ]
    }

    /// `{"messageId","isAvailable","senderPubkey","senderDisplay","text"}` (issue 25).
    static func quote(_ quote: ReplyQuote) -> Object {
        [
            "messageId": quote.messageID.rawValue, "isAvailable": quote.isAvailable,
            "senderPubkey": orNull(quote.senderPubkey), "senderDisplay": quote.senderDisplay, "text": quote.text,
        ]
    }

    static func delivery(_ delivery: MessageDeliveryState) -> Object {
        switch delivery {
        case .pending: ["type": "pending"]
        case .sent: ["type": "sent"]
        case .failed(let reason): ["type": "failed", "reason": reason]
        }
    }

    static func network(_ network: NetworkState) -> Object {
        [
            "connectedRelays": network.connectedRelays, "totalRelays": network.totalRelays,
            "keyPackagePublished": orNull(network.keyPackagePublished), "statusText": network.statusText,
            "sync": network.sync.rawValue, "invitesLoaded": network.invitesLoaded, "chatsLoaded": network.chatsLoaded,
            "relays": network.relays.map(relay), "groupRelays": network.groupRelays.map(groupRelay),
            "blossomServers": network.blossomServers, "blossomServersNamed": network.blossomServersNamed,
            "blossomServersLoaded": network.blossomServersLoaded,
        ]
    }

    /// A relay a chat brought (issue 26): `relay(_:)`'s fields plus `chats` (`{"chatId","title"}`)
    /// and `originText`.
    static func groupRelay(_ entry: GroupRelayEntry) -> Object {
        var object = relay(entry.relay)
        object["chats"] = entry.chats.map { ["chatId": $0.chatID.rawValue, "title": $0.title] as Object }
        object["originText"] = entry.originText
        return object
    }

    /// `{"url","connected","state":{"type":"failing","reason"},"lastEventAt","downSince","statusText"}`
    /// (issues 17, 50).
    static func relay(_ relay: RelayEntry) -> Object {
        [
            "url": relay.url, "connected": relay.connected, "state": relayState(relay.state),
            "lastEventAt": orNull(relay.lastEventAt), "downSince": orNull(relay.downSince), "statusText": relay.statusText,
            "auth": relayAuth(relay.auth),
        ]
    }

    /// NIP-42 on the relay's current connection: `{"type":"notAsked"|"authenticated"|"refused","reason"?}`.
    static func relayAuth(_ auth: RelayEntry.Auth) -> Object {
        switch auth {
        case .notAsked: ["type": "notAsked"]
        case .authenticated: ["type": "authenticated"]
        case .refused(let reason): ["type": "refused", "reason": reason]
        }
    }

    static func relayState(_ state: RelayEntry.State) -> Object {
        switch state {
        case .connected: ["type": "connected"]
        case .connecting: ["type": "connecting"]
        case .failing(let reason): ["type": "failing", "reason": reason]
        case .disconnected: ["type": "disconnected"]
        }
    }

    static func invite(_ invite: InviteSummary) -> Object {
        [
            "inviteId": invite.inviteID.rawValue, "inviterNpub": invite.inviterNpub,
            "inviterDisplayName": invite.inviterDisplayName, "groupName": invite.groupName,
            "memberCount": invite.memberCount, "title": invite.title,
            "receivedTimeDisplay": invite.receivedTimeDisplay, "canAnswer": invite.canAnswer,
        ]
    }

    /// The last operation's result: `{"operation":"send_message","code":"relay_unreachable",…}`.
    static func outcome(_ outcome: OperationOutcome) -> Object {
        [
            "operation": outcome.operation.rawValue, "code": outcome.code.rawValue, "message": outcome.message,
            "sequence": Int(truncatingIfNeeded: outcome.sequence),
            // The message an outcome of sendMessage is about (a renderer waits for its own send by it).
            "messageId": orNull(outcome.messageID?.rawValue),
        ]
    }
}
