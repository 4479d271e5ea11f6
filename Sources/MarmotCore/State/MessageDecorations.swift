import Nostr

/// One emoji under a message: how many people reacted with it and who (NIP-25; counted once per
/// person, as MDK 0.9.14 `storage-sqlite/src/timeline.rs` 2910-2922 groups `by_emoji`).
public struct ReactionSummary: Sendable, Equatable {
    public var emoji: String
    /// People who reacted with `emoji`.
    public var count: Int
    /// Their lower-case hex public keys, in the order they reacted.
    public var senderPubkeys: [String]
    /// Whether this account is one of them (the renderer offers to take it back: `AppAction.unreact`).
    public var includesMe: Bool

    public init(emoji: String, count: Int, senderPubkeys: [String], includesMe: Bool) {
        self.emoji = emoji
        self.count = count
        self.senderPubkeys = senderPubkeys
        self.includesMe = includesMe
    }

    /// "👍 2" as the core writes it.
    public var label: String { "\(emoji) \(count)" }
}

/// The message a reply answers, as the reply shows it: a one-line quote, or "message not available"
/// when the target is unknown here (deleted, or older than what was loaded).
public struct ReplyQuote: Sendable, Equatable {
    public var messageID: MessageID
    public var isAvailable: Bool
    /// The quoted author's lower-case hex public key; nil when not available.
    public var senderPubkey: String?
    /// "You" or the author's short npub; empty when not available.
    public var senderDisplay: String
    /// The quoted text on one line, truncated; "message not available" when not available.
    public var text: String

    public init(messageID: MessageID, isAvailable: Bool, senderPubkey: String?, senderDisplay: String, text: String) {
        self.messageID = messageID
        self.isAvailable = isAvailable
        self.senderPubkey = senderPubkey
        self.senderDisplay = senderDisplay
        self.text = text
    }

    /// What a reply shows for a target it cannot find.
    public static let unavailableText = "message not available"
}

/// A message that arrived in this session (received, not composed here), numbered in arrival
/// order across all chats, so a script sees each exactly once even when many arrive at once or
/// during the catch-up (issue 25: `marmot listen`).
public struct ArrivedMessage: Sendable, Equatable {
    /// Grows by one per arrival in the session; never reused.
    public var sequence: UInt64
    public var messageID: MessageID
    public var senderPubkey: String
    public var senderNpub: String
    /// "text", "reaction", "edit", "deletion" (`MessageRole.name`), or "system" for a system line.
    public var kind: String
    /// The inner event's Nostr kind (9, 7, 1009, 5); nil for a system line.
    public var nostrKind: UInt16?
    /// Unix seconds (the message's own time).
    public var timestamp: Int64
    /// What it refers to: the replied, reacted, edited or deleted message.
    public var target: MessageID?
    /// The text, emoji or new text; the core's wording for a system line.
    public var text: String
    /// `text` as one printable line, for line-oriented output (`marmot listen`): a line break in a
    /// message cannot start a forged line.
    public var line: String { UntrustedText.line(text) }
    public var isMine: Bool
    /// The core's time label ("14:05", "Yesterday 09:12").
    public var displayTimestamp: String = ""

    public init(
        sequence: UInt64, messageID: MessageID, senderPubkey: String, senderNpub: String, kind: String,
        nostrKind: UInt16?, timestamp: Int64, target: MessageID?, text: String, isMine: Bool
    ) {
        self.sequence = sequence
        self.messageID = messageID
        self.senderPubkey = senderPubkey
        self.senderNpub = senderNpub
        self.kind = kind
        self.nostrKind = nostrKind
        self.timestamp = timestamp
        self.target = target
        self.text = text
        self.isMine = isMine
    }
}
