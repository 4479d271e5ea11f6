import Foundation
import Hummingbird
import Nostr
import NostrClient
import NostrRelay
import TestSupport
import Testing

/// `BlossomClient` against the relay's embedded Blossom server, and against hostile servers (small
/// Hummingbird apps on loopback) that lie about hashes, serve other bytes, cut transfers short or
/// send without end.
@Suite(.timeLimit(.minutes(2))) struct BlossomClientTests {
    static func bytes(_ count: Int, seed: UInt8 = 1) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ Int(seed)) })
    }

    static var now: Int64 { Int64(Date().timeIntervalSince1970) }

    /// Runs `body` with the base URL of an embedded relay (Blossom on).
    static func withBlossom<T: Sendable>(
        _ blossom: BlossomConfiguration = BlossomConfiguration(), _ body: @Sendable (URL, RelayServer) async throws -> T
    ) async throws -> T {
        var configuration = RelayConfiguration()
        configuration.blossom = blossom
        let server = ClientTestSupport.relay(configuration)
        let port = try await server.start()
        do {
            let result = try await body(try #require(URL(string: "http://127.0.0.1:\(port)")), server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    /// Runs `body` with the base URL of a Hummingbird app whose routes `configure` sets.
    static func withHostileServer<T: Sendable>(
        _ configure: (Router<BasicRequestContext>) -> Void, _ body: @Sendable (URL) async throws -> T
    ) async throws -> T {
        let router = Router()
        configure(router)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { continuation.yield($0.localAddress?.port ?? 0) }, logger: testLogger("hostile"))
        let task = Task { try await app.runService(gracefulShutdownSignals: []) }
        defer { task.cancel() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        return try await body(try #require(URL(string: "http://127.0.0.1:\(port)")))
    }

    static func expectError(_ expected: BlossomError, _ what: String, _ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("\(what): no error, expected \(expected)")
        } catch {
            #expect(error as? BlossomError == expected, "\(what): \(error)")
        }
    }

    // MARK: Against the embedded server

    @Test func uploadDownloadExistsListAndDeleteRoundTrip() async throws {
        try await Self.withBlossom { server, _ in
            let client = BlossomClient(timeout: 20)
            let alice = Keys.generate()
            let data = Self.bytes(300_000)
            let hash = BlobHash.sha256(data)
            #expect(try await client.exists(hash, on: server) == false)
            let descriptor = try await client.upload(data, type: "application/octet-stream", to: server, keys: alice, now: Self.now)
            #expect(descriptor.sha256 == hash)
            #expect(descriptor.size == data.count)
            #expect(descriptor.type == "application/octet-stream")
            #expect(descriptor.url.absoluteString == "\(server.absoluteString)/\(Hex.encode(hash)).bin")
            #expect(try await client.exists(hash, on: server))
            let downloaded = try await client.download(descriptor.url, expectedSHA256: hash, maxBytes: data.count)
            #expect(downloaded == data)
            #expect(try await client.list(alice.publicKey, on: server) == [descriptor])

            // Someone else's delete is refused and changes nothing.
            let mallory = Keys.generate()
            await Self.expectError(.refused(status: 403, reason: "only an uploader of this blob may delete it"), "mallory's delete") {
                try await client.delete(hash, on: server, keys: mallory, now: Self.now)
            }
            #expect(try await client.exists(hash, on: server))
            try await client.delete(hash, on: server, keys: alice, now: Self.now)
            #expect(try await client.exists(hash, on: server) == false)
            #expect(try await client.list(alice.publicKey, on: server).isEmpty)
            await Self.expectError(.refused(status: 404, reason: "blob not found"), "download after delete") {
                _ = try await client.download(descriptor.url, expectedSHA256: hash, maxBytes: data.count)
            }
        }
    }

    @Test func limitsAreReportedAsClearErrors() async throws {
        var blossom = BlossomConfiguration()
        blossom.maxBlobBytes = 100_000
        try await Self.withBlossom(blossom) { server, relay in
            let client = BlossomClient(timeout: 20)
            let keys = Keys.generate()
            // Larger than the server takes: 413, nothing stored.
            await Self.expectError(.tooLarge, "oversize upload") {
                _ = try await client.upload(Self.bytes(150_000), type: "image/png", to: server, keys: keys, now: Self.now)
            }
            #expect(await relay.storedBlobBytes() == 0)
            // Larger than the caller accepts: refused while downloading.
            let data = Self.bytes(90_000)
            let descriptor = try await client.upload(data, type: "image/png", to: server, keys: keys, now: Self.now)
            await Self.expectError(.tooLarge, "download over maxBytes") {
                _ = try await client.download(descriptor.url, expectedSHA256: descriptor.sha256, maxBytes: 50_000)
            }
            // A token from a badly set clock is refused by the server (401), not silently accepted.
            await Self.expectError(.refused(status: 401, reason: "authorization event has expired"), "expired token") {
                _ = try await client.upload(Self.bytes(10), type: "text/plain", to: server, keys: keys, now: Self.now - 3600)
            }
            // Nothing listens: unreachable.
            let closed = try #require(URL(string: "http://127.0.0.1:9"))
            do {
                _ = try await client.exists(descriptor.sha256, on: closed)
                Issue.record("no error from a closed port")
            } catch {
                guard case .unreachable? = error as? BlossomError else { Issue.record("expected unreachable, got \(error)"); return }
            }
            await Self.expectError(.invalidServer("ftp://127.0.0.1 is not http or https"), "ftp server") {
                _ = try await client.exists(descriptor.sha256, on: try #require(URL(string: "ftp://127.0.0.1")))
            }
        }
    }

    @Test func aRetryDoesNotUploadTwice() async throws {
        let puts = HitCounter()
        let stored = HitCounter()
        try await Self.withHostileServer({ router in
            router.head(":blob") { _, _ in
                Response(status: stored.value > 0 ? .ok : .notFound)
            }
            router.put("upload") { request, _ in
                puts.increment()
                let body = try await request.body.collect(upTo: 1 << 20)
                let hash = BlobHash.sha256(Data(buffer: body))
                stored.increment()
                let json = #"{"url":"http://127.0.0.1/x","sha256":"\#(Hex.encode(hash))","size":\#(body.readableBytes),"type":"a/b","uploaded":1}"#
                return Response(status: .created, body: .init(byteBuffer: ByteBuffer(string: json)))
            }
        }) { server in
            let client = BlossomClient(timeout: 60)
            let keys = Keys.generate()
            let data = Self.bytes(5000)
            // The first descriptor names another host: refused as invalid, though the server kept the blob.
            do {
                _ = try await client.upload(data, type: "a/b", to: server, keys: keys, now: Self.now)
                Issue.record("a descriptor on another host was accepted")
            } catch {
                guard case .invalidResponse? = error as? BlossomError else { Issue.record("expected invalidResponse, got \(error)"); return }
            }
            #expect(puts.value == 1)
            // The retry finds the blob (HEAD) and sends nothing again.
            let descriptor = try await client.upload(data, type: "a/b", to: server, keys: keys, now: Self.now)
            #expect(puts.value == 1)
            #expect(descriptor.sha256 == BlobHash.sha256(data))
            #expect(descriptor.url.absoluteString == "\(server.absoluteString)/\(Hex.encode(BlobHash.sha256(data)))")
        }
    }

    /// 100 uploads from 100 keys, eight at a time (the server's concurrent-upload slots): the quota
    /// holds exactly, every refusal is a 507, and no reservation or partial file is left.
    @Test func aFloodOfUploadsStopsAtTheQuota() async throws {
        var blossom = BlossomConfiguration()
        blossom.quotaBytes = 1_000_000
        blossom.maxConcurrentUploads = 8
        let size = 30_000
        try await Self.withBlossom(blossom) { server, relay in
            let next = HitCounter()
            let outcomes = try await withThrowingTaskGroup(of: [Int].self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        let client = BlossomClient(timeout: 30)
                        var statuses: [Int] = []
                        while true {
                            let index = next.increment()
                            guard index <= 100 else { return statuses }
                            let data = Self.bytes(size, seed: UInt8(truncatingIfNeeded: index)) + Data("\(index)".utf8)
                            do {
                                _ = try await client.upload(data, type: "application/octet-stream", to: server,
                                                            keys: Keys.generate(), now: Self.now)
                                statuses.append(201)
                            } catch {
                                guard case .refused(let status, _)? = error as? BlossomError else { throw error }
                                statuses.append(status)
                            }
                        }
                    }
                }
                return try await group.reduce(into: [Int]()) { $0 += $1 }
            }
            #expect(outcomes.count == 100)
            let stored = outcomes.filter { $0 == 201 }.count
            #expect(Set(outcomes).isSubset(of: [201, 507]), "\(Set(outcomes))")
            let blobBytes = Int64(await relay.storedBlobBytes() ?? -1)
            #expect(blobBytes <= 1_000_000)
            #expect(stored >= 1_000_000 / (size + 3) - 1, "only \(stored) uploads fit")
            #expect(await relay.blobBytesInFlight() == 0)
            let folder = try #require(await relay.blobDirectory)
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { BlobHash.parse($0) != nil }
            #expect(files.count == stored)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(".incoming").path).isEmpty)
        }
    }

    /// A 32 MiB blob streams up and back intact (printed: the speed on this machine).
    @Test func aLargeBlobRoundTrips() async throws {
        try await Self.withBlossom { server, _ in
            let block = Self.bytes(1 << 20)
            var data = Data(capacity: 32 << 20)
            for index in 0..<32 {
                var copy = block
                copy[0] = UInt8(index)
                data.append(copy)
            }
            let client = BlossomClient(timeout: 60)
            let start = ContinuousClock.now
            let descriptor = try await client.upload(data, type: "video/mp4", to: server, keys: Keys.generate(), now: Self.now)
            let uploaded = ContinuousClock.now
            let back = try await client.download(descriptor.url, expectedSHA256: descriptor.sha256, maxBytes: 32 << 20)
            let downloaded = ContinuousClock.now
            #expect(back == data)
            #expect(descriptor.url.pathExtension == "mp4")
            func rate(_ d: Duration) -> String {
                let seconds = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
                return String(format: "%.1f MB/s", 32 * 1.048576 / max(seconds, 1e-6))
            }
            print("Blossom 32 MiB over loopback: upload \(rate(uploaded - start)), download \(rate(downloaded - uploaded))")
        }
    }

    // MARK: Hostile servers

    @Test func aDescriptorForAnotherHashIsAHashMismatch() async throws {
        try await Self.withHostileServer({ router in
            router.head(":blob") { _, _ in Response(status: .notFound) }
            router.put("upload") { request, _ in
                _ = try await request.body.collect(upTo: 1 << 20)
                let other = Hex.encode(BlobHash.sha256(Data("something else".utf8)))
                let host = request.head.authority ?? "127.0.0.1"
                let json = #"{"url":"http://\#(host)/\#(other).bin","sha256":"\#(other)","size":5000,"type":"a/b","uploaded":1}"#
                return Response(status: .created, body: .init(byteBuffer: ByteBuffer(string: json)))
            }
        }) { server in
            await Self.expectError(.hashMismatch, "descriptor with another sha256") {
                _ = try await BlossomClient(timeout: 60).upload(Self.bytes(5000), type: "a/b", to: server, keys: Keys.generate(), now: Self.now)
            }
        }
    }

    @Test func servedBytesThatDoNotMatchTheHashAreRefused() async throws {
        let asked = Self.bytes(4000)
        try await Self.withHostileServer({ router in
            router.get(":blob") { _, _ in
                var forged = Self.bytes(4000)
                forged[17] ^= 0xFF
                return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: forged)))
            }
        }) { server in
            let hash = BlobHash.sha256(asked)
            await Self.expectError(.hashMismatch, "forged bytes") {
                _ = try await BlossomClient(timeout: 60).download(server.appendingPathComponent(Hex.encode(hash)),
                                                                  expectedSHA256: hash, maxBytes: 1 << 20)
            }
        }
    }

    @Test func aTransferCutShortIsAnInterruptionNotACrash() async throws {
        try await Self.withHostileServer({ router in
            router.get(":blob") { _, _ in
                Response(status: .ok, body: ResponseBody(contentLength: 500_000) { writer in
                    try await writer.write(ByteBuffer(bytes: [UInt8](repeating: 7, count: 100_000)))
                    throw CancellationError()
                })
            }
        }) { server in
            let hash = BlobHash.sha256(Self.bytes(500_000))
            do {
                _ = try await BlossomClient(timeout: 60).download(server.appendingPathComponent(Hex.encode(hash)),
                                                                  expectedSHA256: hash, maxBytes: 1 << 20)
                Issue.record("a cut transfer was accepted")
            } catch {
                switch error as? BlossomError {
                case .interrupted?, .unreachable?: break
                default: Issue.record("expected an interruption, got \(error)")
                }
            }
        }
    }

    @Test func anEndlessOrOverAnnouncedBodyStopsAtMaxBytes() async throws {
        let sent = HitCounter()
        try await Self.withHostileServer({ router in
            // No Content-Length: chunks without end (200 MiB if nobody stops it).
            router.get("endless/:blob") { _, _ in
                Response(status: .ok, body: ResponseBody { writer in
                    let chunk = ByteBuffer(bytes: [UInt8](repeating: 1, count: 64 * 1024))
                    for _ in 0..<3200 {
                        try await writer.write(chunk)
                        sent.increment()
                    }
                    try await writer.finish(nil)
                })
            }
            router.get("announced/:blob") { _, _ in
                Response(status: .ok, headers: [.contentLength: String(1 << 30)], body: ResponseBody(contentLength: 1 << 30) { writer in
                    try await writer.write(ByteBuffer(bytes: [UInt8](repeating: 1, count: 1024)))
                    throw CancellationError()
                })
            }
        }) { server in
            let client = BlossomClient(timeout: 60)
            let hash = BlobHash.sha256(Data("wanted".utf8))
            await Self.expectError(.tooLarge, "endless body") {
                _ = try await client.download(server.appendingPathComponent("endless").appendingPathComponent(Hex.encode(hash)),
                                              expectedSHA256: hash, maxBytes: 1 << 20)
            }
            // The client refuses the body past its limit (above). How much the server managed to write
            // is not asserted: URLSession on Linux (libcurl) keeps reading into its own buffer until the
            // cancel takes effect, which on a loaded machine can be the whole body.
            await Self.expectError(.tooLarge, "over-announced body") {
                _ = try await client.download(server.appendingPathComponent("announced").appendingPathComponent(Hex.encode(hash)),
                                              expectedSHA256: hash, maxBytes: 1 << 20)
            }
        }
    }

    // MARK: Authorization tokens

    @Test func authorizationTokensRoundTripAndAreScoped() throws {
        let keys = Keys.generate()
        let hash = BlobHash.sha256(Data("blob".utf8))
        let now: Int64 = 1_700_000_000
        let event = try BlossomAuthorization.signed(verb: .upload, keys: keys, hashes: [hash], server: "Blossom.Example", now: now)
        let header = BlossomAuthorization.header(for: event)
        #expect(header.hasPrefix("Nostr "))
        #expect(!header.contains("=") && !header.contains("+") && !header.contains("/"))
        let parsed = try BlossomAuthorization.verify(header: header, verb: .upload, hash: hash, now: now + 10, serverDomain: "blossom.example")
        #expect(parsed == event)
        #expect(parsed.tagValues("server") == ["blossom.example"])
        #expect(throws: BlossomAuthorizationError.wrongServer) {
            try BlossomAuthorization.verify(header: header, verb: .upload, hash: hash, now: now, serverDomain: "other.example")
        }
        #expect(throws: BlossomAuthorizationError.expired) {
            try BlossomAuthorization.verify(header: header, verb: .upload, hash: hash, now: now + 301)
        }
        #expect(throws: BlossomAuthorizationError.wrongVerb(expected: "delete")) {
            try BlossomAuthorization.verify(header: header, verb: .delete, hash: hash, now: now)
        }
        #expect(throws: BlossomAuthorizationError.hashNotAuthorized) {
            try BlossomAuthorization.verify(header: header, verb: .upload, hash: BlobHash.sha256(Data()), now: now)
        }
        #expect(throws: BlossomAuthorizationError.createdInFuture) {
            try BlossomAuthorization.verify(header: header, verb: .upload, hash: hash, now: now - 120)
        }
        // Standard padded base64 (older clients) is read too.
        let padded = "Nostr " + Data(event.jsonBytes).base64EncodedString()
        #expect(try BlossomAuthorization.parse(header: padded) == event)
        #expect(throws: BlossomAuthorizationError.missing) { try BlossomAuthorization.parse(header: nil) }
        #expect(throws: BlossomAuthorizationError.malformed("token too long")) {
            try BlossomAuthorization.parse(header: "Nostr " + String(repeating: "A", count: 20_000))
        }
    }

    @Test func descriptorsDecodeStrictly() throws {
        let hash = Hex.encode(BlobHash.sha256(Data("d".utf8)))
        let good = #"{"url":"https://cdn.example/\#(hash).png","sha256":"\#(hash)","size":12,"type":"image/png","uploaded":5}"#
        let descriptor = try JSONDecoder().decode(BlobDescriptor.self, from: Data(good.utf8))
        #expect(descriptor.size == 12)
        #expect(try JSONDecoder().decode(BlobDescriptor.self, from: JSONEncoder().encode(descriptor)) == descriptor)
        for bad in [
            #"{"url":"file:///etc/passwd","sha256":"\#(hash)","size":12,"uploaded":5}"#,
            #"{"url":"https://cdn.example/x","sha256":"zz","size":12,"uploaded":5}"#,
            #"{"url":"https://cdn.example/x","sha256":"\#(hash)","size":-1,"uploaded":5}"#,
        ] {
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(BlobDescriptor.self, from: Data(bad.utf8)) }
        }
    }
}

/// A thread-safe counter for hostile servers' handlers.
final class HitCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    @discardableResult func increment() -> Int { lock.withLock { count += 1; return count } }
}
