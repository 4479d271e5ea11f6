import Crypto
import Foundation

extension Kind {
    /// Blossom authorization token (BUD-11): a signed event that lets a server act for its author.
    public static let blossomAuthorization = Kind(24242)
    /// NIP-B7 / BUD-03 user server list (a replaceable list of Blossom servers).
    public static let blossomServerList = Kind(10063)
}

/// The action a Blossom authorization token permits (BUD-11 `t` tag).
public enum BlossomVerb: String, Sendable, Hashable, CaseIterable {
    case get, upload, list, delete, media
}

/// Why a Blossom authorization token was refused (each maps to HTTP 401 or 403 on the server).
public enum BlossomAuthorizationError: Error, Sendable, Equatable, CustomStringConvertible {
    case missing
    case malformed(String)
    case wrongKind(UInt16)
    case invalidSignature
    case createdInFuture
    case missingExpiration
    case expired
    case wrongVerb(expected: String)
    case hashNotAuthorized
    case wrongServer

    public var description: String {
        switch self {
        case .missing: "authorization required (Authorization: Nostr <base64 kind-24242 event>)"
        case .malformed(let why): "malformed authorization: \(why)"
        case .wrongKind(let kind): "authorization event has kind \(kind), expected 24242"
        case .invalidSignature: "authorization event has an invalid id or signature"
        case .createdInFuture: "authorization event is dated in the future"
        case .missingExpiration: "authorization event has no expiration tag"
        case .expired: "authorization event has expired"
        case .wrongVerb(let expected): "authorization event does not permit \"\(expected)\" (t tag)"
        case .hashNotAuthorized: "authorization event does not name this blob (x tag)"
        case .wrongServer: "authorization event is scoped to other servers (server tag)"
        }
    }
}

/// Blossom authorization tokens (BUD-11): builds the kind-24242 event a client signs for one action,
/// and verifies one a server received.
///
/// Why one pure type for both sides: the client and the embedded server must agree on every rule
/// (verb, expiration, `x` scoping), and tests can check the rules without sockets.
public enum BlossomAuthorization {
    /// Seconds a token may be dated ahead of the server's clock (clock skew).
    public static let allowedSkew: Int64 = 60

    /// The unsigned token permitting `verb` until `expiration`, scoped to `hashes` (`x` tags) and,
    /// when given, to `server` (a lowercase domain, BUD-11 "Tag scoping").
    public static func event(
        verb: BlossomVerb, pubkey: PublicKey, hashes: [Data] = [], server: String? = nil,
        createdAt: Int64, expiration: Int64, content: String? = nil
    ) -> UnsignedEvent {
        var tags: [Tag] = [["t", verb.rawValue], ["expiration", String(expiration)]]
        tags += hashes.map { Tag(["x", Hex.encode($0)]) }
        if let server { tags.append(Tag(["server", server.lowercased()])) }
        return UnsignedEvent(pubkey: pubkey, createdAt: createdAt, kind: .blossomAuthorization, tags: tags,
                             content: content ?? defaultContent(verb))
    }

    /// Signs a token for `verb` valid for `lifetime` seconds from `now`.
    public static func signed(
        verb: BlossomVerb, keys: Keys, hashes: [Data] = [], server: String? = nil, now: Int64, lifetime: Int64 = 300
    ) throws -> Event {
        try event(verb: verb, pubkey: keys.publicKey, hashes: hashes, server: server, createdAt: now,
                  expiration: now + lifetime).signed(with: keys)
    }

    /// The `Authorization` header value: `Nostr ` and the event JSON in unpadded base64url (BUD-11).
    public static func header(for event: Event) -> String {
        "Nostr " + base64URL(Data(event.jsonBytes))
    }

    /// Decodes an `Authorization` header (`Nostr <base64url or base64>`) into its event, verifying
    /// the id and signature; nil header is `.missing`.
    public static func parse(header: String?) throws(BlossomAuthorizationError) -> Event {
        guard let header, !header.isEmpty else { throw .missing }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "nostr" else { throw .malformed("expected the Nostr scheme") }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        // An event with a few tags is well under this; a larger token is refused before decoding.
        guard token.utf8.count <= maxTokenLength else { throw .malformed("token too long") }
        guard let json = decodeBase64(token) else { throw .malformed("token is not base64") }
        let event: Event
        do { event = try Event(jsonData: Array(json), verify: false) } catch {
            throw .malformed("token is not a Nostr event (\(error))")
        }
        guard event.isValid else { throw .invalidSignature }
        return event
    }

    /// Checks a verified token against BUD-11 "Validation": kind, created_at in the past (within
    /// `allowedSkew`), a future `expiration`, the `t` verb, the `server` scope and, when `hash` is
    /// given, an `x` tag naming it.
    public static func validate(
        _ event: Event, verb: BlossomVerb, hash: Data?, now: Int64, serverDomain: String? = nil
    ) throws(BlossomAuthorizationError) {
        guard event.kind == .blossomAuthorization else { throw .wrongKind(event.kind.rawValue) }
        guard event.createdAt <= now + allowedSkew else { throw .createdInFuture }
        guard let text = event.firstTagValue("expiration") else { throw .missingExpiration }
        guard let expiration = Int64(text) else { throw .malformed("expiration is not a number") }
        guard expiration > now else { throw .expired }
        guard event.tagValues("t").contains(verb.rawValue) else { throw .wrongVerb(expected: verb.rawValue) }
        let servers = event.tagValues("server").map { $0.lowercased() }
        if !servers.isEmpty, let serverDomain, !servers.contains(serverDomain.lowercased()) { throw .wrongServer }
        if let hash {
            let hex = Hex.encode(hash)
            guard event.tagValues("x").contains(hex) else { throw .hashNotAuthorized }
        }
    }

    /// Parses and validates a header in one step, returning the verified token.
    public static func verify(
        header: String?, verb: BlossomVerb, hash: Data?, now: Int64, serverDomain: String? = nil
    ) throws(BlossomAuthorizationError) -> Event {
        let event = try parse(header: header)
        try validate(event, verb: verb, hash: hash, now: now, serverDomain: serverDomain)
        return event
    }

    /// Largest accepted token (base64 characters).
    public static let maxTokenLength = 16 * 1024

    static func defaultContent(_ verb: BlossomVerb) -> String {
        switch verb {
        case .get: "Get blob"
        case .upload: "Upload blob"
        case .list: "List blobs"
        case .delete: "Delete blob"
        case .media: "Upload media"
        }
    }

    static func base64URL(_ data: Data) -> String {
        var text = data.base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    /// Decodes base64url or standard base64, padded or not (BUD-11 says base64url; older clients send base64).
    static func decodeBase64(_ text: String) -> Data? {
        var normal = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while normal.hasSuffix("=") { normal.removeLast() }
        let remainder = normal.utf8.count % 4
        if remainder == 1 { return nil }
        if remainder > 0 { normal += String(repeating: "=", count: 4 - remainder) }
        return Data(base64Encoded: normal)
    }
}

/// SHA-256 helpers for Blossom blob addressing (BUD-01: a blob's name is its SHA-256).
public enum BlobHash {
    /// SHA-256 of `data`.
    public static func sha256(_ data: Data) -> Data { Data(SHA256.hash(data: data)) }

    /// The 32 bytes named by 64 lowercase hex characters, or nil.
    public static func parse(_ hex: String) -> Data? { Hex.decode(hex, count: 32).map { Data($0) } }
}

/// Incremental SHA-256 over a blob received in chunks (so a large upload or download is never
/// hashed from one buffer).
public struct BlobHasher: Sendable {
    private var inner = SHA256()

    public init() {}

    public mutating func update(_ bytes: UnsafeRawBufferPointer) { inner.update(bufferPointer: bytes) }

    public mutating func update(_ data: Data) { inner.update(data: data) }

    /// The digest of everything passed so far.
    public func finalize() -> Data { Data(inner.finalize()) }
}
