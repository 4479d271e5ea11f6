import Foundation
import Nostr

/// Someone's public profile (NIP-01 kind 0): the name shown for them instead of their npub.
///
/// Names are untrusted text from strangers: `name` and `displayName` are sanitized (control and
/// formatting characters dropped, whitespace collapsed, at most `maxLength` characters) and a name
/// that looks like an npub is refused, so nobody can pose as another key in a chat list.
public struct Profile: Sendable, Hashable {
    public static let maxLength = 64

    public var name: String?
    public var displayName: String?
    /// The `picture` URL as given (http/https only); never fetched by the core.
    public var picture: String?
    /// The kind-0 event's created_at, to keep the newest.
    public var updatedAt: Int64

    public init(name: String? = nil, displayName: String? = nil, picture: String? = nil, updatedAt: Int64) {
        self.name = name.flatMap(Self.sanitize)
        self.displayName = displayName.flatMap(Self.sanitize)
        self.picture = picture.flatMap(Self.sanitizePicture)
        self.updatedAt = updatedAt
    }

    /// Reads a kind-0 event's JSON content; nil for anything that is not a JSON object.
    public init?(event: Event) {
        guard event.kind == .metadata, let object = (try? JSONValue.parse(event.content))?.objectValue else { return nil }
        self.init(
            name: object["name"]?.stringValue, displayName: object["display_name"]?.stringValue,
            picture: object["picture"]?.stringValue, updatedAt: event.createdAt)
    }

    /// What to show: the display name, else the name; nil when neither is usable.
    public var shownName: String? { displayName ?? name }

    /// One line of at most `maxLength` printable characters, or nil when nothing usable is left or
    /// the text poses as a Nostr key (`npub1…`, `nprofile1…`, 64 hex characters).
    public static func sanitize(_ raw: String) -> String? {
        let printable = raw.unicodeScalars.map { $0.properties.isWhitespace ? " " : $0 }.filter { scalar in
            switch scalar.properties.generalCategory {
            case .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator, .paragraphSeparator: false
            default: true
            }
        }
        let text = String(String.UnicodeScalarView(printable))
            .split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        guard !text.isEmpty else { return nil }
        let lowered = text.lowercased()
        if lowered.hasPrefix("npub1") || lowered.hasPrefix("nprofile1") || lowered.contains("npub1") { return nil }
        if text.count >= 32, text.allSatisfy(\.isHexDigit) { return nil }
        return String(text.prefix(maxLength))
    }

    private static func sanitizePicture(_ raw: String) -> String? {
        guard raw.count <= 2_048, let url = URL(string: raw), let scheme = url.scheme?.lowercased(),
              scheme == "https" || scheme == "http"
        else { return nil }
        return raw
    }

    /// The kind-0 content for `name` (our own profile), keeping every other field of `existing`, the
    /// newest kind-0 content we published (from any client): a name change must not erase the
    /// picture, about, nip05, lud16 or anything else set elsewhere (v2 conformance review N7). An
    /// `existing` that is not a JSON object is replaced.
    public static func content(name: String, existing: String? = nil) -> String {
        var object = existing.flatMap { try? JSONValue.parse($0) }?.objectValue ?? [:]
        object["name"] = .string(name)
        object["display_name"] = .string(name)
        return JSONValue.object(object).jsonString
    }

    /// A compact encoding for the store's cache.
    package func encoded() -> Data {
        var parts: [String: JSONValue] = ["updated_at": .string(String(updatedAt))]
        if let name { parts["name"] = .string(name) }
        if let displayName { parts["display_name"] = .string(displayName) }
        if let picture { parts["picture"] = .string(picture) }
        return Data(JSONValue.object(parts).jsonString.utf8)
    }

    package init?(encoded data: Data) {
        guard let object = (try? JSONValue.parse(utf8: data))?.objectValue,
              let updated = object["updated_at"]?.stringValue.flatMap({ Int64($0) })
        else { return nil }
        self.init(
            name: object["name"]?.stringValue, displayName: object["display_name"]?.stringValue,
            picture: object["picture"]?.stringValue, updatedAt: updated)
    }
}
