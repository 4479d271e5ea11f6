import Foundation

/// The last message search and its results (issue 48), for every renderer's search field.
public struct SearchState: Sendable, Equatable {
    /// The query as the user typed it.
    public var query: String
    /// The chat searched, or nil for all chats.
    public var chatID: ChatID?
    /// Matching messages, newest first.
    public var results: [SearchHit]
    /// True while the index is built from the stored messages (the first search of a session).
    public var searching: Bool
    /// Why the search failed, if it did.
    public var error: String?

    public init(query: String = "", chatID: ChatID? = nil, results: [SearchHit] = [], searching: Bool = false, error: String? = nil) {
        self.query = query
        self.chatID = chatID
        self.results = results
        self.searching = searching
        self.error = error
    }
}
