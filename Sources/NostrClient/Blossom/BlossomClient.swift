import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Nostr

/// A Blossom client (BUD-01 GET/HEAD, BUD-02 PUT /upload, BUD-12 list and delete) that trusts no
/// server: every blob it returns hashes to the name asked for, every descriptor it accepts names the
/// uploaded hash on the server it was sent to, and no answer is buffered past a limit.
///
/// Callers pass blobs already encrypted (MIP-04); this type only moves bytes.
public struct BlossomClient: Sendable {
    public let timeout: TimeInterval
    /// Seconds an authorization token stays valid (BUD-11 `expiration`).
    public var authorizationLifetime: Int64 = 300

    /// Largest descriptor answer read (a descriptor is a few hundred bytes).
    static let maxDescriptorBytes = 64 * 1024
    /// Largest list answer read.
    static let maxListBytes = 16 << 20

    public init(timeout: TimeInterval = 60) { self.timeout = timeout }

    /// Uploads `data` (already encrypted by the caller) to `server` with a kind-24242 upload auth
    /// signed by `keys`; checks the returned descriptor's sha256 equals SHA-256(data) (else
    /// `.hashMismatch`) and its url is under the server.
    ///
    /// Retry-safe: when the server already has the hash (HEAD), the body is not sent again and the
    /// descriptor is built from what is known (`server/<sha256>`, the size and type given).
    /// `progress` hears the bytes of the body sent so far and in all, as they go out (not called
    /// when the server already had the blob).
    public func upload(
        _ data: Data, type: String, to server: URL, keys: Keys, now: Int64,
        progress: (@Sendable (_ sent: Int64, _ total: Int64) -> Void)? = nil
    ) async throws(BlossomError) -> BlobDescriptor {
        try Self.checkServer(server)
        let hash = BlobHash.sha256(data)
        if try await exists(hash, on: server) {
            return BlobDescriptor(url: Self.blobURL(server, hash), sha256: hash, size: data.count, type: type, uploaded: now)
        }
        var request = URLRequest(url: server.appendingPathComponent("upload"))
        request.httpMethod = "PUT"
        request.setValue(type, forHTTPHeaderField: "Content-Type")
        request.setValue(String(data.count), forHTTPHeaderField: "Content-Length")
        request.setValue(Hex.encode(hash), forHTTPHeaderField: "X-SHA-256")
        request.setValue(try authorization(.upload, hash: hash, server: server, keys: keys, now: now),
                         forHTTPHeaderField: "Authorization")
        let answer = try await BlossomHTTP.perform(
            request, body: data, maxBytes: Self.maxDescriptorBytes, timeout: timeout, progress: progress)
        try Self.requireSuccess(answer)
        let descriptor: BlobDescriptor
        do { descriptor = try JSONDecoder().decode(BlobDescriptor.self, from: answer.body) } catch {
            throw .invalidResponse("the upload answer is not a blob descriptor (\(error))")
        }
        guard descriptor.sha256 == hash else { throw .hashMismatch }
        guard Self.isUnder(descriptor.url, server) else {
            throw .invalidResponse("the descriptor's url \(descriptor.url.absoluteString) is not on \(server.absoluteString)")
        }
        guard descriptor.size == data.count else {
            throw .invalidResponse("the descriptor's size \(descriptor.size) is not the \(data.count) bytes sent")
        }
        return descriptor
    }

    /// Downloads a blob, refusing more than `maxBytes`, and checks SHA-256(body) == `expectedSHA256`
    /// before returning.
    public func download(_ url: URL, expectedSHA256: Data, maxBytes: Int) async throws(BlossomError) -> Data {
        try Self.checkServer(url)
        var request = URLRequest(url: url)
        request.httpMethod = "GET"
        let answer = try await BlossomHTTP.perform(request, body: nil, maxBytes: maxBytes, timeout: timeout)
        try Self.requireSuccess(answer)
        guard BlobHash.sha256(answer.body) == expectedSHA256 else { throw .hashMismatch }
        return answer.body
    }

    /// Downloads what a plain http(s) address serves, refusing more than `maxBytes` (for a file
    /// named by address, not by hash, such as a v2 group avatar URL; the caller checks the address
    /// against its URL policy first).
    public func fetch(_ url: URL, maxBytes: Int) async throws(BlossomError) -> Data {
        try Self.checkServer(url)
        var request = URLRequest(url: url)
        request.httpMethod = "GET"
        let answer = try await BlossomHTTP.perform(request, body: nil, maxBytes: maxBytes, timeout: timeout)
        try Self.requireSuccess(answer)
        return answer.body
    }

    /// True when `server` has the blob (BUD-01 HEAD: 200), false on 404.
    public func exists(_ sha256: Data, on server: URL) async throws(BlossomError) -> Bool {
        try Self.checkServer(server)
        var request = URLRequest(url: Self.blobURL(server, sha256))
        request.httpMethod = "HEAD"
        let answer = try await BlossomHTTP.perform(request, body: nil, maxBytes: 0, timeout: timeout)
        if answer.status == 404 { return false }
        try Self.requireSuccess(answer)
        return true
    }

    /// The blobs `pubkey` uploaded to `server` (BUD-12), newest first.
    public func list(_ pubkey: PublicKey, on server: URL) async throws(BlossomError) -> [BlobDescriptor] {
        try Self.checkServer(server)
        var request = URLRequest(url: server.appendingPathComponent("list").appendingPathComponent(pubkey.hex))
        request.httpMethod = "GET"
        let answer = try await BlossomHTTP.perform(request, body: nil, maxBytes: Self.maxListBytes, timeout: timeout)
        try Self.requireSuccess(answer)
        do { return try JSONDecoder().decode([BlobDescriptor].self, from: answer.body) } catch {
            throw .invalidResponse("the list answer is not an array of blob descriptors (\(error))")
        }
    }

    /// Removes `keys`' claim on a blob (BUD-12 DELETE with a `t delete` token scoped to the hash and server).
    public func delete(_ sha256: Data, on server: URL, keys: Keys, now: Int64) async throws(BlossomError) {
        try Self.checkServer(server)
        var request = URLRequest(url: Self.blobURL(server, sha256))
        request.httpMethod = "DELETE"
        request.setValue(try authorization(.delete, hash: sha256, server: server, keys: keys, now: now),
                         forHTTPHeaderField: "Authorization")
        let answer = try await BlossomHTTP.perform(request, body: nil, maxBytes: Self.maxDescriptorBytes, timeout: timeout)
        try Self.requireSuccess(answer)
    }

    // MARK: Helpers

    /// `Authorization: Nostr …` for one action on one blob, scoped to the server's host (BUD-11 `server`
    /// tag, so a leaked token cannot be replayed on another server).
    private func authorization(_ verb: BlossomVerb, hash: Data, server: URL, keys: Keys, now: Int64) throws(BlossomError) -> String {
        do {
            let event = try BlossomAuthorization.signed(verb: verb, keys: keys, hashes: [hash], server: server.host?.lowercased(),
                                                        now: now, lifetime: authorizationLifetime)
            return BlossomAuthorization.header(for: event)
        } catch {
            throw .signing("\(error)")
        }
    }

    static func blobURL(_ server: URL, _ sha256: Data) -> URL { server.appendingPathComponent(Hex.encode(sha256)) }

    static func checkServer(_ url: URL) throws(BlossomError) {
        guard let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme) else {
            throw .invalidServer("\(url.absoluteString) is not http or https")
        }
        guard let host = url.host, !host.isEmpty else { throw .invalidServer("\(url.absoluteString) has no host") }
    }

    /// True when `url` is on the same scheme, host and port as `server`, under its path.
    static func isUnder(_ url: URL, _ server: URL) -> Bool {
        func port(_ u: URL) -> Int? { u.port ?? (u.scheme?.lowercased() == "https" ? 443 : 80) }
        guard url.scheme?.lowercased() == server.scheme?.lowercased(),
              url.host?.lowercased() == server.host?.lowercased(), port(url) == port(server) else { return false }
        let base = server.path.hasSuffix("/") ? server.path : server.path + "/"
        return url.path.hasPrefix(base)
    }

    static func requireSuccess(_ answer: BlossomHTTP.Answer) throws(BlossomError) {
        guard (200..<300).contains(answer.status) else {
            if answer.status == 413 { throw .tooLarge }
            throw .refused(status: answer.status, reason: answer.header("X-Reason"))
        }
    }
}
