import Foundation

/// An in-memory word index over decrypted messages, for message search (issue 48).
///
/// Why in memory: the at-rest promise (README, security model) is that no message text is on disk
/// unsealed, so a plaintext full-text index (SQLite FTS) is not allowed. The index is built from the
/// store's decrypted messages when first needed and fed new ones as they arrive; it dies with the
/// process. Words are case- and diacritic-folded ("Café" finds "cafe"); every query word must match
/// a word of the message, the last one as a prefix (search as you type).
public struct MessageSearchIndex: Sendable {
    /// One indexed message.
    struct Entry: Sendable {
        var chatID: ChatID
        var messageID: MessageID
        var sender: String
        var createdAt: Int64
        var text: String
        var live: Bool
    }

    private var entries: [Entry] = []
    /// Word → indices into `entries`, ascending.
    private var postings: [String: [Int32]] = [:]
    /// Message → its live entry, so an edit replaces and a deletion removes.
    private var byMessage: [MessageID: Int32] = [:]

    public init() {}

    /// How many messages are indexed.
    public var count: Int { byMessage.count }

    /// Indexes a message, replacing an earlier version of it (an edit).
    public mutating func add(chatID: ChatID, messageID: MessageID, sender: String, createdAt: Int64, text: String) {
        remove(messageID)
        let index = Int32(entries.count)
        entries.append(Entry(chatID: chatID, messageID: messageID, sender: sender, createdAt: createdAt, text: text, live: true))
        byMessage[messageID] = index
        for word in Set(Self.words(of: text)) { postings[word, default: []].append(index) }
    }

    /// Forgets a message (deleted, expired or its chat left); its postings are skipped from then on.
    public mutating func remove(_ messageID: MessageID) {
        guard let old = byMessage.removeValue(forKey: messageID) else { return }
        entries[Int(old)].live = false
    }

    /// Forgets every message of a chat.
    public mutating func removeChat(_ chatID: ChatID) {
        for (index, entry) in entries.enumerated() where entry.live && entry.chatID == chatID {
            entries[index].live = false
            byMessage[entry.messageID] = nil
        }
    }

    /// The messages matching every word of `query`, newest first, at most `limit`; in `chat` only
    /// when given. A query without words matches nothing.
    public func search(_ query: String, chat: ChatID? = nil, limit: Int = 50) -> [SearchHit] {
        let terms = Self.words(of: query)
        guard let last = terms.last, limit > 0 else { return [] }
        // levels[i] counts the query words entry i matched so far, in order: intersection without sets.
        var levels = [UInt8](repeating: 0, count: entries.count)
        var level: UInt8 = 0
        for term in Set(terms.dropLast()) {
            guard let list = postings[term], level < UInt8.max - 1 else { return [] }
            for index in list where levels[Int(index)] == level { levels[Int(index)] = level + 1 }
            level += 1
        }
        var found: [Int32] = []
        for (word, list) in postings where word.hasPrefix(last) {
            for index in list where levels[Int(index)] == level {
                levels[Int(index)] = level + 1
                found.append(index)
            }
        }
        // The newest `limit` matches, kept sorted newest first (no sort of every match).
        var newest: [Entry] = []
        newest.reserveCapacity(limit + 1)
        for index in found {
            let entry = entries[Int(index)]
            guard entry.live, chat == nil || entry.chatID == chat else { continue }
            if newest.count == limit, let oldest = newest.last, !Self.isNewer(entry, than: oldest) { continue }
            let place = newest.firstIndex { Self.isNewer(entry, than: $0) } ?? newest.count
            newest.insert(entry, at: place)
            if newest.count > limit { newest.removeLast() }
        }
        return newest.map {
            SearchHit(
                chatID: $0.chatID, messageID: $0.messageID, sender: $0.sender, createdAt: $0.createdAt,
                snippet: Self.snippet($0.text, around: terms))
        }
    }

    /// Newest first; the message id breaks ties so the order is stable.
    private static func isNewer(_ a: Entry, than b: Entry) -> Bool {
        a.createdAt != b.createdAt ? a.createdAt > b.createdAt : a.messageID.rawValue > b.messageID.rawValue
    }

    /// The folded words of a text: letters and digits, lower case, without diacritics.
    static func words(of text: String) -> [String] {
        if let ascii = asciiWords(of: text) { return ascii }
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
        return folded.split { !($0.isLetter || $0.isNumber) }.map(String.init)
    }

    /// The fast path of `words(of:)` for an ASCII text (folding is then lower-casing); nil otherwise.
    private static func asciiWords(of text: String) -> [String]? {
        var words: [String] = []
        var word: [UInt8] = []
        for byte in text.utf8 {
            guard byte < 0x80 else { return nil }
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): word.append(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): word.append(byte + 32)
            default:
                if !word.isEmpty { words.append(String(decoding: word, as: UTF8.self)); word.removeAll(keepingCapacity: true) }
            }
        }
        if !word.isEmpty { words.append(String(decoding: word, as: UTF8.self)) }
        return words
    }

    /// Up to `snippetLength` characters of one line around the first matching word.
    static func snippet(_ text: String, around terms: [String]) -> String {
        let flat = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        guard flat.count > snippetLength else { return flat }
        let folded = flat.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
        var start = 0
        if folded.count == flat.count, let term = terms.first, let range = folded.range(of: term) {
            start = max(0, folded.distance(from: folded.startIndex, to: range.lowerBound) - snippetLength / 3)
        }
        start = min(start, flat.count - snippetLength)
        let from = flat.index(flat.startIndex, offsetBy: start)
        let body = String(flat[from...].prefix(snippetLength))
        return (start > 0 ? "…" : "") + body + (start + snippetLength < flat.count ? "…" : "")
    }

    static let snippetLength = 80
}
