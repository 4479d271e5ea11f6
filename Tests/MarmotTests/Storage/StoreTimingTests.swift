import Foundation
import GRDB
import MLS
import Nostr
import Testing
@testable import Marmot

/// One number for the keyed-lookup layout's cost: open the store, list 50 groups and page the newest
/// 50 messages, in the first layout (read as the code on main did) and in the current one.
@Suite struct StoreTimingTests {
    @Test func openListFiftyGroupsAndPageFiftyMessages() throws {
        let account = Keys.generate()
        let legacy = StorageKey.legacy(deriving: account.secretKey)
        let key = StorageKey(deriving: account.secretKey, installationSecret: .generate())
        let folder = TemporaryStoreFolder()
        defer { folder.remove() }
        try FileManager.default.createDirectory(at: folder.folder, withIntermediateDirectories: true)
        let peer = Keys.generate().publicKey
        let state = Data((0..<8_192).map { _ in UInt8.random(in: 0...255) })
        let groups = try (0..<50).map { i in
            StoredGroup(
                mlsGroupID: GroupID(Data((0..<32).map { _ in UInt8.random(in: 0...255) })), nostrGroupID: .random(),
                mlsState: state, epoch: 3, name: "Group \(i)", admins: [account.publicKey], relays: [try RelayURL("wss://r.example")],
                peer: peer, lastMessageAt: 1_800_000_000 + Int64(i), createdAt: 1_800_000_000)
        }
        let messages = try (0..<500).map { i in
            let rumor = try ChatRumor(author: peer, content: "message number \(i) with some text", createdAt: 1_800_000_000 + Int64(i / 3))
            return V1DatabaseWriter.Message(rumorID: rumor.id, sender: peer, content: rumor.content, tags: [], createdAt: rumor.createdAt,
                                            isMine: false, deliveryState: "received", outerEventID: nil)
        }
        let chat = groups[49]
        try V1DatabaseWriter.write(
            path: folder.path, key: legacy, groups: groups.map { ($0, $0.mlsGroupID == chat.mlsGroupID ? messages : []) },
            keyPackage: StoredKeyPackage(ref: KeyPackageRef(Data(repeating: 1, count: 32)), privateMaterial: Data([1]), dTag: .random()),
            processed: ProcessedEvent(eventID: try EventID(bytes: Data(repeating: 2, count: 32)), outcome: .processed),
            epochKeys: [], settings: [:])

        let runs = 7
        // Before: the first layout, read the way the store on main did.
        let before = try median(runs) {
            let pool = try DatabasePool(path: folder.path)
            try MarmotMigrations.migrator.migrate(pool, upTo: "v1-initial")
            let cipher = StorageCipher(key: legacy)
            let listed = try pool.read { db in
                let check = try #require(try StoreMetaRow.fetchOne(db, key: V1Layout.keyCheckName))
                #expect(V1Layout.opensKeyCheck(check.value, cipher))
                return try V1GroupRow.order(sql: "COALESCE(last_message_at, created_at) DESC, mls_group_id").fetchAll(db)
            }.map { try V1Layout.storedGroup($0, cipher) }
            let page = try pool.read { db in
                try V1MessageRow.filter(Column("mls_group_id") == chat.mlsGroupID.bytes)
                    .order(Column("created_at").desc, Column.rowID.desc).limit(51).fetchAll(db)
            }.prefix(50).map { try V1Layout.storedMessage($0, cipher) }
            #expect(listed.count == 50 && page.count == 50)
            try pool.close()
        }
        // The one-time move to the keyed-lookup layout (and rekey), at the first open.
        let clock = ContinuousClock()
        let migration = try clock.measure {
            try GRDBMarmotStore(path: folder.path, key: key, legacyKey: legacy).close()
        }
        let after = try median(runs) {
            let store = try GRDBMarmotStore(path: folder.path, key: key, legacyKey: legacy)
            let listed = try store.groups()
            let page = try store.messages(mlsGroupID: chat.mlsGroupID)
            #expect(listed.count == 50 && page.messages.count == 50)
            #expect(listed.first?.mlsGroupID == chat.mlsGroupID)
            try store.close()
        }
        print("store timing: open + 50 groups + page of 50 messages (median of \(runs)): v1 layout \(ms(before)) ms, keyed-lookup layout \(ms(after)) ms; one-time migration of 50 groups / 500 messages \(ms(migration)) ms")
    }

    func median(_ runs: Int, _ body: () throws -> Void) throws -> Duration {
        let clock = ContinuousClock()
        var times: [Duration] = []
        for _ in 0..<runs { times.append(try clock.measure(body)) }
        return times.sorted()[runs / 2]
    }

    func ms(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(format: "%.2f", Double(seconds) * 1000 + Double(attoseconds) / 1e15)
    }
}
