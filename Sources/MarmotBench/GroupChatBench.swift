import Foundation
import MLS
import Marmot
import Nostr

/// Group chats (issue 14) by size: the Marmot group operations at 2, 10, 50 and 200 members, each
/// followed by what the client does after it — the MLS state of every touched member written to
/// the on-disk encrypted store (`GRDBMarmotStore` on a temp file). In process, no relay: the cost of
/// the protocol and the store, not of the network.
///
/// Per size: create (group + Add commit for everyone, as `createGroup`) and join (one invitee's
/// Welcome); add one member (commit + Welcome, then processed by another member); remove one;
/// self-update created and processed; one 100-byte message encrypted and decrypted. Every
/// operation starts from the same state (MLS groups are values), so runs are independent.
/// mls-rs (`MLSRsGroupBench`, with ratios) and MDK 0.8.0 (`MDKGroupBench`) doing the same follow in
/// the same run.
enum GroupChatBench {
    /// The sizes measured: `MARMOT_BENCH_SIZES` (e.g. "10,200,1000") or 2, 10, 50 and 200.
    static let sizes = ProcessInfo.processInfo.environment["MARMOT_BENCH_SIZES"].map {
        $0.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.filter { $0 >= 2 }
    } ?? [2, 10, 50, 200]
    static let plaintext = Data(repeating: 0x61, count: 100)

    static func run() {
        Bench.section("Marmot group chats by size (MLS + on-disk encrypted store)")
        do {
            var rows: [[String]] = []
            try withStore("groups") { store in
                for size in sizes {
                    rows.append(try measure(size: size, store: store))
                }
            }
            print("members | create | join | add 1 (commit+process) | remove 1 (commit+process) | self-update create | self-update process | message enc+dec")
            for row in rows { print(row.joined(separator: " | ")) }
            MLSRsGroupBench.run(sizes: sizes, ours: rows)
        } catch {
            print("group chat bench failed: \(error)")
        }
        MDKGroupBench.run(sizes: sizes)
    }

    /// Runs `body` with an encrypted `GRDBMarmotStore` on a fresh temp file, closed and removed
    /// afterwards: the store every group bench writes each touched member's state to.
    static func withStore(_ label: String, _ body: (GRDBMarmotStore) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("marmot-bench-\(label)-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let keys = Keys.generate()
        let store = try GRDBMarmotStore(
            path: directory.appendingPathComponent("bench.sqlite").path,
            key: StorageKey(deriving: keys.secretKey, installationSecret: .generate()))
        defer { try? store.close() }
        try body(store)
    }

    /// Writes one member's group state as the client does after each operation (its row in the
    /// store; the admin's and a member's rows share one store here, so `h` must differ between them).
    static func save(
        _ group: MLSGroup, id: GroupID, h: NostrGroupID, metadata: GroupMetadata, version: MarmotVersion = .v1,
        in store: GRDBMarmotStore
    ) throws {
        var row = StoredGroup(
            mlsGroupID: id, nostrGroupID: h, mlsState: Data(), epoch: group.epoch, name: metadata.name,
            admins: metadata.admins, relays: metadata.relays, version: version)
        row.setState(group)
        try store.saveGroup(row)
    }

    /// Iterations per size: enough to average small groups, few for 200 members.
    static func iterations(_ size: Int) -> Int {
        switch size {
        case ...10: 10
        case ...50: 4
        default: 2
        }
    }

    static func measure(size: Int, store: GRDBMarmotStore) throws -> [String] {
        let runs = iterations(size)
        let setup = try BenchGroup(size: size, name: "bench \(size)")
        let groupData = setup.groupData
        let groupID = setup.groupID
        // The admin's and the member's rows live in one store here, so they need distinct `h` values.
        let memberID = GroupID(CipherSuiteProvider.mls128X25519.randomBytes(16))
        let memberH = NostrGroupID.random()
        let metadata = GroupMetadata(
            nostrGroupID: groupData.nostrGroupID, name: groupData.name, description: "", admins: groupData.admins,
            relays: groupData.relays)
        func save(_ group: MLSGroup, id: GroupID) throws {
            try Self.save(group, id: id, h: id == memberID ? memberH : groupData.nostrGroupID, metadata: metadata, in: store)
        }

        // Create: the group, the Add commit for every invitee, merged and stored.
        var creator: MLSGroup?
        var welcome: Welcome?
        let create = try timed(runs) {
            let pending = try setup.found()
            try save(pending.newGroup, id: groupID)
            creator = pending.newGroup
            welcome = pending.welcome
        }
        guard var admin = creator, let welcome else { throw BenchSkip("no group") }

        // Join: the first invitee opens the Welcome and stores its state.
        var joined: MLSGroup?
        let join = try timed(runs) {
            let group = try setup.joinFirst(welcome)
            try save(group, id: memberID)
            joined = group
        }
        guard let member = joined else { throw BenchSkip("no join") }

        // Add one: commit + Welcome by the admin, processed by the member; both stored.
        let newcomer = try BenchGroup.keyPackage()
        let add = try timed(runs) {
            var a = admin
            let pending = try a.commit(adding: [newcomer.keyPackage])
            try save(pending.newGroup, id: groupID)
            var m = member
            _ = try m.process(pending.message)
            try save(m, id: memberID)
        }

        // Remove one: the last member (the joined one itself in a 2-member group).
        let removedLeaf = admin.members.last?.leafIndex ?? LeafIndex(1)
        let remove = try timed(runs) {
            var a = admin
            let pending = try a.commit(removing: [removedLeaf])
            try save(pending.newGroup, id: groupID)
            var m = member
            _ = try m.process(pending.message)
            try save(m, id: memberID)
        }

        // Self-update: created by the admin (stored), processed by the member (stored).
        var updates: [PendingCommit] = []
        let updateCreate = try timed(runs) {
            var a = admin
            let pending = try a.selfUpdate(signerRotation: SignerRotation(signer: .generate()))
            try save(pending.newGroup, id: groupID)
            updates.append(pending)
        }
        var index = 0
        let updateProcess = try timed(runs) {
            var m = member
            _ = try m.process(updates[index % updates.count].message)
            try save(m, id: memberID)
            index += 1
        }

        // One 100-byte message: encrypted by the admin, decrypted by the member; both stored as the
        // client stores them after an application message (the secret trees only).
        let message = try timed(runs * 5) {
            let sealed = try admin.encrypt(plaintext)
            try store.saveGroupRatchets(mlsGroupID: groupID, ratchets: admin.serializedRatchets())
            var m = member
            _ = try m.process(sealed)
            try store.saveGroupRatchets(mlsGroupID: memberID, ratchets: m.serializedRatchets())
        }
        admin = creator ?? admin
        let row = [String(size), ms(create), ms(join), ms(add), ms(remove), ms(updateCreate), ms(updateProcess), ms(message)]
        print("  \(size) members: state \(admin.serialized().count) bytes (secret trees \(admin.serializedRatchets().count)); " + row.dropFirst().joined(separator: ", "))
        return row
    }

    /// Mean milliseconds per run of `body`.
    static func timed(_ runs: Int, _ body: () throws -> Void) throws -> Double {
        let start = Bench.now()
        for _ in 0..<runs { try body() }
        return Double(Bench.now() - start) / Double(runs) / 1_000_000
    }

    static func ms(_ value: Double) -> String { String(format: "%.2f ms", value) }
}
