import Foundation
import MLS
import Nostr
import Testing
@testable import Marmot

@Suite struct StoreTests {
    let account = Keys.generate()
    let installation = InstallationSecret.generate()
    var key: StorageKey { StorageKey(deriving: account.secretKey, installationSecret: installation) }

    func makeGroup(name: String = "Friends", state: Data = Data("mls-state".utf8), lastMessageAt: Int64? = nil) -> StoredGroup {
        StoredGroup(
            mlsGroupID: GroupID(Data((0..<16).map { _ in UInt8.random(in: 0...255) })), nostrGroupID: .random(),
            mlsState: state, epoch: 3, name: name, groupDescription: "desc", admins: [account.publicKey],
            relays: [try! RelayURL("wss://relay.example.com")], peer: Keys.generate().publicKey, status: .active,
            lastMessageAt: lastMessageAt, createdAt: 1_800_000_000)
    }

    func makeMessage(_ group: StoredGroup, at time: Int64, content: String = "hi", mine: Bool = false) -> StoredMessage {
        let rumor = try! ChatRumor(author: Keys.generate().publicKey, content: content, tags: [Tag(["t", "x"])], createdAt: time)
        return StoredMessage(rumor: rumor, mlsGroupID: group.mlsGroupID, isMine: mine,
                             deliveryState: mine ? .pending : .received, outerEventID: nil)
    }

    @Test func groupCRUD() throws {
        let store = try GRDBMarmotStore.inMemory(key: key)
        var group = makeGroup()
        try store.saveGroup(group)
        #expect(try store.group(mlsGroupID: group.mlsGroupID) == group)
        #expect(try store.group(nostrGroupID: group.nostrGroupID) == group)
        #expect(try store.group(nostrGroupID: .random()) == nil)

        group.epoch = 4
        group.mlsState = Data("new state".utf8)
        group.name = "Renamed"
        group.nostrGroupID = .random()
        group.status = .inactive
        try store.saveGroup(group)
        #expect(try store.group(mlsGroupID: group.mlsGroupID) == group)
        #expect(try store.groups() == [group])

        let other = makeGroup(name: "Other", lastMessageAt: 1_900_000_000)
        try store.saveGroup(other)
        #expect(try store.groups().map(\.name) == ["Other", "Renamed"])
        try store.deleteGroup(mlsGroupID: group.mlsGroupID)
        #expect(try store.group(mlsGroupID: group.mlsGroupID) == nil)
        #expect(try store.groups() == [other])
        #expect(!String(describing: other).contains("mls-state"))
    }

    @Test func messagesUpdateGroupAndDeliveryState() throws {
        let store = try GRDBMarmotStore.inMemory(key: key)
        let group = makeGroup()
        try store.saveGroup(group)
        let theirs = makeMessage(group, at: 1_800_000_100, content: "hello \"you\"\n")
        let mine = makeMessage(group, at: 1_800_000_050, mine: true)
        try store.saveMessage(theirs)
        try store.saveMessage(mine)
        try store.saveMessage(theirs)
        var stored = try #require(try store.group(mlsGroupID: group.mlsGroupID))
        #expect(stored.unreadCount == 1 && stored.lastMessageAt == 1_800_000_100)
        #expect(try store.message(mlsGroupID: group.mlsGroupID, rumorID: theirs.rumorID) == theirs)

        let outer = try EventID(hex: String(repeating: "ab", count: 32))
        try store.updateDeliveryState(mlsGroupID: group.mlsGroupID, rumorID: mine.rumorID, state: .sent, outerEventID: outer)
        let updated = try #require(try store.message(mlsGroupID: group.mlsGroupID, rumorID: mine.rumorID))
        #expect(updated.deliveryState == .sent && updated.outerEventID == outer && updated.content == mine.content)

        try store.markGroupRead(mlsGroupID: group.mlsGroupID)
        stored = try #require(try store.group(mlsGroupID: group.mlsGroupID))
        #expect(stored.unreadCount == 0)

        #expect(throws: StorageError.unknownGroup(GroupID(Data([1])).description)) {
            var orphan = theirs
            orphan.mlsGroupID = GroupID(Data([1]))
            try store.saveMessage(orphan)
        }
        try store.deleteGroup(mlsGroupID: group.mlsGroupID)
        #expect(try store.message(mlsGroupID: group.mlsGroupID, rumorID: theirs.rumorID) == nil)
    }

    /// Each message keeps the epoch it was read or encrypted in (`v7-message-epochs`, issue 24):
    /// the messages after an epoch come back oldest first, without invalidated ones or rows that
    /// have no epoch, and saving a message again without an epoch keeps the one it had.
    @Test func messagesAfterAnEpochComeBackOldestFirst() throws {
        let store = try GRDBMarmotStore.inMemory(key: key)
        let group = makeGroup()
        try store.saveGroup(group)
        var messages: [StoredMessage] = []
        for (index, epoch) in [UInt64(2), 4, 3, 5].enumerated() {
            var message = makeMessage(group, at: 1_800_000_000 + Int64(index), content: "m\(index)", mine: index == 3)
            message.epoch = epoch
            try store.saveMessage(message)
            messages.append(message)
        }
        try store.saveMessage(makeMessage(group, at: 1_800_000_009, content: "no epoch"))
        #expect(try store.messages(mlsGroupID: group.mlsGroupID, afterEpoch: 2).map(\.content) == ["m2", "m1", "m3"])
        #expect(try store.messages(mlsGroupID: group.mlsGroupID, afterEpoch: 2)[2].epoch == 5)
        try store.updateDeliveryState(mlsGroupID: group.mlsGroupID, rumorID: messages[1].rumorID, state: .invalidated, outerEventID: nil)
        var again = messages[2]
        again.epoch = nil
        try store.saveMessage(again)
        #expect(try store.messages(mlsGroupID: group.mlsGroupID, afterEpoch: 2).map(\.content) == ["m2", "m3"])
        #expect(try store.message(mlsGroupID: group.mlsGroupID, rumorID: messages[2].rumorID)?.epoch == 3)
    }

    /// Issue 25: reactions, edits, deletions, push-token gossip and group system events change
    /// other messages or are never shown, so they raise no unread count; deleting a message removes it.
    @Test func onlyReadableMessagesCountAsUnreadAndDeletionRemoves() throws {
        let store = try GRDBMarmotStore.inMemory(key: key)
        let group = makeGroup()
        try store.saveGroup(group)
        let author = Keys.generate().publicKey
        for (index, kind) in ([5, 7, 1009, 447, 448, 449, 1210] as [UInt16]).enumerated() {
            let rumor = try ChatRumor(author: author, content: "x", kind: Kind(kind), createdAt: 1_800_000_000 + Int64(index))
            try store.saveMessage(StoredMessage(rumor: rumor, mlsGroupID: group.mlsGroupID, isMine: false, deliveryState: .received, outerEventID: nil))
        }
        #expect(try store.group(mlsGroupID: group.mlsGroupID)?.unreadCount == 0)
        let text = makeMessage(group, at: 1_800_000_100)
        try store.saveMessage(text)
        #expect(try store.group(mlsGroupID: group.mlsGroupID)?.unreadCount == 1)
        try store.deleteMessage(mlsGroupID: group.mlsGroupID, rumorID: text.rumorID)
        #expect(try store.message(mlsGroupID: group.mlsGroupID, rumorID: text.rumorID) == nil)
        #expect(try store.messages(mlsGroupID: group.mlsGroupID).messages.count == 7)
        try store.deleteMessage(mlsGroupID: group.mlsGroupID, rumorID: text.rumorID)
    }

    /// One unread rule for the store and the core (architecture review §3.3-b): a kind the app
    /// does not show counts in neither (it counted in the store only), a note of ours written on
    /// another device counts in both (in the core only), a system line by someone else counts, and
    /// ours sent from here never does. Each of the first two failed with the store's old rule.
    @Test func theStoreCountsWhatTheCoreCounts() throws {
        let store = try GRDBMarmotStore.inMemory(key: key)
        let group = makeGroup()
        try store.saveGroup(group)
        let me = Keys.generate().publicKey, peer = Keys.generate().publicKey
        func save(_ kind: UInt16, author: PublicKey, at offset: Int64, noteFromElsewhere: Bool = false) throws -> Int? {
            let rumor = try ChatRumor(author: author, content: "x", kind: Kind(kind), createdAt: 1_800_000_000 + offset)
            var message = StoredMessage(
                rumor: rumor, mlsGroupID: group.mlsGroupID, isMine: author == me,
                deliveryState: author == me ? .sent : .received, outerEventID: nil)
            message.isNoteFromAnotherDevice = noteFromElsewhere
            try store.saveMessage(message)
            return try store.group(mlsGroupID: group.mlsGroupID)?.unreadCount
        }
        #expect(try save(30_078, author: peer, at: 1) == 0, "an unknown kind is no unread message")
        #expect(try save(9, author: me, at: 2) == 0, "ours, sent from here")
        #expect(try save(9, author: me, at: 3, noteFromElsewhere: true) == 1, "a note from another device")
        #expect(try save(9, author: peer, at: 4) == 2)
        let line = SystemNotice(change: .added, actor: peer, subject: me)
            .message(in: group.mlsGroupID, commit: try EventID(bytes: Data(repeating: 7, count: 32)), createdAt: 1_800_000_005, me: me)
        try store.saveMessage(line)
        #expect(try store.group(mlsGroupID: group.mlsGroupID)?.unreadCount == 3, "a system line by someone else")
    }

    @Test func paginatesNewestFirst() throws {
        let store = try GRDBMarmotStore.inMemory(key: key)
        let group = makeGroup()
        try store.saveGroup(group)
        // 120 messages, three per second: within a second, the order they were stored decides.
        let all = (0..<120).map { makeMessage(group, at: 1_800_000_000 + Int64($0 / 3), content: "m\($0)") }
        for m in all { try store.saveMessage(m) }
        let expected = Array(all.reversed())

        let first = try store.messages(mlsGroupID: group.mlsGroupID)
        #expect(first.messages.count == 50)
        let second = try store.messages(mlsGroupID: group.mlsGroupID, before: first.nextCursor)
        #expect(second.messages.count == 50)
        let third = try store.messages(mlsGroupID: group.mlsGroupID, before: second.nextCursor)
        #expect(third.messages.count == 20 && third.nextCursor == nil)
        #expect((first.messages + second.messages + third.messages).map(\.rumorID) == expected.map(\.rumorID))

        let small = try store.messages(mlsGroupID: group.mlsGroupID, before: nil, limit: 120)
        #expect(small.messages.count == 120 && small.nextCursor == nil)
        #expect(try store.messages(mlsGroupID: GroupID(Data([9]))).messages.isEmpty)
    }

    @Test func keyPackagesProcessedEventsEpochKeysSettings() throws {
        let store = try GRDBMarmotStore.inMemory(key: key)
        let ref = KeyPackageRef(Data(repeating: 5, count: 32))
        let kp = StoredKeyPackage(ref: ref, privateMaterial: Data("private".utf8), dTag: .random(),
                                  eventID: try EventID(hex: String(repeating: "01", count: 32)), createdAt: 1_800_000_000)
        try store.saveKeyPackage(kp)
        #expect(try store.keyPackage(ref: ref) == kp)
        #expect(try store.keyPackages() == [kp])
        #expect(!String(describing: kp).contains("private\""))
        try store.deleteKeyPackage(ref: ref)
        #expect(try store.keyPackage(ref: ref) == nil)

        let id = try EventID(hex: String(repeating: "02", count: 32))
        try store.recordProcessedEvent(ProcessedEvent(eventID: id, outcome: .failed, processedAt: 100))
        #expect(try store.processedEvent(id: id)?.outcome == .failed)
        try store.recordProcessedEvent(ProcessedEvent(eventID: id, outcome: .processed, processedAt: 200, mlsGroupID: GroupID(Data([1]))))
        #expect(try store.processedEvent(id: id) == ProcessedEvent(eventID: id, outcome: .processed, processedAt: 200, mlsGroupID: GroupID(Data([1]))))
        #expect(try store.pruneProcessedEvents(processedBefore: 150) == 0)
        #expect(try store.pruneProcessedEvents(processedBefore: 250) == 1)
        #expect(try store.processedEvent(id: id) == nil)

        let group = makeGroup()
        try store.saveGroup(group)
        for epoch in UInt64(1)...7 {
            try store.saveGroupEventKey(try GroupEventKey(bytes: Data(repeating: UInt8(epoch), count: 32)), epoch: epoch,
                                        mlsGroupID: group.mlsGroupID)
        }
        try store.pruneGroupEventKeys(mlsGroupID: group.mlsGroupID, keepingFrom: 2)
        let keys = try store.groupEventKeys(mlsGroupID: group.mlsGroupID)
        #expect(keys.map(\.epoch) == [7, 6, 5, 4, 3, 2])
        #expect(keys[0].key == (try GroupEventKey(bytes: Data(repeating: 7, count: 32))))

        #expect(try store.setting("relays") == nil)
        #expect(try !store.hasSetting("relays"))
        try store.setSetting("relays", Data("[\"wss://x\"]".utf8))
        #expect(try store.setting("relays") == Data("[\"wss://x\"]".utf8))
        #expect(try store.hasSetting("relays"))
        #expect(try !store.hasSetting("relay"))
        try store.setSetting("relays", nil)
        #expect(try store.setting("relays") == nil)
        #expect(try !store.hasSetting("relays"))
    }

    /// The start-up's batch reads (issue 27) answer what the per-group reads answer.
    @Test func batchReadsOfEpochKeysAndSettings() throws {
        let store = try GRDBMarmotStore.inMemory(key: key)
        let first = makeGroup(name: "first"), second = makeGroup(name: "second"), empty = makeGroup(name: "empty")
        for group in [first, second, empty] { try store.saveGroup(group) }
        for epoch in UInt64(1)...3 {
            try store.saveGroupEventKey(
                try GroupEventKey(bytes: Data(repeating: UInt8(epoch), count: 32)), epoch: epoch, mlsGroupID: first.mlsGroupID)
        }
        try store.saveGroupEventKey(try GroupEventKey(bytes: Data(repeating: 9, count: 32)), epoch: 9, mlsGroupID: second.mlsGroupID)

        let keys = try store.groupEventKeys(of: [first.mlsGroupID, second.mlsGroupID, empty.mlsGroupID])
        #expect(keys[first.mlsGroupID] == (try store.groupEventKeys(mlsGroupID: first.mlsGroupID)))
        #expect(keys[first.mlsGroupID]?.map(\.epoch) == [3, 2, 1])
        #expect(keys[second.mlsGroupID]?.map(\.epoch) == [9])
        #expect(keys[second.mlsGroupID]?.first?.key == (try GroupEventKey(bytes: Data(repeating: 9, count: 32))))
        #expect(keys[empty.mlsGroupID] == [])
        // Only the groups asked for.
        #expect(Array(try store.groupEventKeys(of: [second.mlsGroupID]).keys) == [second.mlsGroupID])

        try store.setSetting("client.parked.a", Data("1".utf8))
        try store.setSetting("client.branches.c", Data())
        #expect(try store.presentSettings(["client.parked.a", "client.parked.b", "client.branches.c"])
            == ["client.parked.a", "client.branches.c"])
        #expect(try store.presentSettings([]) == [])
        try store.setSetting("client.parked.a", nil)
        #expect(try store.presentSettings(["client.parked.a", "client.branches.c"]) == ["client.branches.c"])
    }
}

@Suite struct StoreFileTests {
    let account = Keys.generate()
    let installation = InstallationSecret.generate()
    var key: StorageKey { StorageKey(deriving: account.secretKey, installationSecret: installation) }

    func temporaryPath() -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("marmot-store-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.appendingPathComponent("marmot.sqlite").path
    }

    func cleanup(_ path: String) {
        try? FileManager.default.removeItem(at: URL(fileURLWithPath: path).deletingLastPathComponent())
    }

    @Test func dataSurvivesRestartAndMigrationsRunOnce() throws {
        let path = temporaryPath()
        defer { cleanup(path) }
                let group = StoredGroup(
            mlsGroupID: GroupID(Data(repeating: 1, count: 16)), nostrGroupID: .random(), mlsState: Data([1, 2, 3]), epoch: 1,
            name: "G", admins: [account.publicKey], relays: [try RelayURL("wss://r.example")], createdAt: 5)
        do {
            let store = try GRDBMarmotStore(path: path, key: key)
            // Every registered migration runs, the shipped ones first in their order (each later one is
            // appended by its own change: v9, v10-chat-preferences, …).
            #expect(MarmotMigrations.migrator.migrations.starts(with: ["v1-initial", "v2-keyed-lookups", "v3-message-expiry", "v4-outbox-index", "v5-group-ratchets", "v6-group-states", "v7-message-epochs", "v8-group-engines"]))
            #expect(try store.appliedMigrations() == MarmotMigrations.migrator.migrations)
            try store.saveGroup(group)
            try store.setSetting("k", Data([9]))
            try store.close()
        }
        let reopened = try GRDBMarmotStore(path: path, key: key)
        #expect(try reopened.appliedMigrations() == MarmotMigrations.migrator.migrations)
        let count = try reopened.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM grdb_migrations") }
        #expect(count == MarmotMigrations.migrator.migrations.count)
        #expect(try reopened.group(mlsGroupID: group.mlsGroupID) == group)
        #expect(try reopened.setting("k") == Data([9]))
    }

    @Test func wrongKeyIsAnErrorNotACrash() throws {
        let path = temporaryPath()
        defer { cleanup(path) }
        do {
            let store = try GRDBMarmotStore(path: path, key: key)
            try store.setSetting("k", Data([1]))
            try store.close()
        }
        #expect(throws: StorageError.wrongKey) {
            try GRDBMarmotStore(path: path, key: StorageKey(deriving: Keys.generate().secretKey, installationSecret: installation))
        }
        #expect(throws: StorageError.invalidKeyLength(16)) { try StorageKey(rawBytes: Data(count: 16)) }
    }

    @Test func sealedValuesDoNotOpenUnderAnotherKeyOrRow() throws {
        let cipher = StorageCipher(key: key)
        let context = SealContext("messages", "body", row: Data([1]))
        let sealed = try cipher.seal(Data("secret".utf8), context)
        #expect(try cipher.open(sealed, context) == Data("secret".utf8))
        let other = StorageCipher(key: StorageKey(deriving: Keys.generate().secretKey, installationSecret: installation))
        #expect(throws: StorageError.decryptionFailed("messages.body")) { try other.open(sealed, context) }
        #expect(throws: StorageError.decryptionFailed("messages.body")) {
            try cipher.open(sealed, SealContext("messages", "body", row: Data([2])))
        }
        #expect(String(describing: key) == "StorageKey(redacted)")
    }

    @Test func databaseFilesRevealNoSecrets() throws {
        let path = temporaryPath()
        defer { cleanup(path) }
        let markers = ["MLSSTATEMARKER", "GROUPNAMEMARKER", "DESCRIPTIONMARKER", "MESSAGEMARKER", "TAGMARKER",
                       "PRIVATEKEYMARKER", "SETTINGMARKER"]
        let store = try GRDBMarmotStore(path: path, key: key)
        let group = StoredGroup(
            mlsGroupID: GroupID(Data(repeating: 2, count: 16)), nostrGroupID: .random(), mlsState: Data(markers[0].utf8),
            epoch: 1, name: markers[1], groupDescription: markers[2], admins: [account.publicKey],
            relays: [try RelayURL("wss://relay.example.com")], createdAt: 5)
        try store.saveGroup(group)
        let rumor = try ChatRumor(author: account.publicKey, content: markers[3], tags: [Tag(["t", markers[4]])], createdAt: 10)
        try store.saveMessage(StoredMessage(rumor: rumor, mlsGroupID: group.mlsGroupID, isMine: true, deliveryState: .sent,
                                            outerEventID: nil))
        try store.saveKeyPackage(StoredKeyPackage(ref: KeyPackageRef(Data(repeating: 3, count: 32)),
                                                  privateMaterial: Data(markers[5].utf8), dTag: .random()))
        try store.setSetting("s", Data(markers[6].utf8))
        try store.saveGroupEventKey(try GroupEventKey(bytes: Data(repeating: 0xAB, count: 32)), epoch: 1, mlsGroupID: group.mlsGroupID)

        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        var bytes = Data()
        for file in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            bytes.append(try Data(contentsOf: directory.appendingPathComponent(file)))
        }
        // Control: the schema is findable in plaintext, so the search would see secrets if they were there.
        #expect(bytes.range(of: Data("sealed_outer_event_id".utf8)) != nil)
        #expect(bytes.range(of: Data("wss://relay.example.com".utf8)) == nil)
        for marker in markers {
            #expect(bytes.range(of: Data(marker.utf8)) == nil, "\(marker) found in the database files")
        }
        #expect(bytes.range(of: Data(repeating: 0xAB, count: 32)) == nil)
        try store.close()
    }
}
