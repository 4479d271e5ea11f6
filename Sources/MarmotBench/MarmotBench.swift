import Foundation
import Logging
import MLS
import Marmot
import Nostr
import NostrClient
import NostrRelay

/// The Marmot protocol layer: per-message cost of creating (rumor, MLS encrypt, kind-445 wrap) and
/// processing (validate, decrypt, MLS process, rumor check) 100-byte texts in process; the same
/// path end to end through our client and through MDK 0.8.0 (`mdk_peer.py`, when the interop venv
/// exists) over the embedded relay, with their ratio; and create-chat-to-first-decrypt between two
/// of our clients on loopback.
enum MarmotProtocolBench {
    static let messageCount = 200
    static let relayMessageCount = 40
    static let chatSetups = 5
    static let text = String((0..<100).map { _ in "abcdefghijklmnopqrstuvwxyz ".randomElement() ?? "x" })

    static func run() async {
        Bench.section("Marmot protocol (100-byte texts)")
        do {
            try layerCost()
        } catch {
            print("marmot layer: failed: \(error)")
        }
        var logger = Logger(label: "bench")
        logger.logLevel = .critical
        let server = RelayServer(configuration: .benchmark, logger: logger)
        let url: String
        do {
            url = "ws://127.0.0.1:\(try await server.start())"
        } catch {
            print("embedded relay: skipped: \(error)")
            return
        }
        var ours: (send: Double, decrypt: Double)?
        do {
            ours = try await ourClients(url: url, logger: logger)
            try await chatSetup(url: url, logger: logger)
        } catch {
            print("our clients: failed: \(error)")
        }
        switch MDKBenchPeer.locate() {
        case .failure(let reason):
            print("MDK 0.8.0 (mdk_peer.py): skipped: \(reason)")
        case .success(let kit):
            do {
                let mdk = try await mdkPeers(url: url, python: kit.python, script: kit.peer)
                if let ours {
                    print(String(format: "ratio MDK/ours: send %.2f×, send→decrypt %.2f× (>1: ours is faster)",
                                 mdk.send / ours.send, mdk.decrypt / ours.decrypt))
                }
            } catch {
                print("MDK 0.8.0 (mdk_peer.py): failed: \(error)")
            }
        }
        await server.stop()
    }

    // MARK: In process

    /// Two members of a fresh group made as `createChat` makes it, without any relay.
    static func layerCost() throws {
        let aliceKeys = Keys.generate(), bobKeys = Keys.generate()
        let bobPackage = try KeyPackage.create(
            identity: Data(bobKeys.publicKey.bytes), keyPackageExtensions: [Extension(LastResortExtension())])
        let groupData = NostrGroupData(
            nostrGroupID: .random(), name: "", description: "", admins: [aliceKeys.publicKey],
            relays: [try RelayURL("ws://127.0.0.1:7777")])
        var alice = try MLSGroup.create(
            groupID: GroupID(CipherSuiteProvider.mls128X25519.randomBytes(16)), signer: .generate(),
            credential: .basic(identity: Data(aliceKeys.publicKey.bytes)), capabilities: .marmotDefault(),
            groupContextExtensions: MarmotGroupExtensions.groupContextExtensions(
                groupData: groupData, invitees: [bobPackage.keyPackage]),
            configuration: .marmot)
        let pending = try alice.commit(adding: [bobPackage.keyPackage])
        alice = pending.newGroup
        guard let welcome = pending.welcome else { throw BenchSkip("no Welcome") }
        var bob = try MLSGroup.join(
            welcome: welcome, keyPackage: bobPackage.keyPackage, privateMaterial: bobPackage.privateMaterial,
            configuration: .marmot)
        let aliceKey = try GroupEventKey(exporter: { try alice.exporter(label: $0, context: $1, length: $2) })
        let bobKeys5 = [try GroupEventKey(exporter: { try bob.exporter(label: $0, context: $1, length: $2) })]

        var events: [Event] = []
        events.reserveCapacity(messageCount)
        let createStart = Bench.now()
        for _ in 0..<messageCount {
            let rumor = try ChatRumor(author: aliceKeys.publicKey, content: text)
            let sealed = try alice.encrypt(rumor.plaintext)
            events.append(try GroupEvent.build(
                mlsMessage: sealed.tlsSerialized, nostrGroupID: groupData.nostrGroupID, key: aliceKey))
        }
        let create = Double(Bench.now() - createStart) / Double(messageCount)
        print(Bench.line("marmot layer: create (rumor, encrypt, 445 wrap)", perCallNanos: create, iterations: messageCount))

        let processStart = Bench.now()
        for event in events {
            let validated = try GroupEvent.validate(event)
            let plaintext = try validated.decrypt(tryingKeys: bobKeys5).plaintext
            guard case .application(let application) = try bob.process(bytes: plaintext),
                  case .basic(let identity) = application.credential
            else { throw BenchSkip("not an application message") }
            _ = try ChatRumor(plaintext: application.data, sender: try PublicKey(bytes: identity))
        }
        let process = Double(Bench.now() - processStart) / Double(messageCount)
        print(Bench.line(
            "marmot layer: process (validate, decrypt, MLS, rumor)", perCallNanos: process, iterations: messageCount))
        print(Bench.line("marmot layer: create + process", perCallNanos: create + process, iterations: messageCount))
        let stateBytes = bob.serialized().count
        print("  (group state persisted after each message: \(stateBytes) bytes)")
    }

    // MARK: Our clients over the embedded relay

    /// A running client with its events in a queue.
    struct Peer {
        let client: MarmotClient
        let pool: RelayPool
        let events: EventQueue
    }

    static func startPeer(url: String, logger: Logger) async throws -> Peer {
        let keys = Keys.generate()
        let pool = RelayPool(relays: [url], logger: logger)
        let client = MarmotClient(
            keys: keys, store: try GRDBMarmotStore.inMemory(key: StorageKey(deriving: keys.secretKey, installationSecret: .generate())), pool: pool,
            relays: [try RelayURL(url)], logger: logger)
        let queue = EventQueue()
        let stream = client.events
        Task {
            for await event in stream { await queue.put(event) }
        }
        try await client.start()
        return Peer(client: client, pool: pool, events: queue)
    }

    static func stopPeers(_ peers: [Peer]) async {
        for peer in peers {
            await peer.client.stop()
            await peer.pool.disconnect()
        }
    }

    /// Returns mean ms per send (publish with OK) and per send→decrypt at the other client.
    static func ourClients(url: String, logger: Logger) async throws -> (send: Double, decrypt: Double) {
        let alice = try await startPeer(url: url, logger: logger)
        let bob = try await startPeer(url: url, logger: logger)
        defer { Task { await stopPeers([alice, bob]) } }
        _ = try await bob.client.publishKeyPackage()
        let chat = try await alice.client.createChat(with: bob.client.publicKey).chat
        try await accept(at: bob)
        guard await bob.events.first(timeout: 20, where: { if case .joinSettled = $0 { true } else { false } }) != nil else {
            throw BenchSkip("bob did not join")
        }
        var sendTotal: UInt64 = 0, decryptTotal: UInt64 = 0
        for i in 0..<relayMessageCount {
            let body = "\(i) " + text
            let start = Bench.now()
            _ = try await alice.client.send(text: body, to: chat.id)
            sendTotal += Bench.now() - start
            guard await bob.events.first(timeout: 20, where: {
                if case .messageReceived(_, let m) = $0 { m.content == body } else { false }
            }) != nil else { throw BenchSkip("message \(i) not received") }
            decryptTotal += Bench.now() - start
        }
        let send = Double(sendTotal) / Double(relayMessageCount) / 1e6
        let decrypt = Double(decryptTotal) / Double(relayMessageCount) / 1e6
        print(String(format: "our clients (embedded relay): send %.2f ms, send→decrypt %.2f ms  (%d messages)", send, decrypt,
                     relayMessageCount))
        return (send, decrypt)
    }

    /// Waits for the peer's invitation and accepts it as its user would: Welcomes are not joined on
    /// their own (MIP-02 invitations wait for `acceptInvite`).
    static func accept(at peer: Peer, timeout: Double = 20) async throws {
        let event = await peer.events.first(timeout: timeout) { if case .inviteReceived = $0 { true } else { false } }
        guard case .inviteReceived(let invite) = event else { throw BenchSkip("no invitation arrived") }
        _ = try await peer.client.acceptInvite(invite.id)
    }

    /// Bob's key package is on the relay; from `createChat` until Bob decrypted Alice's first message.
    static func chatSetup(url: String, logger: Logger) async throws {
        var total: UInt64 = 0
        for i in 0..<chatSetups {
            let alice = try await startPeer(url: url, logger: logger)
            let bob = try await startPeer(url: url, logger: logger)
            _ = try await bob.client.publishKeyPackage()
            let start = Bench.now()
            let chat = try await alice.client.createChat(with: bob.client.publicKey).chat
            try await accept(at: bob)
            let joined = await bob.events.first(timeout: 20) { if case .welcomeJoined = $0 { true } else { false } }
            guard joined != nil else {
                throw BenchSkip("welcome \(i) not received")
            }
            _ = try await alice.client.send(text: text, to: chat.id)
            let first = await bob.events.first(timeout: 20) { if case .messageReceived = $0 { true } else { false } }
            guard first != nil else {
                throw BenchSkip("first message \(i) not received")
            }
            total += Bench.now() - start
            await stopPeers([alice, bob])
        }
        print(String(format: "create chat → first decrypt (loopback, our clients): %.1f ms  (%d chats)",
                     Double(total) / Double(chatSetups) / 1e6, chatSetups))
    }

    // MARK: MDK

    /// Two MDK peers on the same relay: mean `send` time (MDK's own `ms`: create_message + publish
    /// with OK) and send→`message` event at the other peer, seen from here.
    static func mdkPeers(url: String, python: String, script: String) async throws -> (send: Double, decrypt: Double) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mdk-bench-\(UUID().uuidString)")
        let alice = try await MDKBenchPeer(python: python, script: script)
        let bob = try await MDKBenchPeer(python: python, script: script)
        defer {
            alice.stop()
            bob.stop()
            try? FileManager.default.removeItem(at: folder)
        }
        _ = try await alice.call(["cmd": "init", "relay": url, "data_dir": folder.appendingPathComponent("a").path])
        let bobInit = try await bob.call(["cmd": "init", "relay": url, "data_dir": folder.appendingPathComponent("b").path])
        _ = try await bob.call(["cmd": "publish_key_package"])
        let created = try await alice.call(["cmd": "create_chat", "peer_npub": bobInit["npub"] ?? ""])
        guard try await bob.event("welcome") != nil, let group = created["group_id"] as? String else {
            throw BenchSkip("MDK peer did not join")
        }
        var sendMS = 0.0
        var decryptTotal: UInt64 = 0
        for i in 0..<relayMessageCount {
            let start = Bench.now()
            let reply = try await alice.call(["cmd": "send", "group_id": group, "text": "\(i) " + text])
            sendMS += (reply["ms"] as? NSNumber)?.doubleValue ?? 0
            guard try await bob.event("message") != nil else { throw BenchSkip("MDK message \(i) not received") }
            decryptTotal += Bench.now() - start
        }
        let send = sendMS / Double(relayMessageCount)
        let decrypt = Double(decryptTotal) / Double(relayMessageCount) / 1e6
        print(String(format: "MDK 0.8.0 peers (embedded relay): send %.2f ms (MDK's ms), send→decrypt %.2f ms  (%d messages)",
                     send, decrypt, relayMessageCount))
        return (send, decrypt)
    }
}

/// Client events handed to waiters with a deadline.
actor EventQueue {
    private var items: [MarmotClientEvent] = []
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func put(_ event: MarmotClientEvent) {
        items.append(event)
        let current = waiters
        waiters = []
        current.forEach { $0.resume() }
    }

    /// The first queued or future event matching `predicate` (consumed with the ones before it).
    func first(timeout: Double, where predicate: @Sendable (MarmotClientEvent) -> Bool) async -> MarmotClientEvent? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let index = items.firstIndex(where: predicate) {
                let found = items[index]
                items.removeFirst(index + 1)
                return found
            }
            items.removeAll()
            guard deadline.timeIntervalSinceNow > 0 else { return nil }
            await withCheckedContinuation { continuation in
                waiters.append(continuation)
                let wait = deadline.timeIntervalSinceNow
                Task {
                    try? await Task.sleep(for: .seconds(max(0, min(wait, 0.5))))
                    self.wake()
                }
            }
        }
    }

    private func wake() {
        let current = waiters
        waiters = []
        current.forEach { $0.resume() }
    }
}
