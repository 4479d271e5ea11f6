/// A NIP-01 subscription filter.
///
/// Conditions inside one filter are ANDed; values inside one list are ORed. A present but empty list
/// matches nothing. `limit` affects only the initial query, not `matches(_:)`. Unknown JSON members
/// are ignored when decoding (except `search`, NIP-50, which is kept).
public struct Filter: Sendable, Hashable {
    public var ids: [EventID]?
    public var authors: [PublicKey]?
    public var kinds: [Kind]?
    /// `#<letter>` conditions: the event must have a tag with that single-letter name whose first value
    /// is in the list. Keys are single ASCII letters (a–z, A–Z).
    public var tags: [Character: [String]]
    /// Inclusive lower bound on `created_at`.
    public var since: Int64?
    /// Inclusive upper bound on `created_at`.
    public var until: Int64?
    /// Maximum number of stored events to return initially.
    public var limit: Int?
    /// NIP-50 full-text query (not used by `matches`).
    public var search: String?

    public init(ids: [EventID]? = nil, authors: [PublicKey]? = nil, kinds: [Kind]? = nil,
                tags: [Character: [String]] = [:], since: Int64? = nil, until: Int64? = nil,
                limit: Int? = nil, search: String? = nil) {
        self.ids = ids
        self.authors = authors
        self.kinds = kinds
        self.tags = tags
        self.since = since
        self.until = until
        self.limit = limit
        self.search = search
    }

    /// True when `event` satisfies every condition of the filter.
    public func matches(_ event: Event) -> Bool {
        if let ids, !ids.contains(event.id) { return false }
        if let authors, !authors.contains(event.pubkey) { return false }
        if let kinds, !kinds.contains(event.kind) { return false }
        if let since, event.createdAt < since { return false }
        if let until, event.createdAt > until { return false }
        for (letter, values) in tags {
            let name = String(letter)
            let found = event.tags.contains { tag in
                guard tag.name == name, let v = tag.value else { return false }
                return values.contains(v)
            }
            if !found { return false }
        }
        return true
    }

    /// True when the filter can match some event (no present-but-empty list, `since ≤ until`, `limit ≠ 0`).
    public var canMatch: Bool {
        if ids?.isEmpty == true || authors?.isEmpty == true || kinds?.isEmpty == true { return false }
        if tags.values.contains(where: \.isEmpty) { return false }
        if let since, let until, since > until { return false }
        return limit != 0
    }
}

// MARK: JSON

extension Filter {
    /// Parses a filter from JSON text.
    public init(json: String) throws {
        let value: JSONValue
        do { value = try JSONValue.parse(json) } catch { throw RelayMessageError.malformed("filter: \(error)") }
        try self.init(jsonValue: value)
    }

    /// Builds a filter from a parsed JSON object; ids and authors must be 64 lower-case hex characters.
    public init(jsonValue: JSONValue) throws {
        guard let object = jsonValue.objectValue else { throw RelayMessageError.malformed("filter is not an object") }
        self.init()
        for (key, value) in object {
            switch key {
            case "ids":
                ids = try Self.strings(value, key).map { hex in
                    do { return try EventID(hex: hex) } catch { throw RelayMessageError.malformed("filter ids: \(hex.debugDescription) is not an event id") }
                }
            case "authors":
                authors = try Self.strings(value, key).map { hex in
                    do { return try PublicKey(hex: hex) } catch { throw RelayMessageError.malformed("filter authors: \(hex.debugDescription) is not a public key") }
                }
            case "kinds":
                guard let list = value.arrayValue else { throw RelayMessageError.malformed("filter kinds must be an array") }
                kinds = try list.map { item in
                    guard let n = item.int64Value, let k = UInt16(exactly: n) else {
                        throw RelayMessageError.malformed("filter kinds must be integers in 0...65535")
                    }
                    return Kind(rawValue: k)
                }
            case "since": since = try Self.timestamp(value, key)
            case "until": until = try Self.timestamp(value, key)
            case "limit":
                guard let n = value.int64Value, n >= 0, let i = Int(exactly: n) else {
                    throw RelayMessageError.malformed("filter limit must be a non-negative integer")
                }
                limit = i
            case "search":
                guard let s = value.stringValue else { throw RelayMessageError.malformed("filter search must be a string") }
                search = s
            default:
                if let letter = Self.tagLetter(key) {
                    tags[letter] = try Self.strings(value, key)
                }
            }
        }
    }

    /// The letter of a `#x` key, or nil when the key is not a single-letter tag filter.
    static func tagLetter(_ key: String) -> Character? {
        let u = Array(key.utf8)
        guard u.count == 2, u[0] == UInt8(ascii: "#") else { return nil }
        let c = u[1]
        guard (c >= 65 && c <= 90) || (c >= 97 && c <= 122) else { return nil }
        return Character(Unicode.Scalar(c))
    }

    private static func strings(_ value: JSONValue, _ key: String) throws -> [String] {
        guard let list = value.arrayValue else { throw RelayMessageError.malformed("filter \(key) must be an array") }
        return try list.map {
            guard let s = $0.stringValue else { throw RelayMessageError.malformed("filter \(key) must contain strings") }
            return s
        }
    }

    private static func timestamp(_ value: JSONValue, _ key: String) throws -> Int64 {
        guard let n = value.int64Value else { throw RelayMessageError.malformed("filter \(key) must be an integer") }
        return n
    }

    /// Compact JSON text.
    public var jsonString: String {
        var w = JSONWriter()
        write(to: &w)
        return w.string
    }

    /// Appends the filter as a JSON object with a fixed member order (tag filters sorted by letter).
    public func write(to w: inout JSONWriter) {
        var first = true
        w.byte(UInt8(ascii: "{"))
        if let ids { w.key("ids", first: &first); w.stringArray(ids.map(\.hex)) }
        if let authors { w.key("authors", first: &first); w.stringArray(authors.map(\.hex)) }
        if let kinds {
            w.key("kinds", first: &first)
            w.byte(UInt8(ascii: "["))
            for (i, k) in kinds.enumerated() {
                if i > 0 { w.byte(UInt8(ascii: ",")) }
                w.integer(k.rawValue)
            }
            w.byte(UInt8(ascii: "]"))
        }
        for letter in tags.keys.sorted() {
            w.key("#" + String(letter), first: &first)
            w.stringArray(tags[letter] ?? [])
        }
        if let since { w.key("since", first: &first); w.integer(since) }
        if let until { w.key("until", first: &first); w.integer(until) }
        if let limit { w.key("limit", first: &first); w.integer(limit) }
        if let search { w.key("search", first: &first); w.string(search) }
        w.byte(UInt8(ascii: "}"))
    }
}

extension Filter: Codable {
    public init(from decoder: Decoder) throws {
        try self.init(jsonValue: try JSONValue(from: decoder))
    }

    public func encode(to encoder: Encoder) throws {
        try JSONValue.parse(jsonString).encode(to: encoder)
    }
}
