import Foundation
import MLS
import Marmot
import Nostr

/// The cost of settling races by protocol evidence (issue 24): a client returning to a v2 group
/// fetches a bag of 500 events spread over 3 competing branches, in a shuffled order, and settles on
/// one; and the per-message cost of the engine in a settled group against the plain path the client
/// runs today (MLS decrypt plus the version's rumor check), on the same messages.
enum ConvergenceBench {
    static let bagSize = 500
    static let runs = 5

    static func run() {
        Bench.section("Convergence (v2 group engine: races by protocol evidence)")
        do {
            try returningClient()
            try perMessage()
        } catch {
            print("convergence bench failed: \(error)")
        }
    }

    /// A five-member group: alice, bob and carol (admins) each rename from epoch 1, then alice adds
    /// two self-updates on her branch and bob one; each sends messages on their own branch until
    /// the bag holds 500 events. Eve, still at epoch 1, takes the shuffled bag and settles.
    static func returningClient() throws {
        let names = ["alice", "bob", "carol", "dave", "eve"]
        var engines = try group(names, admins: ["alice", "bob", "carol"])
        let eve = engines["eve"]!
        var bag: [Data] = []
        var branchEngines: [String: GroupEngine] = [:]
        for (name, depth) in [("alice", 3), ("bob", 2), ("carol", 1)] {
            var engine = engines[name]!
            var metadata = engine.metadata!
            metadata.name = "\(name)'s branch"
            var own = try engine.commit(proposals: try engine.rules.proposals(changing: engine.state.extensions, to: metadata))
            for step in 0..<depth {
                bag.append(own.bytes)
                _ = engine.confirm(own)
                if step + 1 < depth { own = try engine.commit(rotateSigner: true) }
            }
            branchEngines[name] = engine
        }
        let messages = bagSize - bag.count
        for index in 0..<messages {
            let name = ["alice", "bob", "carol"][index % 3]
            bag.append(try branchEngines[name]!.encrypt("message \(index)", createdAt: 1_700_000_000))
        }
        var generator = SeededGenerator(seed: 24)
        bag.shuffle(using: &generator)
        var settled: GroupEngine?
        let median = try Bench.medianMillis(runs) {
            var returning = eve
            for event in bag { _ = returning.receive(event) }
            _ = returning.settle()
            settled = returning
        }
        guard let settled else { throw BenchSkip("no run") }
        engines["eve"] = settled
        print(String(
            format: "returning client, %d events over 3 branches (depths 3/2/1, %d messages): settle %.1f ms median of %d; "
                + "tip epoch %llu, \"%@\", decided by %@",
            bag.count, messages, median, runs, settled.epoch, settled.metadata?.name ?? "?",
            settled.lastDecision?.decisiveRule?.rawValue ?? "nothing"))
        try recordCost(settled)
    }

    /// What writing and re-reading the settled engine's whole record costs (`EngineRecord`): the
    /// size a store would write and the time to restart from it, so a runtime can tell whether
    /// whole-record writes per message are affordable.
    static func recordCost(_ engine: GroupEngine) throws {
        var bytes = Data()
        let encode = try Bench.medianMillis(runs) { bytes = engine.record.encoded() }
        var restarted: GroupEngine?
        let decode = try Bench.medianMillis(runs) {
            restarted = try GroupEngine(rules: engine.rules, keys: engine.keys, record: try EngineRecord(encoded: bytes))
        }
        guard let restarted, restarted.state.epochAuthenticator == engine.state.epochAuthenticator,
              restarted.record.encoded() == bytes else { throw BenchSkip("the restarted engine differs") }
        let record = engine.record
        print(String(
            format: "  its record: %d bytes (%d states, %d digests seen, %d held): write %.2f ms, restart %.2f ms, median of %d",
            bytes.count, record.nodes.count, record.seen.count, record.held.values.map(\.count).reduce(0, +),
            encode, decode, runs))
    }

    /// 200 messages of 100 bytes from alice to bob in a settled two-member group: through the engine
    /// (`receive`), and through the path the client runs today (`processing`, then `rumor`).
    static func perMessage() throws {
        let engines = try group(["alice", "bob"], admins: ["alice"])
        var alice = engines["alice"]!
        let content = String(repeating: "a", count: 100)
        let messages = try (0..<200).map { _ in try alice.encrypt(content, createdAt: 1_700_000_000) }
        let bob = engines["bob"]!
        let plain = try Bench.medianMillis(runs) {
            var mls = bob.state
            for bytes in messages {
                let message = try MLSMessage(tlsSerialized: bytes)
                let (result, next) = try mls.processing(message)
                guard case .application(let app) = result else { throw BenchSkip("not an application message") }
                _ = try bob.rules.rumor(app.data, sender: alice.me)
                mls = next
            }
        }
        let engine = try Bench.medianMillis(runs) {
            var receiving = bob
            for bytes in messages {
                guard case .application = receiving.receive(bytes).first else { throw BenchSkip("not shown") }
            }
        }
        print(String(
            format: "per message in a settled group (200 × 100 B): today's path %.1f µs, engine %.1f µs (×%.2f)",
            plain * 1000 / 200, engine * 1000 / 200, engine / max(plain, 0.000_001)))
        // What a row store writes per message (`EngineChanges`), against the whole record.
        var written = 0
        var last = bob
        let tracked = try Bench.medianMillis(runs) {
            var receiving = bob
            _ = receiving.takeChanges()
            written = 0
            for bytes in messages {
                guard case .application = receiving.receive(bytes).first else { throw BenchSkip("not shown") }
                written += receiving.takeChanges().byteCount
            }
            last = receiving
        }
        print(String(
            format: "  with the changes a row store writes taken after each: %.1f µs per message, %d bytes per message "
                + "(the whole record: %d bytes)",
            tracked * 1000 / 200, written / 200, last.record.encoded().count))
        try storedPerMessage(bob, messages, sender: alice.me)
    }

    /// The same 200 messages with what each changed written to the encrypted store on disk: the
    /// engine's rows (`saveEngineChanges`), against today's client path (decrypt, then rewrite the
    /// group's secret trees, `saveGroupRatchets`); one fresh store per run.
    static func storedPerMessage(_ bob: GroupEngine, _ messages: [Data], sender: PublicKey) throws {
        var rows: [Double] = [], plain: [Double] = []
        for _ in 0..<runs {
            try GroupChatBench.withStore("engine-rows") { store in
                var receiving = bob
                try store.saveGroup(stored(bob))
                try store.saveEngineChanges(receiving.takeChanges(), mlsGroupID: bob.state.groupID)
                let start = Bench.now()
                for bytes in messages {
                    guard case .application = receiving.receive(bytes).first else { throw BenchSkip("not shown") }
                    try store.saveEngineChanges(receiving.takeChanges(), mlsGroupID: bob.state.groupID)
                }
                rows.append(Double(Bench.now() - start) / 1_000_000)
                guard try store.engineRows(mlsGroupID: bob.state.groupID)?.record().encoded() == receiving.record.encoded() else {
                    throw BenchSkip("the stored rows differ from the engine")
                }
            }
            try GroupChatBench.withStore("client-ratchets") { store in
                try store.saveGroup(stored(bob))
                var mls = bob.state
                let start = Bench.now()
                for bytes in messages {
                    let (result, next) = try mls.processing(try MLSMessage(tlsSerialized: bytes))
                    guard case .application(let app) = result else { throw BenchSkip("not an application message") }
                    _ = try bob.rules.rumor(app.data, sender: sender)
                    mls = next
                    try store.saveGroupRatchets(mlsGroupID: bob.state.groupID, ratchets: mls.serializedRatchets())
                }
                plain.append(Double(Bench.now() - start) / 1_000_000)
            }
        }
        let median = { (samples: [Double]) in samples.sorted()[samples.count / 2] }
        print(String(
            format: "  written to the encrypted store on disk after each: engine rows %.1f µs per message, "
                + "today's path (secret trees rewritten) %.1f µs, median of %d",
            median(rows) * 1000 / 200, median(plain) * 1000 / 200, runs))
    }

    /// `engine`'s group as the client stores it (state and secret trees apart).
    private static func stored(_ engine: GroupEngine) throws -> StoredGroup {
        let (state, ratchets) = engine.state.serializedApart()
        var group = StoredGroup(
            mlsGroupID: engine.state.groupID, nostrGroupID: try engine.metadata?.nostrGroupID ?? NostrGroupID(bytes: Data(count: 32)),
            mlsState: state, epoch: engine.epoch, name: "bench", admins: [], relays: [], createdAt: 1_700_000_000)
        group.mlsRatchets = ratchets
        return group
    }

    /// A v2 group of `names` (the first founds it) with every member joined.
    static func group(_ names: [String], admins: [String]) throws -> [String: GroupEngine] {
        try founded(names, admins: admins).engines
    }

    /// A v2 group of `names` (the first founds it, on `relays`) with every member joined, and
    /// `clients`' key packages invited too: the Welcome for them, the group's data and the
    /// founder's keys (which seal it).
    static func founded(
        _ names: [String], admins: [String], clients: [KeyPackage] = [], relays: [RelayURL]? = nil
    ) throws -> (engines: [String: GroupEngine], welcome: Welcome, metadata: GroupMetadata, founder: Keys) {
        var keys: [String: Keys] = [:]
        for name in names { keys[name] = Keys.generate() }
        var packages: [(String, KeyPackage, KeyPackagePrivateMaterial)] = []
        for name in names.dropFirst() {
            let created = try V2KeyPackage.create(keys: keys[name]!)
            packages.append((name, created.keyPackage, created.privateMaterial))
        }
        let rules = V2GroupRules()
        let metadata = GroupMetadata(
            nostrGroupID: .random(), name: "bench", description: "", admins: admins.map { keys[$0]!.publicKey },
            relays: try relays ?? [RelayURL("wss://relay.example")])
        var (founder, founding) = try GroupEngine.found(
            rules: rules, keys: keys[names[0]]!, metadata: metadata, invitees: packages.map(\.1) + clients)
        guard let founding, let welcome = founding.pending.welcome else { throw BenchSkip("no Welcome") }
        _ = founder.confirm(founding)
        var engines = [names[0]: founder]
        for (name, package, material) in packages {
            engines[name] = try GroupEngine.join(
                rules: rules, keys: keys[name]!, welcome: welcome, keyPackage: package, privateMaterial: material,
                sender: keys[names[0]]!.publicKey)
        }
        return (engines, welcome, metadata, keys[names[0]]!)
    }
}

/// A small deterministic generator (SplitMix64), so every run shuffles the bag the same way.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
