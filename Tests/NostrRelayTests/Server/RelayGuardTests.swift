import Foundation
import Nostr
import NostrClient
@testable import NostrRelay
import TestSupport
import Testing

/// The relay on a hostile network: web pages, socket floods, oversize frames, event floods and a
/// disk-filling client, each really attempted over loopback sockets.
@Suite(.timeLimit(.minutes(2))) struct RelayGuardTests {
    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    static func port(_ url: String) throws -> Int {
        try #require(URLComponents(string: url)?.port)
    }

    @Test func upgradesCarryingABrowserOriginAreRefusedNativeOnesAreNot() async throws {
        try await withRelay { server, url in
            let port = try Self.port(url)
            // A page on another site (cross-site WebSocket hijacking): no WebSocket.
            let evil = try HandshakeSocket(port: port)
            let refused = try await evil.upgrade(port: port, origin: "https://evil.example")
            #expect(refused.status != 101, "\(refused.head)")
            #expect((400..<500).contains(refused.status), "\(refused.head)")
            #expect(await evil.endOfStream())
            // Even a page served from loopback, and the `null` origin of data: and sandboxed pages.
            for origin in ["http://127.0.0.1:8000", "null"] {
                let socket = try HandshakeSocket(port: port)
                #expect(try await socket.upgrade(port: port, origin: origin).status != 101, "\(origin)")
            }
            // A native client sends no Origin, or a ws: one (swift-websocket, our client).
            let native = try HandshakeSocket(port: port)
            #expect(try await native.upgrade(port: port, origin: nil).status == 101)
            let library = try HandshakeSocket(port: port)
            #expect(try await library.upgrade(port: port, origin: "ws://127.0.0.1").status == 101)
            let socket = try await RawSocket.connect(url)
            defer { socket.close() }
            let event = try TestEvents.make(createdAt: TestEvents.now)
            socket.send(ClientMessage.event(event).jsonString)
            #expect(await socket.nextMessage() == .ok(event.id, accepted: true, message: ""))
            #expect(try await server.storedEventCount() == 1)
        }
    }

    @Test func anAllowedOriginMayConnect() async throws {
        var configuration = RelayConfiguration()
        configuration.allowedOrigins = ["http://localhost:8000/"]
        try await withRelay(configuration) { _, url in
            let port = try Self.port(url)
            #expect(try await HandshakeSocket(port: port).upgrade(port: port, origin: "http://localhost:8000").status == 101)
            #expect(try await HandshakeSocket(port: port).upgrade(port: port, origin: "HTTP://LOCALHOST:8000").status == 101)
            #expect(try await HandshakeSocket(port: port).upgrade(port: port, origin: "http://localhost:8001").status != 101)
            #expect(try await HandshakeSocket(port: port).upgrade(port: port, origin: "https://evil.example").status != 101)
        }
    }

    @Test func theConnectionCapRefusesFurtherUpgrades() async throws {
        var configuration = RelayConfiguration()
        configuration.maxConnections = 3
        try await withRelay(configuration) { server, url in
            let port = try Self.port(url)
            var held: [HandshakeSocket] = []
            for _ in 0..<3 {
                let socket = try HandshakeSocket(port: port)
                #expect(try await socket.upgrade(port: port, origin: nil).status == 101)
                held.append(socket)
            }
            try await waitUntil("3 connections") { await server.connectionCounts()?.connections == 3 }
            // A fourth is refused, a flood of them too, and the relay keeps serving the three.
            for _ in 0..<20 {
                let extra = try HandshakeSocket(port: port)
                #expect(try await extra.upgrade(port: port, origin: nil).status != 101)
            }
            #expect(await server.connectionCounts()?.connections == 3)
            let request = Array(ClientMessage.req("s", [Filter(kinds: [.textNote])]).jsonString.utf8)
            try await held[0].sendFrame(opcode: 0x1, payload: request)
            let answer = try #require(await held[0].readTextFrame())
            #expect(String(decoding: answer, as: UTF8.self) == RelayMessage.eose("s").jsonString)
            // When one goes, a new one may come.
            held.removeFirst()
            try await waitUntil("2 connections") { await server.connectionCounts()?.connections == 2 }
            let socket = try await RawSocket.connect(url)
            socket.close()
        }
    }

    /// 100 TCP connections that never send a byte: the relay accepts only up to its backstop
    /// (`maxConnections` + a margin), so its file descriptors stay bounded, and a client already
    /// connected keeps being served.
    @Test func aFloodOfIdleSocketsIsBoundedAndConnectedClientsKeepWorking() async throws {
        var configuration = RelayConfiguration()
        configuration.maxConnections = 10
        try await withRelay(configuration) { server, url in
            let port = try Self.port(url)
            let client = try await RawSocket.connect(url)
            defer { client.close() }
            try await waitUntil("the client's connection") { await server.connectionCounts()?.connections == 1 }
            var idle: [HandshakeSocket] = []
            for _ in 0..<100 { idle.append(try HandshakeSocket(port: port)) }
            try await Task.sleep(for: .milliseconds(500))
            // The kernel completes all 100 handshakes (its accept queue); the relay takes in (and holds
            // a descriptor for) at most the backstop, the client's connection included.
            let accepted = Self.acceptedConnections(port: port)
            // NIO accepts a few per read before it checks again (without the backstop: all 101).
            #expect(accepted >= 10 && accepted <= 10 + RelayServer.nonWebSocketMargin + 8, "\(accepted) accepted")
            print("idle sockets: 100 opened, \(accepted) accepted by the relay")
            let event = try TestEvents.make(createdAt: TestEvents.now)
            client.send(ClientMessage.event(event).jsonString)
            #expect(await client.nextMessage(timeout: 10) == .ok(event.id, accepted: true, message: ""))
            idle.removeAll()
        }
    }

    /// Established TCP connections on the relay's `port` that a process has accepted (a socket inode:
    /// those still in the kernel's accept queue have none), from /proc/net/tcp.
    static func acceptedConnections(port: Int) -> Int {
        // Read to the end: /proc files report a size of 0.
        guard let handle = FileHandle(forReadingAtPath: "/proc/net/tcp") else { return -1 }
        defer { try? handle.close() }
        let table = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        let local = String(format: ":%04X", port)
        return table.split(separator: "\n").dropFirst().filter { line in
            let fields = line.split(separator: " ")
            return fields.count > 9 && fields[1].hasSuffix(local) && fields[3] == "01" && fields[9] != "0"
        }.count
    }

    @Test func anOversizeFrameIsRefusedBeforeItIsReadAndTheRelayStaysUp() async throws {
        try await withRelay { server, url in
            let port = try Self.port(url)
            let limit = server.configuration.limits.maxMessageLength
            // A header announcing 64 MiB and only 1 KiB of it sent: the relay closes with 1009 at
            // once, without waiting for (or buffering) the rest.
            let hostile = try HandshakeSocket(port: port)
            #expect(try await hostile.upgrade(port: port, origin: nil).status == 101)
            try await hostile.sendFrame(opcode: 0x1, payload: Array(repeating: 0x78, count: 1024), announcedLength: 64 << 20)
            #expect(await hostile.closeCode() == 1009)
            #expect(await hostile.endOfStream())
            // A message in fragments each under the limit, together over it: 1009 as well.
            let fragments = try HandshakeSocket(port: port)
            #expect(try await fragments.upgrade(port: port, origin: nil).status == 101)
            let piece = [UInt8](repeating: 0x79, count: limit / 2)
            try await fragments.sendFrame(opcode: 0x1, payload: piece, fin: false)
            try await fragments.sendFrame(opcode: 0x0, payload: piece, fin: false)
            try await fragments.sendFrame(opcode: 0x0, payload: piece, fin: true)
            let fragmentsClose = await fragments.closeCode()
            #expect(fragmentsClose == 1009, "\(String(describing: fragmentsClose))")
            // The relay is still up: a Marmot-sized event (600 KB) is accepted on a new connection.
            let socket = try await RawSocket.connect(url)
            defer { socket.close() }
            let large = try TestEvents.make(kind: .giftWrap, content: String(repeating: "w", count: 600_000), createdAt: TestEvents.now)
            socket.send(ClientMessage.event(large).jsonString)
            #expect(await socket.nextMessage(timeout: 10) == .ok(large.id, accepted: true, message: ""))
            #expect(try await server.storedEventCount() == 1)
        }
    }

    /// Sends `count` events on `socket` without waiting and returns the OK answers in order.
    static func flood(_ socket: RawSocket, count: Int, content: String = "x") async throws -> [(accepted: Bool, reason: String)] {
        for index in 0..<count {
            socket.send(ClientMessage.event(try TestEvents.make(content: "\(content) \(index)", createdAt: TestEvents.now)).jsonString)
        }
        var answers: [(accepted: Bool, reason: String)] = []
        for _ in 0..<count {
            guard case .ok(_, let accepted, let reason)? = await socket.nextMessage(timeout: 10) else { break }
            answers.append((accepted, reason))
        }
        return answers
    }

    @Test func eachConnectionHasAnEventRate() async throws {
        var configuration = RelayConfiguration()
        configuration.connectionEventRate = EventRate(perSecond: 5, burst: 5)
        configuration.globalEventRate = nil
        try await withRelay(configuration) { _, url in
            let hostile = try await RawSocket.connect(url)
            defer { hostile.close() }
            let started = ContinuousClock.now
            let answers = try await Self.flood(hostile, count: 40)
            let refilled = Self.seconds(since: started) * 5
            #expect(answers.count == 40)
            let accepted = answers.filter { $0.accepted }.count
            #expect(accepted >= 5 && Double(accepted) <= 5 + refilled + 1, "\(accepted) accepted, \(refilled) refilled")
            #expect(answers.filter { !$0.accepted }.allSatisfy { $0.reason.hasPrefix("rate-limited:") })
            // Another connection has its own bucket.
            let other = try await RawSocket.connect(url)
            defer { other.close() }
            #expect(try await Self.flood(other, count: 3).allSatisfy { $0.accepted })
            // The bucket refills.
            try await Task.sleep(for: .milliseconds(500))
            #expect(try await Self.flood(hostile, count: 1).first?.accepted == true)
        }
    }

    @Test func allConnectionsTogetherHaveAnEventRate() async throws {
        var configuration = RelayConfiguration()
        configuration.connectionEventRate = nil
        // A slow refill, so a loaded machine taking seconds over the floods still runs the bucket dry.
        configuration.globalEventRate = EventRate(perSecond: 0.5, burst: 10)
        try await withRelay(configuration) { _, url in
            let first = try await RawSocket.connect(url)
            let second = try await RawSocket.connect(url)
            defer { first.close(); second.close() }
            let started = ContinuousClock.now
            let one = try await Self.flood(first, count: 20)
            let two = try await Self.flood(second, count: 20)
            let accepted = (one + two).filter { $0.accepted }.count
            let refilled = Self.seconds(since: started) * 0.5
            #expect(accepted >= 10 && Double(accepted) <= 10 + refilled + 1, "\(accepted) accepted, \(refilled) refilled")
            #expect(two.filter { !$0.accepted }.allSatisfy { $0.reason.hasPrefix("rate-limited:") })
            #expect(!two.allSatisfy { $0.accepted })
        }
    }

    /// A hostile client floods EVENTs until the 200 KB quota is full while a normal client keeps
    /// publishing and reading: it gets a clear `blocked:` once the quota is full, its reads keep
    /// working, and the stored bytes stay under the quota.
    @Test func aFloodFillsTheQuotaWhileANormalClientKeepsWorking() async throws {
        let path = TestEvents.temporaryDatabasePath()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let quota: Int64 = 200_000
        var configuration = RelayConfiguration(storage: .file(path: path))
        configuration.maxStoredBytes = quota
        try await withRelay(configuration) { server, url in
            let normal = try await RelayServerTests.connectedClient(url)
            let before = try TestEvents.make(content: "before the flood", createdAt: TestEvents.now - 5, keys: TestEvents.bob)
            #expect(await normal.publish(before) == .accepted(message: ""))

            let flooder = Task { () -> (accepted: Int, refusals: [String]) in
                let hostile = try await RawSocket.connect(url)
                defer { hostile.close() }
                var accepted = 0
                var refusals: [String] = []
                let padding = String(repeating: "f", count: 2000)
                // In bursts of 50, until a whole burst is refused (or 1000 events: 2 MB, 10× the quota).
                for round in 0..<20 {
                    let answers = try await Self.flood(hostile, count: 50, content: "\(round) \(padding)")
                    accepted += answers.filter { $0.accepted }.count
                    refusals += answers.filter { !$0.accepted }.map(\.reason)
                    if answers.allSatisfy({ !$0.accepted }) { break }
                }
                return (accepted, refusals)
            }
            // Meanwhile the normal client reads and publishes.
            var normalOutcomes: [PublishResult] = []
            for index in 0..<10 {
                let stored = try await RelayServerTests.stored(normal, [Filter(authors: [TestEvents.bob.publicKey])])
                #expect(stored.contains(before))
                let note = try TestEvents.make(content: "normal \(index)", createdAt: TestEvents.now, keys: TestEvents.bob)
                normalOutcomes.append(await normal.publish(note))
            }
            let flood = try await flooder.value
            #expect(flood.accepted > 10 && flood.accepted < 100, "\(flood.accepted) flood events stored")
            #expect(!flood.refusals.isEmpty)
            #expect(flood.refusals.allSatisfy { $0.hasPrefix("blocked: storage quota") }, "\(flood.refusals.prefix(3))")
            #expect(normalOutcomes.allSatisfy { $0.isAccepted || $0 == .rejected(reason: "blocked: storage quota of 200000 bytes is full") },
                    "\(normalOutcomes)")

            // Once full: the normal client is told clearly, and still reads everything it stored.
            let after = try TestEvents.make(content: String(repeating: "a", count: 3000), createdAt: TestEvents.now, keys: TestEvents.bob)
            #expect(await normal.publish(after) == .rejected(reason: "blocked: storage quota of 200000 bytes is full"))
            let mine = try await RelayServerTests.stored(normal, [Filter(authors: [TestEvents.bob.publicKey])])
            #expect(mine.contains(before))
            #expect(mine.count == 1 + normalOutcomes.filter(\.isAccepted).count)
            // Ephemeral events are not stored, so they still go through.
            let ephemeral = try TestEvents.make(kind: Kind(rawValue: 20001), content: "typing", createdAt: TestEvents.now, keys: TestEvents.bob)
            #expect(await normal.publish(ephemeral).isAccepted)
            let bytes = try #require(try await server.storedEventBytes())
            #expect(bytes <= quota && bytes > quota - 10_000, "\(bytes) bytes stored")
            print("flood: \(flood.accepted) flood events stored, \(flood.refusals.count) refused; normal client "
                  + "\(normalOutcomes.filter(\.isAccepted).count)/\(normalOutcomes.count) accepted during it; \(bytes) of \(quota) bytes")
            await normal.disconnect()
        }
        // The quota holds across a restart (the count is read back from the file).
        var reopened = RelayConfiguration(storage: .file(path: path))
        reopened.maxStoredBytes = quota
        try await withRelay(reopened) { server, url in
            let socket = try await RawSocket.connect(url)
            defer { socket.close() }
            let answers = try await Self.flood(socket, count: 5, content: String(repeating: "r", count: 2000))
            #expect(answers.allSatisfy { !$0.accepted && $0.reason.hasPrefix("blocked:") })
            #expect(try #require(try await server.storedEventBytes()) <= quota)
        }
    }

    /// The database and the `-wal`/`-shm` files SQLite makes beside it are owner-only whatever the
    /// umask; a wider existing file is tightened.
    @Test func theDatabaseFilesAreOwnerOnly() async throws {
        let path = TestEvents.temporaryDatabasePath()
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try await withRelay(RelayConfiguration(storage: .file(path: path))) { _, url in
            let socket = try await RawSocket.connect(url)
            defer { socket.close() }
            _ = try await Self.flood(socket, count: 3)
            for file in [path, path + "-wal", path + "-shm"] {
                #expect(FileManager.default.fileExists(atPath: file), "\(file)")
                #expect(try Self.mode(file) == 0o600, "\(file)")
            }
            #expect(try Self.mode(folder) == 0o700)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        let tightened = try await withRelay(RelayConfiguration(storage: .file(path: path))) { _, _ in
            try Self.mode(path)
        }
        #expect(tightened == 0o600)
    }
}

extension RelayGuardTests {
    static func mode(_ file: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int) & 0o777
    }
}

/// Polls `condition` every 20 ms for up to 20 s.
func waitUntil(_ what: String, _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(20)
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    Issue.record("timed out waiting for \(what)")
}
