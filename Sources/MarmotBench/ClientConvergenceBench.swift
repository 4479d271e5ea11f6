import Foundation
import Logging
import MLS
import Marmot
import MarmotWire
import Nostr
import NostrClient
import NostrRelay

/// The cost of settling races in our client itself (issue 24), not only in the engine: three
/// returning clients, each with its own encrypted store on disk, take the same shuffled bag of
/// 500 kind-445 events over 3 competing branches (the `ConvergenceBench` history: alice, bob and
/// carol rename from epoch 1, alice's branch 3 deep, bob's 2, carol's 1, the rest messages on
/// each branch) and must settle where the engine does; the engine takes the same MLS messages in
/// the same order, in the same run.
///
/// The relay (embedded) is only used to set the group up: the bag goes straight to each client
/// (`MarmotClient.take`), so what is measured is the client's work: peeling, MLS, branch
/// bookkeeping and selection, and its store.
enum ClientConvergenceBench {
    static let clients = 3

    static func run() async {
        var logger = Logger(label: "bench")
        logger.logLevel = .critical
        let server = RelayServer(configuration: .benchmark, logger: logger)
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("marmot-bench-convergence-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        do {
            let url = "ws://127.0.0.1:\(try await server.start())"
            try await returningClients(url: url, root: root, logger: logger)
        } catch {
            print("client convergence bench failed: \(error)")
        }
        await server.stop()
    }

    /// A client with an encrypted store on disk under `root`.
    static func peer(url: String, root: URL, logger: Logger) async throws -> MarmotProtocolBench.Peer {
        let keys = Keys.generate()
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let store = try GRDBMarmotStore(
            path: root.appendingPathComponent("\(keys.publicKey.hex.prefix(12)).sqlite").path,
            key: StorageKey(deriving: keys.secretKey, installationSecret: .generate()))
        let pool = RelayPool(relays: [url], logger: logger)
        let client = MarmotClient(keys: keys, store: store, pool: pool, relays: [try RelayURL(url)], logger: logger)
        let queue = EventQueue()
        let stream = client.events
        Task {
            for await event in stream { await queue.put(event) }
        }
        try await client.start()
        return MarmotProtocolBench.Peer(client: client, pool: pool, events: queue)
    }

    static func returningClients(url: String, root: URL, logger: Logger) async throws {
        var eves: [MarmotProtocolBench.Peer] = []
        for _ in 0..<clients { eves.append(try await peer(url: url, root: root, logger: logger)) }
        do {
            try await settle(eves, url: url)
        } catch {
            await MarmotProtocolBench.stopPeers(eves)
            throw error
        }
        await MarmotProtocolBench.stopPeers(eves)
    }

    /// Sets the group up with `eves` in it, then feeds each the bag and measures.
    static func settle(_ eves: [MarmotProtocolBench.Peer], url: String) async throws {
        var invitees: [PeerKeyPackage] = []
        for eve in eves {
            _ = try await eve.client.publishKeyPackage(version: .v2)
            invitees.append(try await keyPackage(of: eve.client.publicKey, on: url))
        }
        // The engines' members found the group with the clients in it.
        let relays = [try RelayURL(url)]
        let (engines, welcome, metadata, founder) = try ConvergenceBench.founded(
            ["alice", "bob", "carol", "dave"], admins: ["alice", "bob", "carol"], clients: invitees.map(\.keyPackage), relays: relays)
        let rules = V2GroupRules()
        var chats: [GroupID] = []
        for (eve, package) in zip(eves, invitees) {
            let wrap = try rules.wrapWelcome(
                welcome, author: founder, invitee: package, relays: relays, client: nil, createdAt: UnsignedEvent.now())
            await eve.client.take(wrap)
            let event = await eve.events.first(timeout: 20) { if case .inviteReceived = $0 { true } else { false } }
            guard case .inviteReceived(let invite) = event else { throw BenchSkip("no invitation arrived") }
            chats.append(try await eve.client.acceptInvite(invite.id).id)
        }
        let dave = engines["dave"]!
        let (bag, events) = try history(engines, h: metadata.nostrGroupID)
        var order = Array(bag.indices)
        var generator = SeededGenerator(seed: 24)
        order.shuffle(using: &generator)
        // The engine, on the same messages in the same order.
        var settledEngine = dave
        let engineMillis = try Bench.medianMillis(ConvergenceBench.runs) {
            var returning = dave
            for index in order { _ = returning.receive(bag[index]) }
            _ = returning.settle()
            settledEngine = returning
        }
        var clientMillis: [Double] = []
        var agreed = 0
        for (eve, chat) in zip(eves, chats) {
            let start = Bench.now()
            for index in order { await eve.client.take(events[index]) }
            clientMillis.append(Double(Bench.now() - start) / 1e6)
            let settled = try await eve.client.chat(chat)
            let status = await eve.client.convergence(of: chat)
            if settled?.epoch == settledEngine.epoch, settled?.name == settledEngine.metadata?.name, status == .settled {
                agreed += 1
            } else {
                print("  a client ended at epoch \(settled?.epoch ?? 0), \"\(settled?.name ?? "?")\", \(status)")
            }
        }
        let median = clientMillis.sorted()[clientMillis.count / 2]
        print(String(
            format: "returning client (our client, encrypted store on disk), the same %d events: settle %.0f ms median of %d "
                + "(%.2f ms per event); engine on the same messages %.1f ms; %d of %d clients settled where the engine did (\"%@\")",
            bag.count, median, clientMillis.count, median / Double(bag.count), engineMillis, agreed, clientMillis.count,
            settledEngine.metadata?.name ?? "?"))
        guard agreed == clientMillis.count else { throw BenchSkip("a client did not settle where the engine did") }
    }

    /// `ConvergenceBench`'s history as MLS messages and as the kind-445 events carrying them (each
    /// sealed with the key of the epoch it was made in), in the order made.
    static func history(_ start: [String: GroupEngine], h: NostrGroupID) throws -> (bytes: [Data], events: [Event]) {
        var bag: [Data] = [], events: [Event] = []
        func seal(_ bytes: Data, in state: MLSGroup) throws {
            let key = try GroupEventKey(exporter: { try state.exporter(label: $0, context: $1, length: $2) })
            bag.append(bytes)
            events.append(try GroupEvent.build(mlsMessage: bytes, tags: [Tag(["h", h.hex])], key: key, createdAt: UnsignedEvent.now()))
        }
        var branches: [String: GroupEngine] = [:]
        for (name, depth) in [("alice", 3), ("bob", 2), ("carol", 1)] {
            var engine = start[name]!
            var metadata = engine.metadata!
            metadata.name = "\(name)'s branch"
            var before = engine.state
            var own = try engine.commit(proposals: try engine.rules.proposals(changing: engine.state.extensions, to: metadata))
            for step in 0..<depth {
                try seal(own.bytes, in: before)
                _ = engine.confirm(own)
                if step + 1 < depth {
                    before = engine.state
                    own = try engine.commit(rotateSigner: true)
                }
            }
            branches[name] = engine
        }
        for index in 0..<(ConvergenceBench.bagSize - bag.count) {
            let name = ["alice", "bob", "carol"][index % 3]
            let state = branches[name]!.state
            try seal(try branches[name]!.encrypt("message \(index)", createdAt: 1_700_000_000), in: state)
        }
        return (bag, events)
    }

    /// The newest v2 key package `author` published on the relay at `url`.
    static func keyPackage(of author: PublicKey, on url: String) async throws -> PeerKeyPackage {
        var logger = Logger(label: "bench.fetch")
        logger.logLevel = .critical
        let relay = RelayClient(url: url, logger: logger)
        await relay.connect()
        defer { Task { await relay.disconnect() } }
        var events: [Event] = []
        for await message in await relay.subscribe([Filter(authors: [author], kinds: [.addressableKeyPackage])]) {
            if case .event(let event) = message { events.append(event) }
            if message == .endOfStoredEvents { break }
        }
        for event in events.sorted(by: { $0.createdAt > $1.createdAt }) {
            if let parsed = try? PeerKeyPackage(v2Event: event, now: UnsignedEvent.now()) { return parsed }
        }
        throw BenchSkip("no v2 key package of \(author.hex)")
    }
}
