import Foundation

/// One message found by search (issue 48): where it is, who wrote it, when, and a line of its text.
public struct SearchHit: Sendable, Equatable, Hashable {
    public var chatID: ChatID
    public var messageID: MessageID
    /// The sender as the chat shows them (name or short npub), cleaned by the core.
    public var sender: String
    /// Unix seconds.
    public var createdAt: Int64
    /// Up to 80 characters of the message around the first match, on one line.
    public var snippet: String

    public init(chatID: ChatID, messageID: MessageID, sender: String, createdAt: Int64, snippet: String) {
        self.chatID = chatID
        self.messageID = messageID
        self.sender = sender
        self.createdAt = createdAt
        self.snippet = snippet
    }
}
