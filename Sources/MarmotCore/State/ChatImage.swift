import Foundation
import Marmot

/// Where a chat's group picture stands on this device (v1 image fields, v2 0x8002); the core owns
/// it and fetches the picture by itself when the group names a new one; renderers only show it and
/// get its bytes from `MarmotApp.chatImageData`.
public enum ChatImageState: Sendable, Equatable {
    /// The group has no picture.
    case none
    /// Being downloaded and decrypted.
    case loading
    /// On this device: `MarmotApp.chatImageData` returns its bytes at once.
    case available
    /// The download or the checks failed (hash, size, key); the reason says which.
    case failed(reason: String)

    /// The state's name in the JSON contract and scripts' output.
    public var name: String {
        switch self {
        case .none: "none"
        case .loading: "loading"
        case .available: "available"
        case .failed: "failed"
        }
    }

    /// Why it failed; nil unless failed.
    public var reason: String? {
        if case .failed(let reason) = self { return reason }
        return nil
    }

    /// The core's short mark for text renderers ("picture", "picture loading", "picture failed");
    /// nil when the group has none.
    public var label: String? {
        switch self {
        case .none: nil
        case .loading: "picture loading"
        case .available: "picture"
        case .failed: "picture failed"
        }
    }

    /// The media type a group picture's bytes are (PNG, JPEG, GIF or WebP), or nil: what a
    /// renderer serves or draws it as (the messaging layer checked the format when it was set).
    public static func mediaType(of data: Data) -> String? { GroupImageFormat.sniff(data)?.mediaType }

    /// Whether the group names a picture at all.
    public var isSet: Bool { self != .none }
}
