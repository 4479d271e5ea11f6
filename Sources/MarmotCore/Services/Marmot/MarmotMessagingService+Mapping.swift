import Foundation
import MLS
import Marmot
import Nostr
import NostrClient

/// Translation between the Marmot layer's records and the core's.
extension MarmotMessagingService {
    /// The core's chat id is the MLS group id in hex (local only; never published, MIP-01).
    static func groupID(_ chatID: ChatID) throws -> GroupID {
        guard let bytes = Hex.decode(chatID.rawValue), !bytes.isEmpty else { throw MarmotMessagingError.unknownChat }
        return GroupID(Data(bytes))
    }

    /// The group id in hex (as `GroupID.description` writes it, without its per-byte `String(format:)`,
    /// which was a tenth of a cold start: every listed message names its chat, issue 27).
    static func chatID(_ groupID: GroupID) -> ChatID { ChatID(Hex.encode(groupID.bytes)) }

    /// A chat as the core lists it, with its newest shown message and its membership; nil for a
    /// group that never had another member.
    func info(_ chat: Chat, client: MarmotClient) async throws -> ChatInfo? {
        let listing = try await client.listing(of: chat)
        guard let listed = listedPeer(listing) else { return nil }
        return try await info(
            listing, listed, peerName: await client.cachedProfile(of: listed.peer)?.shownName, client: client)
    }

    /// Every chat as the core lists it, from one `chatListing` call and one profile lookup (issue
    /// 27: four to five calls to the client per chat were a part of a cold start).
    func infos(client: MarmotClient) async throws -> [ChatInfo] {
        let listings = try await client.chatListing()
        let listed = listings.map(listedPeer)
        let names = await client.cachedProfiles(of: Set(listed.compactMap { $0?.peer }))
        var infos: [ChatInfo] = []
        for (listing, listed) in zip(listings, listed) {
            guard let listed else { continue }
            infos.append(try await info(listing, listed, peerName: names[listed.peer]?.shownName, client: client))
        }
        return infos
    }

    /// Who a listed chat is shown as (`ChatInfo.peer`), its other accounts and whether it holds
    /// earlier notes; nil for a group that never had another member.
    private func listedPeer(_ listing: ChatListing) -> ListedPeer? {
        let chat = listing.chat
        let me = context.keys.publicKey
        // One entry per account, however many devices (leaves) it has (issue 29).
        var seen: Set<PublicKey> = [me]
        let others = chat.members.filter { seen.insert($0).inserted }
        // A group of only this account's devices that is not (or no longer) the Notes chat: notes
        // written before another device linked this one into its Notes chat (issue 29).
        let earlierNotes = !listing.isNotes && chat.peer == nil && chat.name.isEmpty && others.isEmpty && !chat.members.isEmpty
        // A group whose other members are all gone (its admin removed the last one) stays listed,
        // shown under its name, so it can be used again (issue 30: the admin adds them back).
        guard let peer = chat.peer ?? others.first ?? chat.provenPeer
            ?? (chat.name.isEmpty && !listing.isNotes && !earlierNotes ? nil : me)
        else { return nil }
        return ListedPeer(peer: peer, others: others, earlierNotes: earlierNotes)
    }

    private func info(_ listing: ChatListing, _ listed: ListedPeer, peerName: String?, client: MarmotClient) async throws
        -> ChatInfo
    {
        let chat = listing.chat
        var newest: MessageRecord?
        var page = listing.newest
        // Skip rumors the app does not show (reactions, …) to find the preview, in the newest 80:
        // the newest alone first, as it usually is the one (each row read is opened and decoded;
        // 20 per chat were most of a cold start, issue 27).
        for limit in [19, 20, 20, 20, 0] {
            if let shown = page.messages.first(where: { Self.isShown($0) && role(of: $0)?.role ?? .text == .text }),
                let shownRecord = record(shown)
            {
                newest = shownRecord
                break
            }
            guard limit > 0, let next = page.nextCursor else { break }
            page = try await client.messages(in: chat.id, before: next, limit: limit)
        }
        var info = ChatInfo(
            chatID: Self.chatID(chat.id), peer: listed.peer, peerName: peerName, createdAt: chat.createdAt,
            lastMessage: newest, unreadCount: UInt32(clamping: chat.unreadCount), members: listed.others,
            isDirect: chat.peer != nil,
            groupName: listed.earlierNotes ? "Earlier notes (this device)" : UntrustedText.line(chat.name, limit: Self.nameLimit),
            admins: chat.admins, protocolVersion: Self.protocolVersion(chat.version))
        info.isNotes = listing.isNotes
        info.deviceCounts = chat.members.reduce(into: [:]) { $0[$1, default: 0] += 1 }
        info.isMember = chat.status == .active
        info.retentionSeconds = chat.retention
        info.convergence = Self.convergence(listing.convergence)
        info.imageID = chat.image?.blobHex ?? chat.avatarURL?.absoluteString
        if info.imageID != nil { info.imageIsHere = listing.hasImageContent }
        return info
    }

    /// The longest group name shown; a group's name is an admin's free text (MIP-01 `name`).
    static let nameLimit = 100

    /// The core's form of a group's convergence status (issue 24).
    static func convergence(_ status: ConvergenceStatus) -> ChatConvergence {
        switch status {
        case .settled: .settled
        case .syncing(let waiting): .syncing(waiting: waiting)
        case .resolving: .resolving
        case .blocked(let why): .blocked(reason: why)
        }
    }

    /// The core's name for the Marmot version a group speaks.
    static func protocolVersion(_ version: MarmotVersion) -> ChatProtocolVersion {
        switch version {
        case .v1: .v1
        case .v2: .v2
        }
    }

    /// Messages the core hears of: the system lines of membership changes, chat messages, and the
    /// reactions, edits and deletions it applies to them (issue 25). Push-token gossip (447-449),
    /// group system events (1210) and unknown kinds never reach it.
    static func isShown(_ message: StoredMessage) -> Bool {
        guard message.deliveryState != .notice else { return SystemNotice(content: message.content) != nil }
        return [
            MarmotMessageKind.chat, MarmotMessageKind.reaction, MarmotMessageKind.edit, MarmotMessageKind.deletion,
            MarmotMessageKind.adminDeletion,
        ].contains(message.kind.rawValue) || MarmotMessageKind.isCustom(message.kind.rawValue)
    }

    /// The core's record of a stored message; nil for one the core never sees (see `isShown`).
    func record(_ message: StoredMessage) -> MessageRecord? {
        let notice = Self.notice(message)
        var record = MessageRecord(
            id: ids.local(for: message.rumorID), chatID: Self.chatID(message.mlsGroupID), sender: message.sender,
            content: UntrustedText.text(message.content), createdAt: message.createdAt, delivery: delivery(message),
            notice: notice)
        record.invalidated = message.deliveryState == .invalidated
        record.moderated = message.moderationGrant
        record.attachments = Self.attachments(message)
        guard message.deliveryState != .notice else { return notice == nil ? nil : record }
        guard let (role, replyTo) = role(of: message) else { return nil }
        record.role = role
        record.replyTo = replyTo
        if MarmotMessageKind.isCustom(message.kind.rawValue) {
            record.content = Self.customRowText(kind: message.kind.rawValue, content: record.content)
        }
        record.mentions = Self.mentions(message.tags)
        return record
    }

    /// The membership change a system line stands for; nil for a message someone wrote.
    static func notice(_ message: StoredMessage) -> MembershipNotice? {
        guard message.deliveryState == .notice, let notice = SystemNotice(content: message.content) else { return nil }
        let change: MembershipChange =
            switch notice.change {
            case .added: .added
            case .left: .left
            case .renamed: .renamed
            case .promoted: .promoted
            case .demoted: .demoted
            case .readded: .readded
            case .retentionChanged: .retentionChanged
            case .disbanded: .disbanded
            case .pictureChanged: .pictureChanged
            default: .removed
            }
        return MembershipNotice(change: change, actor: notice.actor, subject: notice.subject)
    }

    /// An invitation as the core lists it.
    static func inviteInfo(_ invite: Invite) -> InviteInfo {
        InviteInfo(
            inviteID: InviteID(invite.id.description), inviter: invite.inviter,
            groupName: UntrustedText.line(invite.name, limit: nameLimit),
            memberCount: invite.members.count, receivedAt: invite.receivedAt)
    }

    private func delivery(_ message: StoredMessage) -> MessageDeliveryState {
        switch message.deliveryState {
        case .failed: .failed(reason: MarmotMessagingError.noRelayAccepted)
        // A pending message of an earlier run is in the outbox: `resumeOutbox` is sending it again.
        case .pending: .pending
        case .notice: .sent
        default: .sent
        }
    }

    static func outcome(_ sent: SentMessage) -> DeliveryOutcome {
        sent.publish.isSent ? .sent : .failed(reason: describe(sent.publish))
    }

    /// "No relay accepted the message (ws://a: not connected)": short, names the relays, no content.
    static func describe(_ result: PoolPublishResult) -> String {
        let verdicts = result.failed.sorted { $0.key < $1.key }.map { relay, verdict in
            let why: String =
                switch verdict {
                case .accepted: "accepted"
                case .rejected(let reason): "rejected: \(UntrustedText.line(reason, limit: 200))"
                case .timedOut: "timed out"
                case .notConnected: "not connected"
                }
            return "\(relay): \(why)"
        }
        return verdicts.isEmpty
            ? MarmotMessagingError.noRelayAccepted
            : "\(MarmotMessagingError.noRelayAccepted) (\(verdicts.joined(separator: ", ")))"
    }
}

/// Who a listed chat is shown as, its other accounts, and whether it holds earlier notes.
struct ListedPeer {
    let peer: PublicKey
    let others: [PublicKey]
    let earlierNotes: Bool
}

/// The core's message ids and the Marmot layer's rumor ids.
///
/// A message composed here gets its id from the core before it is encrypted, so the first page or
/// event that mentions its rumor must carry the core's id; any other message (received, or loaded
/// after a restart) is known by its rumor id in hex.
struct LocalMessageIDs {
    private var rumorByLocal: [MessageID: EventID] = [:]
    private var localByRumor: [EventID: MessageID] = [:]

    mutating func bind(_ local: MessageID, to rumor: EventID) {
        rumorByLocal[local] = rumor
        localByRumor[rumor] = local
    }

    /// The rumor bound to a message composed in this session, if any.
    func boundRumor(for local: MessageID) -> EventID? { rumorByLocal[local] }

    func rumor(for local: MessageID) -> EventID? {
        rumorByLocal[local] ?? (try? EventID(hex: local.rawValue))
    }

    func local(for rumor: EventID) -> MessageID {
        localByRumor[rumor] ?? MessageID(rumor.hex)
    }
}

/// Why a messaging call failed, in words the user can read (the core shows them as toasts or
/// failure reasons).
enum MarmotMessagingError: Error, LocalizedError, Equatable {
    case noRelays
    case invalidRelay(String)
    case alreadyStarted
    case notStarted
    case storage(String)
    case unknownChat
    case unknownMessage
    case notOneToOne
    case nothingToRetry
    case noKeyPackage
    case noRelayReachable
    case cannotChatWithSelf
    case chatInactive
    case unknownInvite
    case notAdmin
    case commitPending
    case notPublished(String)
    case other(String)

    static let noRelayAccepted = "No relay accepted the message"

    var errorDescription: String? {
        switch self {
        case .noRelays: "No relay configured"
        case .invalidRelay(let url): "Not a relay address: \(url)"
        case .alreadyStarted: "Messaging was already started"
        case .notStarted: "Messaging is not running"
        case .storage(let why): "Storage failed: \(why)"
        case .unknownChat: "Chat not found"
        case .unknownMessage: "Message not found"
        case .notOneToOne: "That chat has no other member"
        case .nothingToRetry: "Nothing to resend"
        case .noKeyPackage: "No key package found for that npub on your relays; they need a Marmot app first"
        case .noRelayReachable: "No relay is reachable; check the connection and try again"
        case .cannotChatWithSelf: "You cannot start a chat with yourself"
        case .chatInactive: "This chat is no longer active"
        case .unknownInvite: "That invitation is no longer pending"
        case .notAdmin: "Only an admin of this chat can do that"
        case .commitPending: "A previous change to this chat is still being confirmed by the relays; try again shortly"
        case .notPublished(let detail): detail
        case .other(let why): why
        }
    }

    /// Maps the Marmot layer's errors to ones a person can act on.
    static func friendly(_ error: any Error) -> MarmotMessagingError {
        if let error = error as? MarmotMessagingError { return error }
        guard let error = error as? MarmotClientError else {
            if error is CancellationError { return .notStarted }
            return .other("\(error)")
        }
        switch error {
        case .notStarted: return .notStarted
        case .noRelays: return .noRelays
        case .noKeyPackage: return .noKeyPackage
        case .cannotChatWithSelf: return .cannotChatWithSelf
        case .unknownChat: return .unknownChat
        case .unknownMessage: return .unknownMessage
        case .nothingToRetry: return .nothingToRetry
        case .chatInactive: return .chatInactive
        case .unknownInvite: return .unknownInvite
        case .notAdmin: return .notAdmin
        case .commitPending: return .commitPending
        case .notPublished(let result): return .notPublished(MarmotMessagingService.describe(result))
        case .storage(let why): return .storage(why)
        case .mixedProtocolVersions:
            return .other("These people use different Marmot versions (some only v1, some only v2); one group needs one")
        case .unauthorized(let why): return .other("This change is not allowed in this chat: \(why)")
        case .mls, .encoding: return .other("Encryption failed: \(error)")
        case .media(let why): return .other(why)
        }
    }
}

extension MarmotMessagingError: OutcomeCoded {
    /// The stable code of the failure, so the core and the CLI decide without reading its text.
    var outcomeCode: OutcomeCode {
        switch self {
        case .noRelays, .noRelayReachable: .relayUnreachable
        case .invalidRelay: .relayUnreachable
        case .alreadyStarted, .notStarted: .messagingUnavailable
        case .storage: .storageFailed
        case .unknownChat, .notOneToOne: .unknownChat
        case .unknownMessage, .nothingToRetry, .other: .failed
        case .noKeyPackage: .noKeyPackage
        case .cannotChatWithSelf: .ownNpub
        case .chatInactive: .chatInactive
        case .unknownInvite: .unknownInvite
        case .notAdmin: .notAdmin
        case .commitPending: .commitPending
        case .notPublished: .notSent
        }
    }
}
