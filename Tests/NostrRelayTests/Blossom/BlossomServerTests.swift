import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Nostr
@testable import NostrRelay
import TestSupport
import Testing

/// The relay's embedded Blossom server over loopback HTTP: BUD-01/02/12 endpoints, BUD-11
/// authorization really forged, expired, misdirected and missing, size and quota limits, and uploads
/// cut off or oversized by a raw socket, with the disk checked for partial files.
@Suite(.timeLimit(.minutes(2))) struct BlossomServerTests {
    struct Answer {
        let status: Int
        let headers: [String: String]
        let body: Data
        func header(_ name: String) -> String? {
            headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    static func base(_ url: String) -> String { "http" + url.dropFirst(2) }

    /// One HTTP request through URLSession (no caching, no cookies).
    static func send(_ method: String, _ url: String, headers: [String: String] = [:], body: Data? = nil) async throws -> Answer {
        var request = URLRequest(url: try #require(URL(string: url)))
        request.httpMethod = method
        request.cachePolicy = .reloadIgnoringLocalCacheData
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response): (Data, URLResponse)
        if let body {
            (data, response) = try await URLSession.shared.upload(for: request, from: body)
        } else {
            (data, response) = try await URLSession.shared.data(for: request)
        }
        let http = try #require(response as? HTTPURLResponse)
        var fields: [String: String] = [:]
        for (key, value) in http.allHeaderFields { if let key = key as? String, let value = value as? String { fields[key] = value } }
        return Answer(status: http.statusCode, headers: fields, body: data)
    }

    static func auth(_ verb: BlossomVerb, _ hashes: [Data], keys: Keys = TestEvents.alice, now: Int64 = TestEvents.now,
                     lifetime: Int64 = 300) throws -> String {
        BlossomAuthorization.header(for: try BlossomAuthorization.signed(verb: verb, keys: keys, hashes: hashes, now: now, lifetime: lifetime))
    }

    static func upload(_ base: String, _ data: Data, keys: Keys = TestEvents.alice, type: String = "application/octet-stream",
                       authorization: String?? = nil) async throws -> Answer {
        var headers = ["Content-Type": type]
        switch authorization {
        case .none: headers["Authorization"] = try auth(.upload, [BlobHash.sha256(data)], keys: keys)
        case .some(.some(let value)): headers["Authorization"] = value
        case .some(.none): break
        }
        return try await send("PUT", base + "/upload", headers: headers, body: data)
    }

    /// Files in the blob folder and its `.incoming/` (not the index).
    static func blobFiles(_ server: RelayServer) async throws -> (blobs: [String], incoming: [String]) {
        let folder = try #require(await server.blobDirectory)
        let manager = FileManager.default
        let blobs = try manager.contentsOfDirectory(atPath: folder.path).filter { BlobHash.parse($0) != nil }
        let incoming = try manager.contentsOfDirectory(atPath: folder.appendingPathComponent(".incoming").path)
        return (blobs.sorted(), incoming)
    }

    static func configuration(maxBlob: Int64 = 100 << 20, quota: Int64? = 1 << 30) -> RelayConfiguration {
        var configuration = RelayConfiguration()
        var blossom = BlossomConfiguration()
        blossom.maxBlobBytes = maxBlob
        blossom.quotaBytes = quota
        configuration.blossom = blossom
        return configuration
    }

    static func bytes(_ count: Int, seed: UInt8 = 7) -> Data { Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }) }

    // MARK: BUD-01 and BUD-02

    @Test func uploadThenGetHeadAndListServeTheSameBlob() async throws {
        try await withRelay { server, url in
            let base = Self.base(url)
            #expect(await server.blossomURL == base)
            let data = Self.bytes(70_000)
            let hash = Hex.encode(BlobHash.sha256(data))
            let created = try await Self.upload(base, data, type: "image/png")
            #expect(created.status == 201, "\(created.header("X-Reason") ?? "")")
            #expect(created.header("Access-Control-Allow-Origin") == "*")
            let descriptor = try #require(try JSONSerialization.jsonObject(with: created.body) as? [String: Any])
            #expect(descriptor["sha256"] as? String == hash)
            #expect(descriptor["size"] as? Int == data.count)
            #expect(descriptor["type"] as? String == "image/png")
            #expect(descriptor["url"] as? String == "\(base)/\(hash).png")
            #expect(abs(((descriptor["uploaded"] as? Int).map(Int64.init) ?? 0) - TestEvents.now) < 60)

            let got = try await Self.send("GET", "\(base)/\(hash)")
            #expect(got.status == 200)
            #expect(got.body == data)
            #expect(got.header("Content-Type") == "image/png")
            let withExtension = try await Self.send("GET", "\(base)/\(hash).jpg")
            #expect(withExtension.body == data)
            let head = try await Self.send("HEAD", "\(base)/\(hash).png")
            #expect(head.status == 200)
            #expect(head.header("Content-Length") == String(data.count))
            #expect(head.header("Content-Type") == "image/png")
            #expect(head.body.isEmpty)

            let absent = Hex.encode(BlobHash.sha256(Data("absent".utf8)))
            #expect(try await Self.send("GET", "\(base)/\(absent)").status == 404)
            #expect(try await Self.send("HEAD", "\(base)/\(absent)").status == 404)
            #expect(try await Self.send("GET", "\(base)/not-a-hash").status == 400)

            // The same bytes again: 200 with the same descriptor, stored once.
            let again = try await Self.upload(base, data, type: "image/png")
            #expect(again.status == 200)
            #expect(try await Self.blobFiles(server).blobs == [hash])
            #expect(await server.storedBlobBytes() == Int64(data.count))

            let listed = try await Self.send("GET", "\(base)/list/\(TestEvents.alice.publicKey.hex)")
            #expect(listed.status == 200)
            let items = try #require(try JSONSerialization.jsonObject(with: listed.body) as? [[String: Any]])
            #expect(items.map { $0["sha256"] as? String } == [hash])
            let other = try await Self.send("GET", "\(base)/list/\(TestEvents.bob.publicKey.hex)")
            #expect(String(decoding: other.body, as: UTF8.self) == "[]")
            // The relay's own endpoints are untouched.
            let info = try await Self.send("GET", base + "/", headers: ["Accept": "application/nostr+json"])
            #expect(info.status == 200)
        }
    }

    @Test func listPagesNewestFirstWithACursor() async throws {
        try await withRelay { _, url in
            let base = Self.base(url)
            var hashes: [String] = []
            for index in 0..<3 {
                let data = Self.bytes(100 + index, seed: UInt8(index))
                #expect(try await Self.upload(base, data).status == 201)
                hashes.append(Hex.encode(BlobHash.sha256(data)))
            }
            let list = "\(base)/list/\(TestEvents.alice.publicKey.hex)"
            func page(_ query: String) async throws -> [String] {
                let answer = try await Self.send("GET", list + query)
                let items = try #require(try JSONSerialization.jsonObject(with: answer.body) as? [[String: Any]])
                return items.compactMap { $0["sha256"] as? String }
            }
            let all = try await page("")
            #expect(Set(all) == Set(hashes))
            let first = try await page("?limit=2")
            #expect(first == Array(all.prefix(2)))
            let rest = try await page("?limit=2&cursor=\(first[1])")
            #expect(rest == [all[2]])
            #expect(try await Self.send("GET", list + "?limit=zero").status == 400)
            #expect(try await Self.send("GET", "\(base)/list/nothex").status == 400)
        }
    }

    // MARK: BUD-11 authorization, really attacked

    @Test func uploadsWithoutAValidTokenAreRefusedAndStoreNothing() async throws {
        try await withRelay { server, url in
            let base = Self.base(url)
            let data = Self.bytes(5000)
            let hash = BlobHash.sha256(data)
            let now = TestEvents.now
            let other = BlobHash.sha256(Data("another blob".utf8))
            var forged = try BlossomAuthorization.signed(verb: .upload, keys: TestEvents.alice, hashes: [hash], now: now)
            // Same signature over different tags: a token lifted from one upload and edited for another.
            forged = Event(id: forged.id, pubkey: forged.pubkey, createdAt: forged.createdAt, kind: forged.kind,
                           tags: forged.tags + [["x", Hex.encode(other)]], content: forged.content, sig: forged.sig)
            let stolen = try BlossomAuthorization.signed(verb: .upload, keys: TestEvents.alice, hashes: [hash], now: now)
            let impostor = Event(id: stolen.id, pubkey: TestEvents.bob.publicKey, createdAt: stolen.createdAt,
                                 kind: stolen.kind, tags: stolen.tags, content: stolen.content, sig: stolen.sig)
            let wrongKind = try UnsignedEvent(pubkey: TestEvents.alice.publicKey, createdAt: now, kind: .textNote,
                                              tags: [["t", "upload"], ["expiration", String(now + 300)], ["x", Hex.encode(hash)]],
                                              content: "").signed(with: TestEvents.alice)
            let noExpiration = try UnsignedEvent(pubkey: TestEvents.alice.publicKey, createdAt: now, kind: .blossomAuthorization,
                                                 tags: [["t", "upload"], ["x", Hex.encode(hash)]], content: "").signed(with: TestEvents.alice)
            let cases: [(String, String?)] = [
                ("no Authorization", nil),
                ("not the Nostr scheme", "Bearer abc"),
                ("not base64", "Nostr !!!"),
                ("wrong x", try Self.auth(.upload, [other])),
                ("no x", try Self.auth(.upload, [])),
                ("wrong verb", try Self.auth(.delete, [hash])),
                ("expired", try Self.auth(.upload, [hash], now: now - 1000, lifetime: 100)),
                ("dated in the future", try Self.auth(.upload, [hash], now: now + 3600)),
                ("edited after signing", BlossomAuthorization.header(for: forged)),
                ("someone else's signature", BlossomAuthorization.header(for: impostor)),
                ("wrong kind", BlossomAuthorization.header(for: wrongKind)),
                ("no expiration", BlossomAuthorization.header(for: noExpiration)),
            ]
            for (what, header) in cases {
                let answer = try await Self.upload(base, data, authorization: .some(header))
                #expect(answer.status == 401, "\(what): \(answer.status)")
                #expect(answer.header("X-Reason")?.isEmpty == false, "\(what)")
            }
            // A token for the right hash, but an X-SHA-256 that lies about the body: 409, not stored.
            let lying = try await Self.send("PUT", base + "/upload",
                                            headers: ["Authorization": try Self.auth(.upload, [hash, other]), "X-SHA-256": Hex.encode(other)],
                                            body: data)
            #expect(lying.status == 409)
            #expect(try await Self.blobFiles(server).blobs.isEmpty)
            #expect(try await Self.blobFiles(server).incoming.isEmpty)
            #expect(await server.storedBlobBytes() == 0)
            #expect(try await Self.send("HEAD", "\(base)/\(Hex.encode(hash))").status == 404)
        }
    }

    @Test func onlyAnUploaderDeletesAndTheBlobGoesWithItsLastOwner() async throws {
        try await withRelay { server, url in
            let base = Self.base(url)
            let data = Self.bytes(3000)
            let hash = BlobHash.sha256(data)
            let path = "\(base)/\(Hex.encode(hash))"
            #expect(try await Self.upload(base, data, keys: TestEvents.alice).status == 201)
            let mallory = Keys.generate()
            // Someone who never uploaded it, with a valid delete token of their own: 403, still served.
            let refused = try await Self.send("DELETE", path, headers: ["Authorization": try Self.auth(.delete, [hash], keys: mallory)])
            #expect(refused.status == 403)
            #expect(try await Self.send("HEAD", path).status == 200)
            // Alice's token for another hash, or an upload token, does not delete it either.
            let otherHash = BlobHash.sha256(Data("x".utf8))
            #expect(try await Self.send("DELETE", path, headers: ["Authorization": try Self.auth(.delete, [otherHash])]).status == 401)
            #expect(try await Self.send("DELETE", path, headers: ["Authorization": try Self.auth(.upload, [hash])]).status == 401)
            #expect(try await Self.send("DELETE", path).status == 401)

            // Bob uploads the same bytes: two owners. Alice's delete removes only her claim.
            #expect(try await Self.upload(base, data, keys: TestEvents.bob).status == 200)
            #expect(try await Self.send("DELETE", path, headers: ["Authorization": try Self.auth(.delete, [hash])]).status == 204)
            #expect(try await Self.send("GET", path).body == data)
            let aliceList = try await Self.send("GET", "\(base)/list/\(TestEvents.alice.publicKey.hex)")
            #expect(String(decoding: aliceList.body, as: UTF8.self) == "[]")
            // Bob's delete removes the blob and its file.
            #expect(try await Self.send("DELETE", path, headers: ["Authorization": try Self.auth(.delete, [hash], keys: TestEvents.bob)]).status == 204)
            #expect(try await Self.send("GET", path).status == 404)
            #expect(try await Self.blobFiles(server).blobs.isEmpty)
            #expect(await server.storedBlobBytes() == 0)
            #expect(try await Self.send("DELETE", path, headers: ["Authorization": try Self.auth(.delete, [hash], keys: TestEvents.bob)]).status == 404)
        }
    }

    @Test func webPagesCannotUploadDeleteOrListButMayRead() async throws {
        var configuration = RelayConfiguration()
        configuration.allowedOrigins = ["http://localhost:8000"]
        try await withRelay(configuration) { server, url in
            let base = Self.base(url)
            let data = Self.bytes(1000)
            let hash = BlobHash.sha256(data)
            let headers = ["Authorization": try Self.auth(.upload, [hash]), "Origin": "https://evil.example"]
            let evil = try await Self.send("PUT", base + "/upload", headers: headers, body: data)
            #expect(evil.status == 403)
            #expect(try await Self.blobFiles(server).blobs.isEmpty)
            let listed = try await Self.send("GET", "\(base)/list/\(TestEvents.alice.publicKey.hex)", headers: ["Origin": "https://evil.example"])
            #expect(listed.status == 403)
            let preflight = try await Self.send("OPTIONS", base + "/upload",
                                                headers: ["Origin": "https://evil.example", "Access-Control-Request-Method": "PUT"])
            #expect(preflight.header("Access-Control-Allow-Origin") == nil)
            // The allowed origin uploads; any page reads.
            let allowed = try await Self.send("PUT", base + "/upload",
                                              headers: ["Authorization": try Self.auth(.upload, [hash]), "Origin": "http://localhost:8000"],
                                              body: data)
            #expect(allowed.status == 201)
            let read = try await Self.send("GET", "\(base)/\(Hex.encode(hash))", headers: ["Origin": "https://evil.example"])
            #expect(read.status == 200)
            #expect(read.header("Access-Control-Allow-Origin") == "*")
        }
    }

    // MARK: Limits

    @Test func anOversizeUploadIsRefusedBeforeItsBodyIsReadAndNothingIsStored() async throws {
        try await withRelay(Self.configuration(maxBlob: 64 * 1024)) { server, url in
            let base = Self.base(url)
            let port = try #require(URLComponents(string: url)?.port)
            let hash = BlobHash.sha256(Data("claimed".utf8))
            // Announces 200 MiB, sends 16 KiB: the answer comes at once, and the relay stops reading.
            let socket = try HTTPSocket(port: port)
            let head = "PUT /upload HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAuthorization: \(try Self.auth(.upload, [hash]))\r\n"
                + "Content-Type: application/octet-stream\r\nContent-Length: \(200 << 20)\r\n\r\n"
            #expect(await socket.send(Array(head.utf8) + [UInt8](repeating: 1, count: 16 * 1024)))
            let answer = try #require(await socket.response())
            #expect(answer.status == 413, "\(answer.head)")
            #expect(answer.head.lowercased().contains("x-reason: blob is larger"))
            // Sending on: the relay does not drain 200 MiB; the connection ends instead.
            var sent = 0
            while sent < 200 << 20, await socket.send([UInt8](repeating: 2, count: 1 << 20)) { sent += 1 << 20 }
            #expect(sent < 100 << 20, "the relay read \(sent) bytes of a refused body")

            // Without Content-Length (chunked), counted while streaming: 413 at the limit, nothing kept.
            let data = Self.bytes(200 * 1024)
            let chunked = try HTTPSocket(port: port)
            let chunkedHead = "PUT /upload HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAuthorization: \(try Self.auth(.upload, [BlobHash.sha256(data)]))\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n"
            var body = Array(chunkedHead.utf8)
            for offset in stride(from: 0, to: data.count, by: 32 * 1024) {
                let chunk = data[offset..<min(offset + 32 * 1024, data.count)]
                body += Array((String(chunk.count, radix: 16) + "\r\n").utf8) + Array(chunk) + Array("\r\n".utf8)
            }
            body += Array("0\r\n\r\n".utf8)
            _ = await chunked.send(body)
            let streamed = try #require(await chunked.response())
            #expect(streamed.status == 413, "\(streamed.head)")

            // The limit itself is accepted.
            #expect(try await Self.upload(base, Self.bytes(64 * 1024)).status == 201)
            let files = try await Self.blobFiles(server)
            #expect(files.blobs == [Hex.encode(BlobHash.sha256(Self.bytes(64 * 1024)))])
            #expect(files.incoming.isEmpty)
            #expect(await server.storedBlobBytes() == 64 * 1024)
        }
    }

    @Test func theQuotaHoldsAndFreesOnDelete() async throws {
        try await withRelay(Self.configuration(maxBlob: 4000, quota: 10_000)) { server, url in
            let base = Self.base(url)
            var stored: [Data] = []
            for index in 0..<2 {
                let data = Self.bytes(4000, seed: UInt8(index))
                #expect(try await Self.upload(base, data).status == 201)
                stored.append(data)
            }
            let third = Self.bytes(4000, seed: 9)
            let full = try await Self.upload(base, third)
            #expect(full.status == 507)
            #expect(full.header("X-Reason")?.contains("quota") == true)
            #expect(await server.storedBlobBytes() == 8000)
            #expect(try await Self.blobFiles(server).incoming.isEmpty)
            // What still fits does.
            #expect(try await Self.upload(base, Self.bytes(2000, seed: 3)).status == 201)
            // A delete frees room.
            let hash = BlobHash.sha256(stored[0])
            #expect(try await Self.send("DELETE", "\(base)/\(Hex.encode(hash))",
                                        headers: ["Authorization": try Self.auth(.delete, [hash])]).status == 204)
            #expect(try await Self.upload(base, third).status == 201)
            #expect(await server.storedBlobBytes() == 10_000)
        }
    }

    @Test func oneUploaderCannotTakeMoreThanItsCap() async throws {
        var configuration = Self.configuration(maxBlob: 10_000, quota: 100_000)
        configuration.blossom?.maxBytesPerUploader = 5000
        try await withRelay(configuration) { server, url in
            let base = Self.base(url)
            #expect(try await Self.upload(base, Self.bytes(4000, seed: 1)).status == 201)
            let over = try await Self.upload(base, Self.bytes(4000, seed: 2))
            #expect(over.status == 507)
            #expect(over.header("X-Reason")?.contains("cap") == true)
            // Re-uploading what it already owns is not counted twice; another key has its own cap.
            let owned = Self.bytes(4000, seed: 1)
            let again = try await Self.send("PUT", base + "/upload", headers: [
                "Authorization": try Self.auth(.upload, [BlobHash.sha256(owned)]), "X-SHA-256": Hex.encode(BlobHash.sha256(owned)),
            ], body: owned)
            #expect(again.status == 200)
            #expect(try await Self.upload(base, Self.bytes(4000, seed: 2), keys: TestEvents.bob).status == 201)
            #expect(await server.storedBlobBytes() == 8000)
        }
    }

    @Test func anUploadCutOffMidwayLeavesNoFileAndNoReservedBytes() async throws {
        try await withRelay(Self.configuration(maxBlob: 1 << 20, quota: 1 << 20)) { server, url in
            let base = Self.base(url)
            let port = try #require(URLComponents(string: url)?.port)
            let data = Self.bytes(1 << 20)
            let socket = try HTTPSocket(port: port)
            let head = "PUT /upload HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAuthorization: \(try Self.auth(.upload, [BlobHash.sha256(data)]))\r\n"
                + "Content-Length: \(data.count)\r\n\r\n"
            #expect(await socket.send(Array(head.utf8) + Array(data.prefix(600_000))))
            // Wait until the relay is taking the upload in (bytes reserved against the quota), then cut it off.
            var inFlight: Int64 = 0
            for _ in 0..<200 {
                inFlight = await server.blobBytesInFlight() ?? 0
                if inFlight > 0 { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(inFlight > 0, "the relay never started taking the upload in")
            socket.close()
            for _ in 0..<200 where await server.blobBytesInFlight() != 0 { try await Task.sleep(for: .milliseconds(50)) }
            #expect(await server.blobBytesInFlight() == 0, "the aborted upload's reservation was not given back")
            let files = try await Self.blobFiles(server)
            #expect(files.incoming.isEmpty, "partial upload left: \(files.incoming)")
            #expect(files.blobs.isEmpty)
            #expect(await server.storedBlobBytes() == 0)
            // Its reservation was given back: the whole quota is usable.
            #expect(try await Self.upload(base, data).status == 201)
        }
    }

    /// Slowloris: an upload that stops sending holds its slot only until the stall timeout.
    @Test func aStalledUploadIsCutOffAndFreesItsSlot() async throws {
        var configuration = Self.configuration(maxBlob: 1 << 20, quota: 1 << 20)
        configuration.blossom?.maxConcurrentUploads = 1
        // 3 s, not less: on a loaded machine the honest uploads below can pause for over a second.
        configuration.blossom?.uploadStallTimeout = .seconds(3)
        try await withRelay(configuration) { server, url in
            let base = Self.base(url)
            let port = try #require(URLComponents(string: url)?.port)
            let data = Self.bytes(100_000)
            let socket = try HTTPSocket(port: port)
            let head = "PUT /upload HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAuthorization: \(try Self.auth(.upload, [BlobHash.sha256(data)]))\r\n"
                + "Content-Length: \(data.count)\r\n\r\n"
            #expect(await socket.send(Array(head.utf8) + Array(data.prefix(10_000))))
            // The only slot is taken: another upload meanwhile gets 429.
            for _ in 0..<100 where await server.blobBytesInFlight() == 0 { try await Task.sleep(for: .milliseconds(20)) }
            let busy = try await Self.upload(base, Self.bytes(10, seed: 4))
            #expect(busy.status == 429)
            // The trickler sends nothing more: the relay closes its connection.
            #expect(await socket.endOfStream())
            for _ in 0..<100 where await server.blobBytesInFlight() != 0 { try await Task.sleep(for: .milliseconds(20)) }
            #expect(await server.blobBytesInFlight() == 0)
            #expect(try await Self.upload(base, data).status == 201)
            #expect(try await Self.blobFiles(server).incoming.isEmpty)
        }
    }

    @Test func blobsSurviveARestartAndLeftoversAreCleanedAtOpen() async throws {
        let database = TestEvents.temporaryDatabasePath()
        var configuration = RelayConfiguration()
        configuration.storage = .file(path: database)
        let server = RelayServer(configuration: configuration, logger: testLogger("relay"))
        let port = try await server.start()
        let base = "http://127.0.0.1:\(port)"
        let data = Self.bytes(9000)
        let hash = Hex.encode(BlobHash.sha256(data))
        #expect(try await Self.upload(base, data).status == 201)
        let folder = URL(fileURLWithPath: database).deletingLastPathComponent().appendingPathComponent("blobs")
        #expect(await server.blobDirectory?.standardizedFileURL == folder.standardizedFileURL)
        await server.stop()
        let mode = try FileManager.default.attributesOfItem(atPath: folder.path)[.posixPermissions] as? Int
        #expect(mode.map { $0 & 0o777 } == 0o700)
        // What a crash can leave: a partial upload, and a file renamed in but never indexed.
        try Data("partial".utf8).write(to: folder.appendingPathComponent(".incoming/crash.part"))
        let orphan = Hex.encode(BlobHash.sha256(Data("orphan".utf8)))
        try Data("orphan".utf8).write(to: folder.appendingPathComponent(orphan))

        let port2 = try await server.start()
        let base2 = "http://127.0.0.1:\(port2)"
        let got = try await Self.send("GET", "\(base2)/\(hash)")
        #expect(got.body == data)
        #expect(try await Self.send("GET", "\(base2)/\(orphan)").status == 404)
        let files = try await Self.blobFiles(server)
        #expect(files.blobs == [hash])
        #expect(files.incoming.isEmpty)
        #expect(await server.storedBlobBytes() == Int64(data.count))
        await server.stop()
        try? FileManager.default.removeItem(at: URL(fileURLWithPath: database).deletingLastPathComponent())
    }

    @Test func withoutBlossomTheRoutesAreAbsent() async throws {
        var configuration = RelayConfiguration()
        configuration.blossom = nil
        try await withRelay(configuration) { server, url in
            #expect(await server.blossomURL == nil)
            let data = Self.bytes(100)
            let answer = try await Self.upload(Self.base(url), data)
            #expect(answer.status == 404)
        }
    }
}
