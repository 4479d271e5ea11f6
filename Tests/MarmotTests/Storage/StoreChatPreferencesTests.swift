import Foundation
import MLS
import Nostr
import Testing
@testable import Marmot

/// Issue 48: the `chat_preferences_v2` and `blocked_people_v2` tables (migration `v10-chat-preferences`).
@Suite struct StoreChatPreferencesTests {
    let account = Keys.generate()
    let installation = InstallationSecret.generate()
    var key: StorageKey { StorageKey(deriving: account.secretKey, installationSecret: installation) }

    func makeGroup(_ byte: UInt8) -> StoredGroup {
        StoredGroup(
            mlsGroupID: GroupID(Data(repeating: byte, count: 32)), nostrGroupID: .random(), mlsState: Data("s".utf8), epoch: 1,
            name: "", groupDescription: "", admins: [account.publicKey], relays: [try! RelayURL("wss://relay.example.com")],
            peer: Keys.generate().publicKey, status: .active, createdAt: 1_800_000_000)
    }

    @Test func preferencesAreKeptAcrossReopenAndDefaultsLeaveNoRow() throws {
        let folder = TemporaryStoreFolder()
        defer { folder.remove() }
        let (a, b, c) = (makeGroup(1), makeGroup(2), makeGroup(3))
        do {
            let store = try GRDBMarmotStore(path: folder.path, key: key)
            for group in [a, b, c] { try store.saveGroup(group) }
            try store.saveChatPreferences(StoredChatPreferences(mute: .until(1_800_003_600)), mlsGroupID: a.mlsGroupID, at: 1_800_000_000)
            try store.saveChatPreferences(StoredChatPreferences(mute: .forever, archivedAt: 1_800_000_000), mlsGroupID: b.mlsGroupID, at: 1_800_000_000)
            try store.saveChatPreferences(StoredChatPreferences(archivedAt: 1_800_000_000), mlsGroupID: c.mlsGroupID, at: 1_800_000_000)
            try store.saveChatPreferences(StoredChatPreferences(), mlsGroupID: c.mlsGroupID, at: 1_800_000_001)
            try store.close()
        }
        let store = try GRDBMarmotStore(path: folder.path, key: key)
        let kept = try store.chatPreferences(of: [a.mlsGroupID, b.mlsGroupID, c.mlsGroupID])
        #expect(kept == [
            a.mlsGroupID: StoredChatPreferences(mute: .until(1_800_003_600)),
            b.mlsGroupID: StoredChatPreferences(mute: .forever, archivedAt: 1_800_000_000),
        ])
        #expect(Array(try store.chatPreferences(of: [a.mlsGroupID]).keys) == [a.mlsGroupID])
        #expect(try store.appliedMigrations().contains("v10-chat-preferences"))
    }

    @Test func preferencesGoWithTheirGroupAndNeedOne() throws {
        let store = try GRDBMarmotStore.inMemory(key: key)
        let group = makeGroup(4)
        try store.saveGroup(group)
        try store.saveChatPreferences(StoredChatPreferences(archivedAt: 1_800_000_000), mlsGroupID: group.mlsGroupID, at: 1)
        try store.deleteGroup(mlsGroupID: group.mlsGroupID)
        #expect(try store.chatPreferences(of: [group.mlsGroupID]).isEmpty)
        #expect(throws: StorageError.self) {
            try store.saveChatPreferences(StoredChatPreferences(archivedAt: 1_800_000_000), mlsGroupID: group.mlsGroupID, at: 2)
        }
    }

    @Test func blockedPeopleAreKeptAcrossReopenAndNotReadableFromTheFile() throws {
        let folder = TemporaryStoreFolder()
        defer { folder.remove() }
        let (first, second) = (Keys.generate().publicKey, Keys.generate().publicKey)
        do {
            let store = try GRDBMarmotStore(path: folder.path, key: key)
            try store.block(second, at: 20)
            try store.block(first, at: 10)
            try store.block(first, at: 30)  // already blocked: keeps the first moment
            try store.close()
        }
        let dump = try DatabaseDump(path: folder.path)
        #expect(dump.cells.contains { $0.table == "blocked_people_v2" }, "control: the rows are there")
        #expect(dump.locations(of: Data(first.bytes)).isEmpty && dump.locations(of: Data(second.bytes)).isEmpty)

        let store = try GRDBMarmotStore(path: folder.path, key: key)
        #expect(try store.blockedPeople() == [StoredBlockedPerson(person: first, blockedAt: 10), StoredBlockedPerson(person: second, blockedAt: 20)])
        try store.unblock(first)
        try store.unblock(Keys.generate().publicKey)
        #expect(try store.blockedPeople().map(\.person) == [second])
    }
}
