import Foundation

/// Component 0x8007 `marmot.group.avatar-url.v1`: `url<V> ‖ dim<V> ‖ thumbhash<V>`, an unencrypted
/// picture by address. An empty URL is the absent state and then carries no hints; a present URL is
/// https, at most 2048 bytes, without credentials or fragment, with a host; the hints are opaque
/// bytes of at most 256 each, kept as received (MDK 0.9.14 `traits/src/app_components/avatar_url.rs`).
/// Whether we fetch it is `MediaURLPolicy`'s call, not the component's.
public struct GroupAvatarURL: Hashable, Sendable {
    public static let maxURLBytes = 2048
    public static let maxHintBytes = 256

    public let url: URL
    public let dim: [UInt8]
    public let thumbhash: [UInt8]

    public init(url text: String, dim: [UInt8] = [], thumbhash: [UInt8] = []) throws(GroupImageError) {
        guard !text.isEmpty else { throw .invalidAvatarURL("empty") }
        guard text.utf8.count <= Self.maxURLBytes else { throw .invalidAvatarURL("longer than \(Self.maxURLBytes) bytes") }
        guard dim.count <= Self.maxHintBytes, thumbhash.count <= Self.maxHintBytes else {
            throw .invalidAvatarURL("a hint is longer than \(Self.maxHintBytes) bytes")
        }
        guard let url = URL(string: text), let components = URLComponents(string: text) else {
            throw .invalidAvatarURL("does not parse")
        }
        guard components.scheme == "https" else { throw .invalidAvatarURL("scheme must be https") }
        guard components.user == nil, components.password == nil else { throw .invalidAvatarURL("it carries credentials") }
        guard components.fragment == nil else { throw .invalidAvatarURL("it carries a fragment") }
        guard let host = components.host, !host.isEmpty else { throw .invalidAvatarURL("it has no host") }
        self.url = url
        self.dim = dim
        self.thumbhash = thumbhash
    }

    public var bytes: [UInt8] {
        var out: [UInt8] = []
        QUICVarint.encodeBytes(Array(url.absoluteString.utf8), into: &out)
        QUICVarint.encodeBytes(dim, into: &out)
        QUICVarint.encodeBytes(thumbhash, into: &out)
        return out
    }

    /// The avatar the bytes name, or nil for the absent state.
    public static func decode(_ bytes: [UInt8]) throws(V2ComponentError) -> GroupAvatarURL? {
        var cursor = bytes[...]
        let url = try QUICVarint.decodeBytes(&cursor, maxLength: maxURLBytes, label: "group avatar URL")
        let dim = try QUICVarint.decodeBytes(&cursor, maxLength: maxHintBytes, label: "group avatar dim")
        let thumbhash = try QUICVarint.decodeBytes(&cursor, maxLength: maxHintBytes, label: "group avatar thumbhash")
        guard cursor.isEmpty else { throw .trailingBytes("group avatar") }
        guard let text = String(validating: url, as: UTF8.self) else { throw .notUTF8("group avatar URL") }
        if text.isEmpty {
            guard dim.isEmpty, thumbhash.isEmpty else { throw .invalidGroupImage("an absent avatar carries hints") }
            return nil
        }
        do { return try GroupAvatarURL(url: text, dim: dim, thumbhash: thumbhash) } catch {
            throw .invalidGroupImage("\(error)")
        }
    }
}
