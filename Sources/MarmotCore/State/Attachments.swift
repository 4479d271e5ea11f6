import Foundation

/// A picture or file a message carries, as the messaging layer read it from the message's checked
/// `imeta` reference (MIP-04): what renderers may show before anything is downloaded.
public struct AttachmentInfo: Sendable, Equatable {
    /// The file's name, reduced to a safe base name by the messaging layer.
    public var filename: String
    /// Canonical MIME type ("image/jpeg").
    public var mimeType: String
    /// Plaintext size in bytes, when the sender gave it.
    public var size: Int?
    /// Pixel size of a picture, when the sender gave it.
    public var width: Int?
    public var height: Int?
    /// Whether the file's content is on this device (sent from here, or downloaded).
    public var isHere: Bool

    public init(filename: String, mimeType: String, size: Int?, width: Int? = nil, height: Int? = nil, isHere: Bool) {
        self.filename = filename
        self.mimeType = mimeType
        self.size = size
        self.width = width
        self.height = height
        self.isHere = isHere
    }

    /// Whether renderers draw it as a picture.
    public var isImage: Bool { mimeType.hasPrefix("image/") }
}

/// Where one attachment stands on this device; the core owns it, renderers only show it.
public enum AttachmentState: Sendable, Equatable {
    /// Ours, waiting for its upload (the message is pending).
    case uploading
    /// Its upload failed; the message's Retry uploads it again.
    case uploadFailed(reason: String)
    /// On its server, not downloaded (`AppAction.downloadAttachment` fetches it).
    case remote
    case downloading
    /// On this device: `MarmotApp.attachmentData` returns its bytes at once.
    case available
    /// The download or decryption failed; downloading again may work (the reason says).
    case failed(reason: String)

    /// The state's name in the JSON contract and scripts' output.
    public var name: String {
        switch self {
        case .uploading: "uploading"
        case .uploadFailed: "upload_failed"
        case .remote: "remote"
        case .downloading: "downloading"
        case .available: "available"
        case .failed: "failed"
        }
    }

    /// Why it failed; nil unless failed.
    public var reason: String? {
        switch self {
        case .uploadFailed(let reason), .failed(let reason): reason
        default: nil
        }
    }
}

/// One attachment of a shown message.
public struct ChatAttachment: Sendable, Equatable {
    /// Its position in the message (what `downloadAttachment` and `attachmentData` take).
    public var index: Int
    public var filename: String
    public var mimeType: String
    public var size: Int?
    public var width: Int?
    public var height: Int?
    public var isImage: Bool
    public var state: AttachmentState
    /// "photo.jpg · image/jpeg · 1.2 MB", as the core words it.
    public var label: String
    /// While uploading: how much has gone to the server, in whole percent (nil until it starts).
    public var progress: Int?
    /// What renderers print after the label: "", "uploading 42%", "upload failed", "downloading"...
    public var stateText: String {
        switch state {
        case .available, .remote: ""
        case .uploading: progress.map { "uploading \($0)%" } ?? "uploading"
        default: state.name.replacingOccurrences(of: "_", with: " ")
        }
    }

    public init(
        index: Int, filename: String, mimeType: String, size: Int?, width: Int?, height: Int?, isImage: Bool,
        state: AttachmentState, label: String
    ) {
        self.index = index
        self.filename = filename
        self.mimeType = mimeType
        self.size = size
        self.width = width
        self.height = height
        self.isImage = isImage
        self.state = state
        self.label = label
    }

    /// Whether `AppAction.downloadAttachment` applies now.
    public var canDownload: Bool {
        switch state {
        case .remote, .failed: true
        default: false
        }
    }
}

/// Why `MarmotApp.attachmentData` returned no bytes.
public struct AttachmentError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: OutcomeCode
    public var reason: String

    public init(code: OutcomeCode, reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { reason }
}

/// A file the user sends, as the core hands it to the messaging layer.
public struct OutgoingAttachment: Sendable, Equatable {
    public var data: Data
    public var filename: String
    public var mimeType: String

    public init(data: Data, filename: String, mimeType: String) {
        self.data = data
        self.filename = filename
        self.mimeType = mimeType
    }
}
