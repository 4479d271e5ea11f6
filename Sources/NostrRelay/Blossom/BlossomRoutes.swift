import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Nostr

/// The request context of the relay's HTTP router: Hummingbird's core context plus the connection,
/// so a refused upload can stop reading the socket instead of draining a body it will not keep.
struct RelayRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}

/// The embedded Blossom server's HTTP endpoints on the relay's port: BUD-01 `GET`/`HEAD /<sha256>[.ext]`,
/// BUD-02 `PUT /upload`, BUD-12 `GET /list/<pubkey>` and `DELETE /<sha256>`, with BUD-11 authorization.
///
/// Why on the relay's port: one `marmot relay` is then all a client needs offline, and the relay's
/// guards (connection backstop, Origin policy) cover it. Blob reads are open to any origin (BUD-01
/// CORS; blobs are content-addressed and Marmot's are encrypted); uploads, deletes and lists
/// carrying a web page's `Origin` are refused unless the relay allows that origin, as for WebSockets.
struct BlossomRoutes: Sendable {
    let store: BlobStore
    let admission: RelayAdmission
    let logger: Logger
    /// `http://host:port` of the relay, used in descriptors when the request has no usable `Host`.
    let fallbackBase: @Sendable () -> String
    let publicBase: String?

    func register(on router: Router<RelayRequestContext>) {
        router.put("/upload") { request, context in await upload(request, context) }
        router.get("/list/:pubkey") { request, context in try await list(request, context) }
        router.get("/:blob") { request, context in try await get(request, context, head: false) }
        router.head("/:blob") { request, context in try await get(request, context, head: true) }
        router.delete("/:blob") { request, context in try await delete(request, context) }
        for path in ["/upload", "/list/:pubkey", "/:blob"] {
            router.on(RouterPath(path), method: .options) { request, _ in preflight(request) }
        }
    }

    // MARK: BUD-01

    private func get(_ request: Request, _ context: RelayRequestContext, head: Bool) async throws -> Response {
        guard let name = context.parameters.get("blob"), let hash = Self.blobHash(fromPath: name) else {
            return Self.error(.badRequest, "expected /<sha256>[.ext]")
        }
        guard let record = try await store.record(hash) else { return Self.error(.notFound, "blob not found") }
        var headers = Self.cors
        headers[.contentType] = record.type
        headers[.contentLength] = String(record.size)
        headers[.cacheControl] = "public, max-age=31536000, immutable"
        if head { return Response(status: .ok, headers: headers) }
        let body = try await FileIO().loadFile(path: store.fileURL(hash).path, context: context)
        return Response(status: .ok, headers: headers, body: body)
    }

    // MARK: BUD-02

    private func upload(_ request: Request, _ context: RelayRequestContext) async -> Response {
        let config = store.configuration
        if let refusal = pageRefusal(request) { return refuseUpload(.forbidden, refusal, context) }
        let now = UnsignedEvent.now()
        let auth: Event
        do {
            auth = try BlossomAuthorization.verify(
                header: request.headers[.authorization], verb: .upload, hash: nil, now: now, serverDomain: Self.host(request))
        } catch {
            return refuseUpload(.unauthorized, error.description, context)
        }
        let allowed = Set(auth.tagValues("x"))
        guard !allowed.isEmpty else { return refuseUpload(.unauthorized, BlossomAuthorizationError.hashNotAuthorized.description, context) }
        let declaredHash = request.headers[HTTPField.Name("X-SHA-256")!]?.lowercased()
        if let declaredHash, !allowed.contains(declaredHash) {
            return refuseUpload(.unauthorized, BlossomAuthorizationError.hashNotAuthorized.description, context)
        }
        let declaredLength = request.headers[.contentLength].flatMap { Int64($0) }
        if let declaredLength, declaredLength > config.maxBlobBytes {
            return refuseUpload(.contentTooLarge, "blob is larger than the server's maximum of \(config.maxBlobBytes) bytes", context)
        }
        if let declaredLength, store.wouldExceedQuota(declaredLength) {
            return refuseUpload(.insufficientStorage, "the server's storage quota is full", context)
        }
        // A blob the uploader already owns (named by X-SHA-256) does not count against its cap again.
        let reupload = if let declaredHash { (try? await store.owns(auth.pubkey.hex, declaredHash)) ?? false } else { false }
        if let declaredLength, let cap = config.maxBytesPerUploader, !reupload,
           let owned = try? await store.ownedBytes(auth.pubkey.hex), owned + declaredLength > cap {
            return refuseUpload(.insufficientStorage, "uploader's storage cap of \(cap) bytes is full", context)
        }
        guard store.beginUpload() else {
            return refuseUpload(.tooManyRequests, "too many uploads in progress, try again later", context)
        }
        defer { store.endUpload() }
        let type = Self.mediaType(request.headers[.contentType])
        let temporary = store.temporaryFile()
        let meter = UploadMeter(store: store, maxBytes: config.maxBlobBytes)
        let watchdog = Self.stallWatchdog(meter: meter, channel: context.channel, timeout: config.uploadStallTimeout)
        defer { watchdog.cancel() }
        do {
            try await FileIO().writeFile(contents: MeteredBody(base: request.body, meter: meter),
                                         path: temporary.path, context: context)
        } catch {
            watchdog.cancel()
            try? FileManager.default.removeItem(at: temporary)
            meter.releaseAll()
            switch meter.refusal {
            case .tooLarge:
                return refuseUpload(.contentTooLarge, "blob is larger than the server's maximum of \(config.maxBlobBytes) bytes", context)
            case .quota:
                return refuseUpload(.insufficientStorage, "the server's storage quota is full", context)
            case .stalled:
                logger.notice("upload cut off: no data", metadata: ["timeout": "\(config.uploadStallTimeout)"])
                return Self.error(.requestTimeout, "no data for \(config.uploadStallTimeout)")
            case nil:
                logger.debug("upload ended early", metadata: ["error": "\(error)"])
                return refuseUpload(.badRequest, "upload did not complete", context)
            }
        }
        // The body is in: verifying and storing it is not a stall.
        watchdog.cancel()
        let size = meter.received
        let hash = Hex.encode(meter.digest())
        if let declaredHash, declaredHash != hash {
            try? FileManager.default.removeItem(at: temporary)
            meter.releaseAll()
            return Self.error(.conflict, "X-SHA-256 does not match the body")
        }
        guard allowed.contains(hash) else {
            try? FileManager.default.removeItem(at: temporary)
            meter.releaseAll()
            logger.notice("upload refused: no x tag for its hash", metadata: ["sha256": "\(hash)"])
            return Self.error(.unauthorized, BlossomAuthorizationError.hashNotAuthorized.description)
        }
        do {
            switch try await store.commit(temporary: temporary, sha256: hash, size: size, type: type,
                                          owner: auth.pubkey.hex, now: now) {
            case .created(let record): return descriptorResponse(.created, record, request)
            case .existed(let record): return descriptorResponse(.ok, record, request)
            case .uploaderCapExceeded(let cap):
                return Self.error(.insufficientStorage, "uploader's storage cap of \(cap) bytes is full")
            }
        } catch {
            meter.releaseAll()
            logger.error("storing a blob failed", metadata: ["error": "\(error)"])
            return Self.error(.internalServerError, "could not store the blob")
        }
    }

    /// Closes the connection of an upload whose byte count stops moving for `timeout`; ends the body
    /// stream, so the write fails and its file and reservation are released.
    static func stallWatchdog(meter: UploadMeter, channel: any Channel, timeout: Duration) -> Task<Void, Never> {
        Task {
            var last: Int64 = -1
            while !Task.isCancelled {
                try? await Task.sleep(for: timeout)
                guard !Task.isCancelled else { return }
                let now = meter.received
                if now == last {
                    meter.markStalled()
                    channel.close(promise: nil)
                    return
                }
                last = now
            }
        }
    }

    // MARK: BUD-12

    private func list(_ request: Request, _ context: RelayRequestContext) async throws -> Response {
        if let refusal = pageRefusal(request) { return Self.error(.forbidden, refusal) }
        guard let pubkey = context.parameters.get("pubkey"), (try? PublicKey(hex: pubkey)) != nil else {
            return Self.error(.badRequest, "expected /list/<64 hex pubkey>")
        }
        let query = request.uri.queryParameters
        let limit = query.get("limit").map { Int($0) } ?? 1000
        guard let limit, limit > 0 else { return Self.error(.badRequest, "limit must be a positive integer") }
        let cursor = query.get("cursor")
        if let cursor, BlobHash.parse(cursor) == nil { return Self.error(.badRequest, "cursor must be a sha256") }
        let since = query.get("since").flatMap { Int64($0) }
        let until = query.get("until").flatMap { Int64($0) }
        let records = try await store.list(owner: pubkey, limit: min(limit, 1000), cursor: cursor, since: since, until: until)
        let base = base(request)
        let descriptors = records.map { ServedDescriptor($0, base: base) }
        return Self.json(.ok, descriptors)
    }

    private func delete(_ request: Request, _ context: RelayRequestContext) async throws -> Response {
        if let refusal = pageRefusal(request) { return Self.error(.forbidden, refusal) }
        guard let name = context.parameters.get("blob"), let hash = Self.blobHash(fromPath: name) else {
            return Self.error(.badRequest, "expected /<sha256>")
        }
        let auth: Event
        do {
            auth = try BlossomAuthorization.verify(
                header: request.headers[.authorization], verb: .delete, hash: BlobHash.parse(hash),
                now: UnsignedEvent.now(), serverDomain: Self.host(request))
        } catch {
            return Self.error(.unauthorized, error.description)
        }
        switch try await store.removeOwnership(sha256: hash, owner: auth.pubkey.hex) {
        case .notFound: return Self.error(.notFound, "blob not found")
        case .notOwner: return Self.error(.forbidden, "only an uploader of this blob may delete it")
        case .removed: return Response(status: .noContent, headers: Self.cors)
        }
    }

    // MARK: Policy and helpers

    /// Why a write or list from a web page is refused (its `Origin` is not allowed), or nil.
    private func pageRefusal(_ request: Request) -> String? {
        guard let origin = request.headers[.origin], RelayAdmission.isFromAPage(origin),
              !admission.allowedOrigins.contains(RelayAdmission.normalize(origin)) else { return nil }
        logger.notice("Blossom request from a web page refused", metadata: ["origin": "\(origin)"])
        return "Origin \(origin) is not allowed (see --allow-origin)"
    }

    /// CORS preflight (BUD-01): allowed for reads from anywhere, for writes only from allowed origins.
    private func preflight(_ request: Request) -> Response {
        let method = request.headers[HTTPField.Name("Access-Control-Request-Method")!]?.uppercased() ?? "GET"
        if !["GET", "HEAD"].contains(method), pageRefusal(request) != nil {
            return Response(status: .noContent)
        }
        var headers = Self.cors
        headers[.accessControlAllowHeaders] = "Authorization, *"
        headers[.accessControlAllowMethods] = "GET, HEAD, PUT, DELETE"
        headers[.accessControlMaxAge] = "86400"
        return Response(status: .noContent, headers: headers)
    }

    /// An upload refusal sent before the body is read: the answer, then the connection stops
    /// reading, so a client cannot make the relay take in a body it refused (it is not drained).
    private func refuseUpload(_ status: HTTPResponse.Status, _ reason: String, _ context: RelayRequestContext) -> Response {
        logger.notice("upload refused", metadata: ["status": "\(status.code)", "reason": "\(reason)"])
        var response = Self.error(status, reason)
        let channel = context.channel
        let text = ByteBuffer(string: reason + "\n")
        response.headers[.connection] = "close"
        response.body = ResponseBody(contentLength: text.readableBytes) { writer in
            try await writer.write(text)
            try await writer.finish(nil)
            channel.close(mode: .input, promise: nil)
        }
        return response
    }

    private func descriptorResponse(_ status: HTTPResponse.Status, _ record: BlobRecord, _ request: Request) -> Response {
        Self.json(status, ServedDescriptor(record, base: base(request)))
    }

    /// `http://host[:port]` as the client addressed the relay (its `Host`), or the configured one.
    private func base(_ request: Request) -> String {
        if let publicBase { return publicBase }
        if let authority = request.head.authority, Self.isPlainAuthority(authority) { return "http://\(authority)" }
        return fallbackBase()
    }

    static func isPlainAuthority(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 255
            && text.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || ".-:[]".unicodeScalars.contains($0) }
    }

    /// The request's host name without port (BUD-11 `server` tags name domains).
    static func host(_ request: Request) -> String? {
        guard let authority = request.head.authority else { return nil }
        if authority.hasPrefix("["), let end = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex)..<end])
        }
        return authority.split(separator: ":").first.map(String.init)
    }

    /// The lowercase hex hash of a `<sha256>[.ext]` path component, or nil.
    static func blobHash(fromPath name: String) -> String? {
        let stem = name.split(separator: ".", maxSplits: 1).first.map(String.init) ?? name
        guard BlobHash.parse(stem) != nil else { return nil }
        if name.utf8.count > stem.utf8.count + 17 { return nil }
        return stem
    }

    /// The stored MIME type: `type/subtype` from `Content-Type` (parameters dropped), else
    /// `application/octet-stream` (BUD-01 default).
    static func mediaType(_ header: String?) -> String {
        guard let header else { return "application/octet-stream" }
        let essence = header.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        let parts = essence.split(separator: "/", omittingEmptySubsequences: false)
        let token = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "!#$&-^_.+"))
        guard essence.utf8.count <= 127, parts.count == 2, parts.allSatisfy({ !$0.isEmpty }),
              essence.unicodeScalars.allSatisfy({ token.contains($0) || $0 == "/" }) else { return "application/octet-stream" }
        return essence
    }

    static let cors: HTTPFields = [.accessControlAllowOrigin: "*"]

    static func error(_ status: HTTPResponse.Status, _ reason: String) -> Response {
        var headers = cors
        headers[HTTPField.Name("X-Reason")!] = reason
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: reason + "\n")))
    }

    static func json(_ status: HTTPResponse.Status, _ value: some Encodable) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = (try? encoder.encode(value)) ?? Data("{}".utf8)
        var headers = cors
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}

/// A BUD-02 blob descriptor as served: `url` (with a file extension), `sha256`, `size`, `type`, `uploaded`.
struct ServedDescriptor: Encodable {
    let url: String
    let sha256: String
    let size: Int64
    let type: String
    let uploaded: Int64

    init(_ record: BlobRecord, base: String) {
        url = "\(base)/\(record.sha256).\(Self.fileExtension(record.type))"
        sha256 = record.sha256
        size = record.size
        type = record.type
        uploaded = record.uploaded
    }

    /// A file extension for the descriptor URL (BUD-02 requires one); `bin` when the type is unknown.
    static func fileExtension(_ type: String) -> String {
        switch type {
        case "image/png": "png"
        case "image/jpeg": "jpg"
        case "image/gif": "gif"
        case "image/webp": "webp"
        case "image/avif": "avif"
        case "image/heic": "heic"
        case "image/svg+xml": "svg"
        case "video/mp4": "mp4"
        case "video/webm": "webm"
        case "video/quicktime": "mov"
        case "audio/mpeg": "mp3"
        case "audio/ogg": "ogg"
        case "audio/mp4": "m4a"
        case "application/pdf": "pdf"
        case "text/plain": "txt"
        case "application/json": "json"
        default: "bin"
        }
    }
}

/// Why an upload stopped while its body streamed in.
enum UploadRefusal: Error, Sendable {
    case tooLarge
    case quota
    case stalled
}

/// Counts, hashes and reserves quota for an upload's bytes as they arrive; throws (and remembers
/// why) once the blob passes the size limit or the quota.
final class UploadMeter: @unchecked Sendable {
    private let store: BlobStore
    private let maxBytes: Int64
    private let lock = NSLock()
    // Guarded by `lock`.
    private var hasher = BlobHasher()
    private var count: Int64 = 0
    private var reserved: Int64 = 0
    private var stop: UploadRefusal?

    init(store: BlobStore, maxBytes: Int64) {
        self.store = store
        self.maxBytes = maxBytes
    }

    func add(_ buffer: ByteBuffer) throws(UploadRefusal) {
        let size = Int64(buffer.readableBytes)
        lock.lock()
        defer { lock.unlock() }
        guard count + size <= maxBytes else { stop = .tooLarge; throw .tooLarge }
        guard store.reserve(size) else { stop = .quota; throw .quota }
        reserved += size
        count += size
        buffer.withUnsafeReadableBytes { hasher.update($0) }
    }

    func digest() -> Data { lock.withLock { hasher.finalize() } }

    /// Bytes received so far.
    var received: Int64 { lock.withLock { count } }

    /// Records that the upload was cut off for bringing no data.
    func markStalled() { lock.withLock { if stop == nil { stop = .stalled } } }

    /// Why the upload was stopped, if it was.
    var refusal: UploadRefusal? { lock.withLock { stop } }

    /// Gives back every reserved byte (the upload was not stored).
    func releaseAll() {
        let amount = lock.withLock { () -> Int64 in
            defer { reserved = 0 }
            return reserved
        }
        store.release(amount)
    }
}

/// The request body passed through an `UploadMeter`.
struct MeteredBody<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element == ByteBuffer {
    typealias Element = ByteBuffer
    let base: Base
    let meter: UploadMeter

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let meter: UploadMeter

        mutating func next() async throws -> ByteBuffer? {
            guard let buffer = try await base.next() else { return nil }
            try meter.add(buffer)
            return buffer
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator(), meter: meter) }
}

extension HTTPResponse.Status {
    /// 507 (RFC 4918 §11.5): the storage quota is full.
    static var insufficientStorage: Self { .init(code: 507, reasonPhrase: "Insufficient Storage") }
}
