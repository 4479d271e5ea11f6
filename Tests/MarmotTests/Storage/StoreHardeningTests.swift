import Foundation
import GRDB
import MLS
import Nostr
import Testing
@testable import Marmot

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Attacks on the data folder: someone who copied it (reads every cell with GRDB, brute-forces ids,
/// copies old sealed rows back) and another app that holds the same nsec.
@Suite struct StoreHardeningTests {
    let account = Keys.generate()
    let installation = InstallationSecret.generate()
    var key: StorageKey { StorageKey(deriving: account.secretKey, installationSecret: installation) }
    var legacyKey: StorageKey { StorageKey.legacy(deriving: account.secretKey) }

    func makeGroup(_ id: UInt8, peer: PublicKey, state: Data = Data("state-1".utf8)) throws -> StoredGroup {
        StoredGroup(
            mlsGroupID: GroupID(Data(repeating: id, count: 32)), nostrGroupID: .random(), mlsState: state, epoch: 7,
            name: "Family", groupDescription: "d", admins: [account.publicKey, peer],
            relays: [try RelayURL("wss://relay.secret-graph.example")], peer: peer, status: .active, createdAt: 1_800_000_000)
    }

    // MARK: 1. No message text, hash or social graph in plaintext

    @Test func shortMessageTextCannotBeBruteForcedFromStoredIds() throws {
        let folder = TemporaryStoreFolder()
        defer { folder.remove() }
        let peer = Keys.generate()
        let store = try GRDBMarmotStore(path: folder.path, key: key)
        let group = try makeGroup(1, peer: peer.publicKey)
        try store.saveGroup(group)
        // A short reply: its NIP-01 id is SHA-256 over pubkey, created_at, kind, tags and content,
        // all guessable but the content.
        let createdAt: Int64 = 1_800_000_123
        let rumor = try ChatRumor(author: peer.publicKey, content: "yes", createdAt: createdAt)
        let outer = try EventID(bytes: Data(repeating: 0x4F, count: 32))
        try store.saveMessage(StoredMessage(rumor: rumor, mlsGroupID: group.mlsGroupID, isMine: false, deliveryState: .received,
                                            outerEventID: outer))
        try store.close()

        // The attacker reads every cell and, knowing the peer and the plaintext created_at, hashes
        // candidate replies until one matches a stored value.
        let dump = try DatabaseDump(path: folder.path)
        #expect(dump.cells.contains { $0.table == "messages_v2" }, "control: the message row is there")
        var recovered: [String] = []
        for guess in ["no", "ok", "yes", "maybe", "lol", "thanks"] {
            let candidate = try ChatRumor(author: peer.publicKey, content: guess, createdAt: createdAt)
            if !dump.locations(of: Data(candidate.id.bytes)).isEmpty { recovered.append(guess) }
        }
        #expect(recovered.isEmpty, "message text recovered from stored ids: \(recovered)")
        #expect(dump.locations(of: Data(rumor.id.bytes)).isEmpty)
        #expect(dump.locations(of: Data(outer.bytes)).isEmpty)
    }

    @Test func socialGraphIsNotReadableFromTheDatabase() throws {
        let folder = TemporaryStoreFolder()
        defer { folder.remove() }
        let peer = Keys.generate().publicKey
        let store = try GRDBMarmotStore(path: folder.path, key: key)
        let group = try makeGroup(2, peer: peer)
        try store.saveGroup(group)
        let rumor = try ChatRumor(author: peer, content: "hello", createdAt: 1_800_000_200)
        try store.saveMessage(StoredMessage(rumor: rumor, mlsGroupID: group.mlsGroupID, isMine: false, deliveryState: .received,
                                            outerEventID: nil))
        let outer = try EventID(bytes: Data(repeating: 0x77, count: 32))
        try store.updateDeliveryState(mlsGroupID: group.mlsGroupID, rumorID: rumor.id, state: .received, outerEventID: outer)
        let kp = StoredKeyPackage(
            ref: KeyPackageRef(Data(repeating: 0x3C, count: 32)), privateMaterial: Data("p".utf8), dTag: .random(),
            eventID: try EventID(bytes: Data(repeating: 0x5A, count: 32)),
            legacyEventID: try EventID(bytes: Data(repeating: 0x5B, count: 32)), createdAt: 1_800_000_000)
        try store.saveKeyPackage(kp)
        let processedID = try EventID(bytes: Data(repeating: 0x6E, count: 32))
        try store.recordProcessedEvent(ProcessedEvent(eventID: processedID, outcome: .processed, processedAt: 5,
                                                      mlsGroupID: group.mlsGroupID))
        try store.saveGroupEventKey(try GroupEventKey(bytes: Data(repeating: 0xE1, count: 32)), epoch: 7, mlsGroupID: group.mlsGroupID)
        try store.close()

        let dump = try DatabaseDump(path: folder.path)
        let secrets: [(String, Data)] = [
            ("peer", Data(peer.bytes)), ("admin (us)", Data(account.publicKey.bytes)), ("sender", Data(rumor.author.bytes)),
            ("relay", Data("relay.secret-graph.example".utf8)), ("mls_group_id", group.mlsGroupID.bytes),
            ("nostr_group_id", Data(group.nostrGroupID.bytes)), ("rumor_id", Data(rumor.id.bytes)),
            ("outer_event_id", Data(outer.bytes)), ("key package ref", kp.ref.bytes), ("d_tag", Data(kp.dTag.value.utf8)),
            ("key package event", Data(kp.eventID!.bytes)), ("key package legacy event", Data(kp.legacyEventID!.bytes)),
            ("processed event", Data(processedID.bytes)),
        ]
        for (what, bytes) in secrets {
            #expect(dump.locations(of: bytes).isEmpty, "\(what) readable at \(dump.locations(of: bytes))")
        }
        // The store itself still finds everything.
        let reopened = try GRDBMarmotStore(path: folder.path, key: key)
        #expect(try reopened.group(nostrGroupID: group.nostrGroupID) == group.withCounters(lastMessageAt: 1_800_000_200, unread: 1))
        #expect(try reopened.message(mlsGroupID: group.mlsGroupID, rumorID: rumor.id)?.outerEventID == outer)
        #expect(try reopened.keyPackage(ref: kp.ref) == kp)
        #expect(try reopened.processedEvent(id: processedID)?.mlsGroupID == group.mlsGroupID)
    }

    // MARK: 1b. A database from main opens and keeps its data

    @Test func databaseFromBeforeKeyedLookupsOpensWithAllItsDataAndNoPlaintextIds() throws {
        let folder = TemporaryStoreFolder()
        defer { folder.remove() }
        try FileManager.default.createDirectory(at: folder.folder, withIntermediateDirectories: true)
        let peer = Keys.generate().publicKey
        var group = try makeGroup(3, peer: peer)
        group.lastMessageAt = 1_800_000_301
        group.unreadCount = 2
        let outer = try EventID(bytes: Data(repeating: 0x0E, count: 32))
        // Three messages in the same second: their stored order must survive.
        let messages = try (0..<3).map { i in
            let rumor = try ChatRumor(author: peer, content: "old \(i)", tags: [Tag(["t", "x\(i)"])], createdAt: 1_800_000_301)
            return V1DatabaseWriter.Message(
                rumorID: rumor.id, sender: peer, content: rumor.content, tags: rumor.tags.map(\.fields), createdAt: rumor.createdAt,
                isMine: i == 0, deliveryState: i == 0 ? "sent" : "received", outerEventID: i == 0 ? outer : nil)
        }
        let kp = StoredKeyPackage(ref: KeyPackageRef(Data(repeating: 0x21, count: 32)), privateMaterial: Data("kp-private".utf8),
                                  dTag: .random(), eventID: try EventID(bytes: Data(repeating: 0x22, count: 32)), createdAt: 1_799_999_999)
        let processed = ProcessedEvent(eventID: try EventID(bytes: Data(repeating: 0x23, count: 32)), outcome: .ignored,
                                       processedAt: 77, mlsGroupID: group.mlsGroupID)
        let epochKeys = try [(UInt64(6), GroupEventKey(bytes: Data(repeating: 6, count: 32))),
                             (UInt64(7), GroupEventKey(bytes: Data(repeating: 7, count: 32)))]
        try V1DatabaseWriter.write(
            path: folder.path, key: legacyKey, group: group, messages: messages, keyPackage: kp, processed: processed,
            epochKeys: epochKeys, settings: ["relays": Data("[\"wss://x\"]".utf8)])
        #expect(!(try DatabaseDump(path: folder.path).locations(of: Data(messages[1].rumorID.bytes)).isEmpty),
                "control: the v1 layout stores rumor ids in plaintext")

        let store = try GRDBMarmotStore(path: folder.path, key: key, legacyKey: legacyKey)
        #expect(try store.appliedMigrations() == MarmotMigrations.migrator.migrations)
        #expect(try store.group(mlsGroupID: group.mlsGroupID) == group)
        #expect(try store.groups() == [group])
        let page = try store.messages(mlsGroupID: group.mlsGroupID, before: nil, limit: 2)
        #expect(page.messages.map(\.content) == ["old 2", "old 1"])
        let older = try store.messages(mlsGroupID: group.mlsGroupID, before: page.nextCursor, limit: 2)
        #expect(older.messages.map(\.content) == ["old 0"] && older.nextCursor == nil)
        let first = try #require(try store.message(mlsGroupID: group.mlsGroupID, rumorID: messages[0].rumorID))
        #expect(first.isMine && first.deliveryState == .sent && first.outerEventID == outer && first.sender == peer
                && first.tags == [Tag(["t", "x0"])])
        #expect(try store.keyPackages() == [kp])
        #expect(try store.processedEvent(id: processed.eventID) == processed)
        #expect(try store.groupEventKeys(mlsGroupID: group.mlsGroupID).map(\.epoch) == [7, 6])
        #expect(try store.groupEventKeys(mlsGroupID: group.mlsGroupID).first?.key == epochKeys[1].1)
        #expect(try store.setting("relays") == Data("[\"wss://x\"]".utf8))
        try store.close()

        // Re-encoded, not copied: the old tables and their plaintext ids are gone from the files.
        let dump = try DatabaseDump(path: folder.path)
        #expect(!dump.cells.contains { $0.table == "messages" || $0.table == "groups" })
        for message in messages { #expect(dump.locations(of: Data(message.rumorID.bytes)).isEmpty) }
        #expect(dump.locations(of: group.mlsGroupID.bytes).isEmpty)
        // Rekeyed: the current key alone opens it now; the nsec-only key no longer does.
        #expect(try GRDBMarmotStore(path: folder.path, key: key).setting("relays") != nil)
        #expect(throws: StorageError.wrongKey) { try GRDBMarmotStore(path: folder.path, key: legacyKey) }
    }

    // MARK: 2. Owner-only files

    @Test func databaseFolderAndFilesAreNotReadableByOtherUsers() throws {
        let folder = TemporaryStoreFolder()
        defer { folder.remove() }
        let previous = umask(0o022)
        defer { umask(previous) }
        let store = try GRDBMarmotStore(path: folder.path, key: key)
        try store.saveGroup(try makeGroup(4, peer: Keys.generate().publicKey))
        let files = [folder.path, folder.path + "-wal", folder.path + "-shm"]
        #expect(try mode(folder.folder.path) == 0o700)
        for file in files { #expect(try mode(file) == 0o600, "\(file)") }

        // An existing folder left readable (e.g. by an older version) is tightened at the next open.
        try store.close()
        chmod(folder.folder.path, 0o755)
        for file in files where FileManager.default.fileExists(atPath: file) { chmod(file, 0o644) }
        let reopened = try GRDBMarmotStore(path: folder.path, key: key)
        #expect(try mode(folder.folder.path) == 0o700)
        for file in files where FileManager.default.fileExists(atPath: file) { #expect(try mode(file) == 0o600, "\(file)") }
        try reopened.close()
    }

    func mode(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) & 0o777
    }

    // MARK: 3. Rollback of sealed MLS state

    @Test func olderSealedGroupStateCopiedBackIsRefused() throws {
        let folder = TemporaryStoreFolder()
        defer { folder.remove() }
        var group = try makeGroup(5, peer: Keys.generate().publicKey, state: Data("epoch-7 ratchet".utf8))
        let store = try GRDBMarmotStore(path: folder.path, key: key)
        try store.saveGroup(group)
        let old = try store.read { db in
            try Row.fetchOne(db, sql: "SELECT version, s.sealed_state, sealed_meta FROM groups_v2 JOIN group_states_v2 s USING (group_ref)")
        }
        group.mlsState = Data("epoch-8 ratchet".utf8)
        group.epoch = 8
        try store.saveGroup(group)
        try store.close()

        // The attacker writes the older row's bytes back with SQL.
        let oldRow = try #require(old)
        let queue = try DatabaseQueue(path: folder.path)
        try queue.write { db in
            try db.execute(sql: "UPDATE groups_v2 SET version = ?, sealed_meta = ?",
                           arguments: [oldRow["version"] as Int64, oldRow["sealed_meta"] as Data])
            try db.execute(sql: "UPDATE group_states_v2 SET sealed_state = ?", arguments: [oldRow["sealed_state"] as Data])
        }
        try queue.close()

        let reopened = try GRDBMarmotStore(path: folder.path, key: key)
        #expect(throws: StorageError.rollback("group \(refPrefix(group, key)) (version 1, expected 2)")) {
            try reopened.group(mlsGroupID: group.mlsGroupID)
        }
        #expect(throws: StorageError.self) { try reopened.group(nostrGroupID: group.nostrGroupID) }
        #expect(throws: StorageError.self) { try reopened.groups() }
        try reopened.close()

        // Changing the plaintext version column to match does not help: the version is sealed in.
        let forged = try DatabaseQueue(path: folder.path)
        try forged.write { db in try db.execute(sql: "UPDATE groups_v2 SET version = 2") }
        try forged.close()
        let again = try GRDBMarmotStore(path: folder.path, key: key)
        #expect(throws: StorageError.decryptionFailed("groups.state")) { try again.group(mlsGroupID: group.mlsGroupID) }
    }

    @Test func rolledBackVersionRecordIsRevealedByNewerRows() throws {
        let folder = TemporaryStoreFolder()
        defer { folder.remove() }
        let a = try makeGroup(6, peer: Keys.generate().publicKey)
        var b = try makeGroup(7, peer: Keys.generate().publicKey)
        let store = try GRDBMarmotStore(path: folder.path, key: key)
        try store.saveGroup(a)
        try store.saveGroup(b)
        let oldVersions = try store.read { db in try Data.fetchOne(db, sql: "SELECT value FROM store_meta WHERE name = 'group_versions'") }
        b.mlsState = Data("newer".utf8)
        try store.saveGroup(b)
        try store.saveGroup(a)
        try store.close()

        // The attacker restores the old version record (to pair it with old rows): it holds every
        // group's version at once, so the rows written since no longer match it.
        let queue = try DatabaseQueue(path: folder.path)
        try queue.write { db in
            try db.execute(sql: "UPDATE store_meta SET value = ? WHERE name = 'group_versions'", arguments: [try #require(oldVersions)])
        }
        try queue.close()
        let reopened = try GRDBMarmotStore(path: folder.path, key: key)
        #expect(throws: StorageError.self) { try reopened.group(mlsGroupID: b.mlsGroupID) }
        #expect(throws: StorageError.self) { try reopened.groups() }
    }

    @Test func groupRowWithoutVersionRecordIsRefused() throws {
        let folder = TemporaryStoreFolder()
        defer { folder.remove() }
        let a = try makeGroup(8, peer: Keys.generate().publicKey)
        let store = try GRDBMarmotStore(path: folder.path, key: key)
        try store.saveGroup(a)
        let row = try store.read { db in try Row.fetchOne(db, sql: "SELECT * FROM groups_v2") }
        let state = try store.read { db in try Row.fetchOne(db, sql: "SELECT * FROM group_states_v2") }
        try store.deleteGroup(mlsGroupID: a.mlsGroupID)
        // A deleted group's old rows are put back.
        try store.write { db in
            for (table, row) in [("groups_v2", try #require(row)), ("group_states_v2", try #require(state))] {
                try db.execute(sql: "INSERT INTO \(table) (\(row.columnNames.joined(separator: ", "))) VALUES (\(row.columnNames.map { _ in "?" }.joined(separator: ", ")))",
                               arguments: StatementArguments(row.databaseValues))
            }
        }
        #expect(throws: StorageError.rollback("group \(refPrefix(a, key)) (no version record)")) {
            try store.group(mlsGroupID: a.mlsGroupID)
        }
    }

    func refPrefix(_ group: StoredGroup, _ key: StorageKey) -> String {
        Hex.encode(StoreCodec(key: key).groupRef(group.mlsGroupID.bytes).prefix(8))
    }

    // MARK: 4. Another app with the same nsec

    @Test func anotherAppHoldingTheSameNsecCannotOpenTheDatabase() throws {
        let folder = TemporaryStoreFolder()
        defer { folder.remove() }
        let group = try makeGroup(9, peer: Keys.generate().publicKey, state: Data("ratchet secrets".utf8))
        let store = try GRDBMarmotStore(path: folder.path, key: key)
        try store.saveGroup(group)
        let sealedState = try #require(try store.read { db in try Data.fetchOne(db, sql: "SELECT sealed_state FROM group_states_v2") })
        let groupRef = try #require(try store.read { db in try Data.fetchOne(db, sql: "SELECT group_ref FROM groups_v2") })
        try store.close()

        // The other app derives the key from the nsec alone (the old scheme), or with its own
        // installation secret.
        #expect(throws: StorageError.wrongKey) { try GRDBMarmotStore(path: folder.path, key: legacyKey) }
        let otherInstallation = StorageKey(deriving: account.secretKey, installationSecret: .generate())
        #expect(throws: StorageError.wrongKey) { try GRDBMarmotStore(path: folder.path, key: otherInstallation) }
        #expect(throws: StorageError.wrongKey) {
            try GRDBMarmotStore(path: folder.path, key: otherInstallation, legacyKey: legacyKey)
        }
        // Nor does it open a sealed value directly, bypassing the key check.
        var version1 = groupRef
        withUnsafeBytes(of: Int64(1).bigEndian) { version1.append(contentsOf: $0) }
        for attempt in [legacyKey, otherInstallation] {
            #expect(throws: StorageError.self) {
                try StorageCipher(key: attempt).open(sealedState, SealContext("groups", "state", row: version1))
            }
        }
        #expect(try StorageCipher(key: key).open(sealedState, SealContext("groups", "state", row: version1)) == group.mlsState)
    }

    @Test func storeKeyedWithTheNsecAloneIsRekeyedInPlace() throws {
        let folder = TemporaryStoreFolder()
        defer { folder.remove() }
        let group = try makeGroup(10, peer: Keys.generate().publicKey)
        do {
            // A keyed-lookup database made with the nsec-only key (as a caller of the old API would).
            let store = try GRDBMarmotStore(path: folder.path, key: legacyKey)
            try store.saveGroup(group)
            try store.setSetting("s", Data([1, 2]))
            try store.saveMessage(StoredMessage(
                rumor: try ChatRumor(author: account.publicKey, content: "kept", createdAt: 1_800_000_400),
                mlsGroupID: group.mlsGroupID, isMine: true, deliveryState: .sent, outerEventID: nil))
            try store.close()
        }
        let store = try GRDBMarmotStore(path: folder.path, key: key, legacyKey: legacyKey)
        #expect(try store.group(mlsGroupID: group.mlsGroupID)?.mlsState == group.mlsState)
        #expect(try store.setting("s") == Data([1, 2]))
        #expect(try store.messages(mlsGroupID: group.mlsGroupID).messages.map(\.content) == ["kept"])
        try store.close()
        #expect(throws: StorageError.wrongKey) { try GRDBMarmotStore(path: folder.path, key: legacyKey) }
        #expect(try GRDBMarmotStore(path: folder.path, key: key).setting("s") == Data([1, 2]))
    }

    @Test func installationSecretIsRedactedAndRoundTripsThroughHex() throws {
        let secret = InstallationSecret.generate()
        #expect("\(secret)" == "InstallationSecret(redacted)")
        #expect(String(reflecting: secret) == "InstallationSecret(redacted)")
        #expect(!"\(Mirror(reflecting: secret).children.map(\.value))".contains(secret.hexEncodedForStorage()))
        #expect(InstallationSecret(hex: secret.hexEncodedForStorage() + "\n") == secret)
        #expect(InstallationSecret(hex: "abcd") == nil)
        #expect(InstallationSecret.generate() != secret)
    }
}

extension StoredGroup {
    func withCounters(lastMessageAt: Int64?, unread: Int) -> StoredGroup {
        var copy = self
        copy.lastMessageAt = lastMessageAt
        copy.unreadCount = unread
        return copy
    }
}
