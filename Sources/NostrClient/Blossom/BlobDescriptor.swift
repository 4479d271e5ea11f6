import Foundation
import Nostr

/// A BUD-02 blob descriptor: where a blob is served and what the server stored.
///
/// `sha256` is the 32 raw bytes (hex on the wire); `type` is nil when the server sent none.
public struct BlobDescriptor: Sendable, Hashable, Codable {
    public let url: URL
    public let sha256: Data
    public let size: Int
    public let type: String?
    /// Unix time in seconds when the server stored the blob.
    public let uploaded: Int64

    public init(url: URL, sha256: Data, size: Int, type: String?, uploaded: Int64) {
        self.url = url
        self.sha256 = sha256
        self.size = size
        self.type = type
        self.uploaded = uploaded
    }

    enum CodingKeys: String, CodingKey { case url, sha256, size, type, uploaded }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let text = try c.decode(String.self, forKey: .url)
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              url.host != nil else {
            throw DecodingError.dataCorruptedError(forKey: .url, in: c, debugDescription: "not an http(s) URL")
        }
        let hex = try c.decode(String.self, forKey: .sha256)
        guard let hash = BlobHash.parse(hex.lowercased()) else {
            throw DecodingError.dataCorruptedError(forKey: .sha256, in: c, debugDescription: "not 64 hex characters")
        }
        let size = try c.decode(Int.self, forKey: .size)
        guard size >= 0 else { throw DecodingError.dataCorruptedError(forKey: .size, in: c, debugDescription: "negative size") }
        self.init(url: url, sha256: hash, size: size, type: try c.decodeIfPresent(String.self, forKey: .type),
                  uploaded: try c.decodeIfPresent(Int64.self, forKey: .uploaded) ?? 0)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(url.absoluteString, forKey: .url)
        try c.encode(Hex.encode(sha256), forKey: .sha256)
        try c.encode(size, forKey: .size)
        try c.encodeIfPresent(type, forKey: .type)
        try c.encode(uploaded, forKey: .uploaded)
    }
}

/// Why a Blossom request failed.
public enum BlossomError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server answered with an error status; `reason` is its `X-Reason` (for people, not for logic).
    case refused(status: Int, reason: String?)
    /// The blob's SHA-256 is not the one expected (a descriptor naming another hash, or served bytes
    /// that do not hash to the requested name).
    case hashMismatch
    /// The blob is larger than allowed: the server refused it (413), or a download passed `maxBytes`.
    case tooLarge
    /// No answer: connection refused, DNS, timeout before a response.
    case unreachable(String)
    /// The connection broke after the answer started (a blob cut short).
    case interrupted(String)
    /// An answer that is not what BUD-01/02 promise (bad JSON, a descriptor for another server).
    case invalidResponse(String)
    /// The server URL is not usable (not http or https, no host).
    case invalidServer(String)
    /// The authorization event could not be signed.
    case signing(String)

    public var description: String {
        switch self {
        case .refused(let status, let reason): "the Blossom server refused (HTTP \(status))" + (reason.map { ": \($0)" } ?? "")
        case .hashMismatch: "the blob's SHA-256 does not match the expected hash"
        case .tooLarge: "the blob is too large"
        case .unreachable(let why): "the Blossom server is unreachable: \(why)"
        case .interrupted(let why): "the transfer was interrupted: \(why)"
        case .invalidResponse(let why): "invalid answer from the Blossom server: \(why)"
        case .invalidServer(let why): "invalid Blossom server URL: \(why)"
        case .signing(let why): "could not sign the Blossom authorization: \(why)"
        }
    }
}
