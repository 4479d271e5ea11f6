import Nostr

/// One row of the chat list, with its display strings already computed by the core.
public struct ChatSummary: Sendable, Equatable, Identifiable {
    public var chatID: ChatID
    public var peerNpub: String
    public var peerName: String?
    /// Raw text of the newest message, for copy or accessibility; render `lastMessagePreview`.
    public var lastMessage: String?
    /// Unix seconds of the newest message.
    public var lastMessageAt: Int64?
    public var unreadCount: UInt32
    /// The peer's name, else a shortened npub such as `npub1abcd…wxyz`.
    public var displayName: String
    /// One line, truncated, prefixed with "You: " for own messages; "No messages yet" when empty.
    public var lastMessagePreview: String
    /// Relative time of the newest message ("14:05", "Yesterday", "Mon", "Mar 4"); empty when none.
    public var lastMessageTimeDisplay: String
    /// False for a proven 1:1 chat; true for a group, or a chat whose peer left or that grew.
    public var isGroup: Bool
    /// Members including this account.
    public var memberCount: Int
    /// What the newest message is (a text or a system line); nil without a message.
    public var lastMessageKind: ChatMessageKind?
    /// The Marmot protocol version the chat speaks.
    public var protocolVersion: ChatProtocolVersion
    /// The core's small badge for `protocolVersion` ("Marmot v2"), shown in the row.
    public var protocolLabel: String { DisplayFormatter.protocolLabel(protocolVersion) }
    /// False once this account left or was removed: the row stays, readable, and is marked.
    public var isMember: Bool = true
    /// The group's admins' npubs (as in `ChatViewState.adminNpubs`).
    public var adminNpubs: [String] = []
    /// The core's mark for a chat we are no longer in ("left"); nil while we are a member.
    public var membershipLabel: String? { DisplayFormatter.membershipLabel(isMember: isMember) }
    /// How long messages live, in seconds; 0 keeps them (disappearing messages, v2 only).
    public var retentionSeconds: UInt64 = 0
    /// Whether the group has settled on one history after competing changes (issue 24).
    public var convergence: ChatConvergence = .settled
    /// Why the chat is not settled, in words; nil when it is.
    public var convergenceLabel: String? { DisplayFormatter.convergenceLabel(convergence) }
    /// The status in one word for a tight header ("syncing", "resolving", "blocked"); nil when settled.
    public var convergenceBadge: String? { convergence == .settled ? nil : convergence.code }
    /// This account's Notes chat (issue 29): shown first, titled "Notes", no peer.
    public var isNotes = false
    /// The last messages that arrived in this chat this session (at most
    /// `ChatSummary.arrivalsKept`), oldest first, each numbered (`ArrivedMessage.sequence`): a script
    /// reading every update prints each message once.
    public var recentArrivals: [ArrivedMessage] = []
    /// The group picture's state (`MarmotApp.chatImageData` gives its bytes once available).
    public var image: ChatImageState = .none
    /// How many arrivals a chat row keeps.
    public static let arrivalsKept = 64
    /// Muted now (issue 48): the unread count stays, but the chat never asks for attention.
    public var isMuted = false
    /// When a timed mute ends (Unix seconds); nil when not muted or muted for good.
    public var mutedUntil: Int64?
    /// Left out of `AppState.inboxChats` (issue 48); it comes back when a message arrives while not muted.
    public var isArchived = false
    /// Whether the row asks for attention (bold, badge): unread messages in a chat that is not muted.
    public var asksForAttention: Bool { unreadCount > 0 && !isMuted }
    /// The core's mark for a muted chat ("muted", "muted until 14:05"); nil when not muted.
    public var muteLabel: String?

    public var id: ChatID { chatID }

    public init(
        chatID: ChatID, peerNpub: String, peerName: String?, lastMessage: String?, lastMessageAt: Int64?,
        unreadCount: UInt32, displayName: String, lastMessagePreview: String, lastMessageTimeDisplay: String,
        isGroup: Bool = false, memberCount: Int = 2, lastMessageKind: ChatMessageKind? = nil,
        protocolVersion: ChatProtocolVersion = .v1
    ) {
        self.protocolVersion = protocolVersion
        self.lastMessageKind = lastMessageKind ?? (lastMessage == nil ? nil : .text)
        self.isGroup = isGroup
        self.memberCount = memberCount
        self.chatID = chatID
        self.peerNpub = peerNpub
        self.peerName = peerName
        self.lastMessage = lastMessage
        self.lastMessageAt = lastMessageAt
        self.unreadCount = unreadCount
        self.displayName = displayName
        self.lastMessagePreview = lastMessagePreview
        self.lastMessageTimeDisplay = lastMessageTimeDisplay
    }
}

/// The open chat: present exactly when the top screen is `.chat` of a known chat.
public struct ChatViewState: Sendable, Equatable {
    public var chatID: ChatID
    /// This account's Notes chat (issue 29): its devices only; renderers show `DevicesState.historyNotice`.
    public var isNotes = false
    public var peerNpub: String
    public var peerName: String?
    public var displayName: String
    /// The loaded window of the conversation, oldest first.
    public var messages: [ChatMessage]
    /// Whether older history exists beyond the loaded window: the UI offers `AppAction.loadOlder`.
    public var canLoadOlder: Bool
    /// True while an older page is being read (the "load older" affordance shows a spinner).
    public var isLoadingOlder: Bool
    /// False for a proven 1:1 chat (see `ChatSummary.isGroup`).
    public var isGroup: Bool
    /// The other current members' npubs, one per account (empty when everyone else left).
    public var memberNpubs: [String]
    /// Every current member account, this one first, with how many devices it has in the chat
    /// (issue 29: one person with N devices is one entry).
    public var members: [ChatMemberEntry] = []
    /// Members including this account.
    public var memberCount: Int
    /// The group's admins' npubs.
    public var adminNpubs: [String] = []
    /// Whether this account may add, remove, rename and change admins (it is an admin).
    public var canManage: Bool = false
    /// The Marmot protocol version the chat speaks (see `ChatSummary.protocolVersion`).
    public var protocolVersion: ChatProtocolVersion = .v1
    /// The core's small badge for `protocolVersion` ("Marmot v2"), shown in the chat header.
    public var protocolLabel: String { DisplayFormatter.protocolLabel(protocolVersion) }
    /// False once this account left or was removed: history stays readable, nothing can be sent.
    public var isMember: Bool = true
    /// The core's mark for a chat we are no longer in ("left"); nil while we are a member.
    public var membershipLabel: String? { DisplayFormatter.membershipLabel(isMember: isMember) }
    /// How long messages live, in seconds; 0 keeps them (disappearing messages, v2 only).
    public var retentionSeconds: UInt64 = 0
    /// Whether the group has settled on one history after competing changes (issue 24).
    public var convergence: ChatConvergence = .settled
    /// Why the chat is not settled, in words; nil when it is.
    public var convergenceLabel: String? { DisplayFormatter.convergenceLabel(convergence) }
    /// The status in one word for a tight header ("syncing", "resolving", "blocked"); nil when settled.
    public var convergenceBadge: String? { convergence == .settled ? nil : convergence.code }
    /// The group picture's state, shown in the header (`MarmotApp.chatImageData` gives its bytes).
    public var image: ChatImageState = .none
    /// Muted now (see `ChatSummary.isMuted`).
    public var isMuted = false
    /// Archived (see `ChatSummary.isArchived`).
    public var isArchived = false
    /// A 1:1 chat with someone this account blocked (issue 48): nothing can be sent there.
    public var peerBlocked = false
    /// What the header says of disappearing messages ("Messages disappear after 1 day"); nil when off.
    public var retentionLabel: String? { DisplayFormatter.retentionLabel(seconds: retentionSeconds) }

    public init(
        chatID: ChatID, peerNpub: String, peerName: String?, displayName: String, messages: [ChatMessage],
        canLoadOlder: Bool, isGroup: Bool = false, memberNpubs: [String] = [], isLoadingOlder: Bool = false,
        memberCount: Int? = nil
    ) {
        self.isLoadingOlder = isLoadingOlder
        self.memberCount = memberCount ?? (memberNpubs.count + 1)
        self.isGroup = isGroup
        self.memberNpubs = memberNpubs
        self.chatID = chatID
        self.peerNpub = peerNpub
        self.peerName = peerName
        self.displayName = displayName
        self.messages = messages
        self.canLoadOlder = canLoadOlder
    }

    /// Whether `draft` may be sent: we are still a member and it has something besides whitespace
    /// (the core trims it).
    public func canSend(draft: String) -> Bool {
        isMember && !peerBlocked && !draft.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
    }

    /// Whether the newest page of the chat has been read (history is shown as far as loaded).
    public var isLoaded = false

    /// Whether the UI should ask for older messages now that `messageID` is shown (it is the oldest
    /// loaded one, more exist and no page is in flight): the rule for infinite scroll.
    public func shouldLoadOlder(whenShowing messageID: MessageID) -> Bool {
        canLoadOlder && !isLoadingOlder && messages.first?.id == messageID
    }
}

/// One message bubble.
public struct ChatMessage: Sendable, Equatable, Identifiable {
    public var id: MessageID
    /// Lower-case hex public key of the author.
    public var senderPubkey: String
    public var content: String
    /// `content` as one printable line, for line-oriented output (`marmot messages`): a line
    /// break in a message cannot start a forged line.
    public var line: String { UntrustedText.line(content) }
    /// Unix seconds.
    public var timestamp: Int64
    public var isMine: Bool
    public var delivery: MessageDeliveryState
    /// Time label computed by the core ("14:05", "Yesterday 09:12", "Mar 4, 18:30").
    public var displayTimestamp: String
    /// A text message, or a system line (membership change) whose `content` is the core's wording.
    public var kind: ChatMessageKind
    /// Someone else's message from a branch of the group that lost to a competing change: the
    /// other members never had it (issue 24).
    public var isInvalidated = false
    /// What renderers show beside such a message; nil for every other message.
    public var invalidatedLabel: String? { isInvalidated ? DisplayFormatter.invalidatedLabel : nil }
    /// Reactions under the message, one per emoji, in the order they first appeared.
    public var reactions: [ReactionSummary] = []
    /// Whether the author edited it (`content` is then the newest text).
    public var isEdited = false
    /// For a reply: the quoted message.
    public var replyTo: ReplyQuote?
    /// Hex public keys the message mentions (`p` tags), for highlighting.
    public var mentionedPubkeys: [String] = []
    /// Whether it mentions this account.
    public var mentionsMe = false
    /// Pictures and files it carries, each with its state on this device (MIP-04).
    public var attachments: [ChatAttachment] = []
    /// From someone this account blocked (issue 48): shown collapsed, `content` is the core's
    /// "blocked" line instead of their text, and it has no reactions, quote or files.
    public var isBlocked = false

    /// "edited" after the time of an edited message; empty otherwise.
    public var editedMark: String { isEdited ? "edited" : "" }

    /// Whether this account may edit or delete it (`AppAction.editMessage`, `.deleteMessage`): its own text.
    public var canModify: Bool { isMine && kind == .text }
    /// Whether this account may delete it (`AppAction.deleteMessage`): its own text, or any text
    /// where this account holds the moderation grant (`ChatInfo.grantsModeration(to:)`).
    public var canDelete = false

    /// What to show after the time of an own message: "sending…", "✓", "✗ not sent"; empty for
    /// received messages and system lines.
    public var deliveryMark: String {
        DisplayFormatter.deliveryMark(delivery, isMine: isMine, kind: kind)
    }

    /// Why an own message was not sent; nil otherwise.
    public var failureReason: String? {
        guard isMine, case .failed(let reason) = delivery else { return nil }
        return reason
    }

    /// Whether `AppAction.retryMessage` applies: an own text message that failed.
    public var canRetry: Bool { kind == .text && failureReason != nil }

    public init(
        id: MessageID, senderPubkey: String, content: String, timestamp: Int64, isMine: Bool,
        delivery: MessageDeliveryState, displayTimestamp: String, kind: ChatMessageKind = .text
    ) {
        self.kind = kind
        self.id = id
        self.senderPubkey = senderPubkey
        self.content = content
        self.timestamp = timestamp
        self.isMine = isMine
        self.delivery = delivery
        self.displayTimestamp = displayTimestamp
    }
}

/// Where an outgoing message stands; received messages are always `sent`.
public enum MessageDeliveryState: Sendable, Equatable {
    case pending
    case sent
    case failed(reason: String)
}

/// Which Marmot protocol version a chat speaks (issue 18). Each group keeps the version it was made
/// with (v1: MIP-00..03 as MDK 0.8.0; v2: the current profile), and the two cannot talk to each
/// other, so the chat list and header show it.
public enum ChatProtocolVersion: String, Sendable, Equatable, Hashable, CaseIterable {
    case v1
    case v2
}

/// What a chat line is: a message someone wrote, or a system line the core wrote about the chat.
public enum ChatMessageKind: Sendable, Equatable {
    case text
    /// "npub1… added npub1…", "npub1… left": rendered centred, without bubble or delivery mark.
    case system
}

/// One pending invitation in the chat list, display strings computed by the core.
public struct InviteSummary: Sendable, Equatable, Identifiable {
    public var inviteID: InviteID
    public var inviterNpub: String
    /// The inviter's name when known, else the short npub.
    public var inviterDisplayName: String
    /// The group's name; empty when unnamed (a 1:1 invitation usually is).
    public var groupName: String
    /// Members including this account.
    public var memberCount: Int
    /// "npub1abcd…wxyz invites you to a chat" or "… to “Name” (3 members)".
    public var title: String
    public var receivedTimeDisplay: String
    /// False while an answer to it is in flight (its buttons show a spinner instead).
    public var canAnswer: Bool

    public var id: InviteID { inviteID }

    public init(
        inviteID: InviteID, inviterNpub: String, inviterDisplayName: String, groupName: String, memberCount: Int,
        title: String, receivedTimeDisplay: String, canAnswer: Bool = true
    ) {
        self.canAnswer = canAnswer
        self.inviteID = inviteID
        self.inviterNpub = inviterNpub
        self.inviterDisplayName = inviterDisplayName
        self.groupName = groupName
        self.memberCount = memberCount
        self.title = title
        self.receivedTimeDisplay = receivedTimeDisplay
    }
}

/// One member account of a chat and its devices in it (issue 29).
public struct ChatMemberEntry: Sendable, Equatable, Identifiable {
    public var npub: String
    /// The account's leaves in the group (each device of an account is its own MLS member).
    public var deviceCount: Int
    public var isMe: Bool
    public var isAdmin: Bool
    public var id: String { npub }

    /// "2 devices" for more than one, else nil.
    public var devicesLabel: String? { deviceCount > 1 ? "\(deviceCount) devices" : nil }

    public init(npub: String, deviceCount: Int, isMe: Bool, isAdmin: Bool) {
        self.npub = npub
        self.deviceCount = deviceCount
        self.isMe = isMe
        self.isAdmin = isAdmin
    }
}
