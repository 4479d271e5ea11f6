import Foundation
import Nostr

/// The `key value` entries of an `imeta` tag (NIP-92): each entry after `imeta` is split at its
/// first space; fields that must appear once are collected with `once`.
struct ImetaFields {
    private(set) var values: [String: String] = [:]

    /// Records `value` for `key`; a second occurrence is refused (first-wins and last-wins readers
    /// would disagree on what is authenticated).
    mutating func once(_ key: String, _ value: String) throws(MediaError) {
        guard values[key] == nil else { throw .duplicateField(key) }
        values[key] = value
    }

    subscript(key: String) -> String? { values[key] }

    /// The value of a required field.
    func required(_ key: String) throws(MediaError) -> String {
        guard let value = values[key] else { throw .missingField(key) }
        return value
    }

    /// The entries after `imeta`, split at the first space (nil value: no space).
    static func entries(_ tag: [String]) throws(MediaError) -> [(key: String, value: String?)] {
        guard tag.first == "imeta" else { throw .notImeta }
        return tag.dropFirst().map { entry in
            guard let space = entry.firstIndex(of: " ") else { return (entry, nil) }
            return (String(entry[..<space]), String(entry[entry.index(after: space)...]))
        }
    }

    /// Hex of exactly `count` bytes (either case, as MDK's `hex::decode`).
    static func hex(_ text: String, field: String, count: Int) throws(MediaError) -> Data {
        guard text.utf8.count == count * 2, let bytes = Hex.decode(text, allowUppercase: true) else {
            throw .invalidField(field, "must be \(count * 2) hex characters (\(count) bytes)")
        }
        return Data(bytes)
    }
}
