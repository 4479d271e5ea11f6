/// The parts of an event the store indexes, plus its JSON as served to subscribers.
///
/// Kept free of the `Nostr` types so the storage layer only deals in the strings and integers it
/// writes; `RelayEngine` converts a verified `Event` into this.
struct StoredEvent: Sendable, Hashable {
    /// Lower-case hex event id.
    var id: String
    /// Lower-case hex author key.
    var pubkey: String
    var createdAt: Int64
    var kind: Int
    /// Every tag as its string fields; single-letter tag names are indexed with their first value.
    var tags: [[String]]
    /// The event JSON (NIP-01 object).
    var json: String

    /// NIP-01 kind class, which decides what storing means.
    var storageClass: StorageClass { StorageClass(kind: kind) }

    /// The `d` tag value identifying an addressable event ("" when absent, per NIP-01).
    var dTag: String {
        tags.first(where: { $0.first == "d" && $0.count > 1 })?[1] ?? ""
    }

    /// Single-letter tag names (a–z, A–Z) with their first value: what `#x` filters match on.
    var indexedTags: [(name: String, value: String)] {
        tags.compactMap { tag in
            guard tag.count > 1, let name = tag.first, StoredEvent.isIndexableTagName(name) else { return nil }
            return (name, tag[1])
        }
    }

    static func isIndexableTagName(_ name: String) -> Bool {
        guard name.utf8.count == 1, let c = name.utf8.first else { return false }
        return (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
    }
}

/// NIP-01 kind ranges as they matter to storage.
enum StorageClass: Sendable, Equatable {
    case regular
    /// 0, 3, 10000–19999: newest per (pubkey, kind).
    case replaceable
    /// 20000–29999: broadcast, never stored.
    case ephemeral
    /// 30000–39999: newest per (pubkey, kind, `d`).
    case addressable

    init(kind: Int) {
        switch kind {
        case 0, 3, 10000..<20000: self = .replaceable
        case 20000..<30000: self = .ephemeral
        case 30000..<40000: self = .addressable
        default: self = .regular
        }
    }
}

/// What happened to an event handed to the store.
enum StoreOutcome: Sendable, Equatable {
    /// Stored; `replaced` lists the ids of older versions it superseded.
    case stored(replaced: [String])
    /// The same id is already stored.
    case duplicate
    /// A replaceable/addressable event newer than this one (or as new with a lower id) is stored.
    case outdated
    /// Storing it would take the stored event JSON over `limit` bytes.
    case quotaExceeded(limit: Int64)
}

/// One NIP-01 filter in storage terms. `nil` lists are unconstrained; an empty list matches nothing.
struct StorageQuery: Sendable, Equatable {
    var ids: [String]?
    var authors: [String]?
    var kinds: [Int]?
    /// Single-letter tag name → accepted values.
    var tags: [String: [String]] = [:]
    var since: Int64?
    var until: Int64?
    /// Already clamped by the caller.
    var limit: Int

    /// True when some list is empty, so nothing can match.
    var isUnsatisfiable: Bool {
        if let since, let until, since > until { return true }
        return ids?.isEmpty == true || authors?.isEmpty == true || kinds?.isEmpty == true
            || tags.values.contains(where: \.isEmpty) || limit <= 0
    }
}

/// One row of a query answer.
struct QueriedEvent: Sendable, Hashable {
    var id: String
    var createdAt: Int64
    var kind: Int
    var json: String
}
