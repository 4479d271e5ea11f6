import Foundation
import MLS
import Nostr
import Testing
@testable import Marmot

/// The media tables (migration `v23-media`): media secrets per state with a cap per epoch, each
/// message's media epoch and pending upload as a row of that message, file plaintexts as rows of
/// their group; all sealed at rest and gone with what they belong to.
@Suite struct StoreMediaTests: StoreFixture {
    let account = Keys.generate()
    let installation = InstallationSecret.generate()

    func secret(_ n: Int) -> Data { Data("media-secret-marker-\(n)".utf8) + Data(repeating: UInt8(truncatingIfNeeded: n), count: 12) }

    /// Two states of one epoch (branches of a fork) keep two secrets; a ninth state of that epoch
    /// drops the oldest kept, not the newest; saving one already kept changes nothing.
    @Test func secretsAreKeptPerStateWithEightPerEpoch() throws {
        let store = try GRDBMarmotStore.inMemory(key: key)
        let group = makeGroup(1)
        try store.saveGroup(group)
        try store.saveMediaSecrets([(epoch: 4, secret: secret(0)), (epoch: 4, secret: secret(1)), (epoch: 5, secret: secret(50))],
                                   mlsGroupID: group.mlsGroupID)
        #expect(try store.mediaSecrets(mlsGroupID: group.mlsGroupID, epoch: 4) == [secret(1), secret(0)], "latest first")
        try store.saveMediaSecrets([(epoch: 4, secret: secret(0))], mlsGroupID: group.mlsGroupID)
        #expect(try store.mediaSecrets(mlsGroupID: group.mlsGroupID, epoch: 4).count == 2, "a kept secret is not added twice")

        try store.saveMediaSecrets((2...8).map { (epoch: UInt64(4), secret: secret($0)) }, mlsGroupID: group.mlsGroupID)
        let kept = try store.mediaSecrets(mlsGroupID: group.mlsGroupID, epoch: 4)
        #expect(kept.count == GRDBMarmotStore.mediaSecretsPerEpoch)
        #expect(!kept.contains(secret(0)), "the oldest state's secret went")
        #expect(kept.first == secret(8) && kept.contains(secret(1)))
        #expect(try store.mediaSecrets(mlsGroupID: group.mlsGroupID, epoch: 5) == [secret(50)], "another epoch is untouched")

        // A flood of states for one epoch stays at the cap.
        try store.saveMediaSecrets((100..<300).map { (epoch: UInt64(4), secret: secret($0)) }, mlsGroupID: group.mlsGroupID)
        #expect(try store.mediaSecrets(mlsGroupID: group.mlsGroupID, epoch: 4).count == GRDBMarmotStore.mediaSecretsPerEpoch)
        #expect(throws: StorageError.self) {
            try store.saveMediaSecrets([(epoch: 1, secret: secret(9))], mlsGroupID: makeGroup(2).mlsGroupID)
        }
    }

    /// Nothing of a secret, an upload or a file's plaintext is in the file in the clear; all three
    /// read back after reopening.
    @Test func everythingIsSealedAtRestAndReadBackAfterReopen() throws {
        let folder = TemporaryStoreFolder()
        defer { folder.remove() }
        let group = makeGroup(3)
        let mine = try message("a photo", in: group.mlsGroupID)
        let blob = Data(repeating: 0xB1, count: 32)
        do {
            let store = try GRDBMarmotStore(path: folder.path, key: key)
            try store.saveGroup(group)
            try store.saveMessage(mine)
            try store.saveMediaSecrets([(epoch: 7, secret: secret(7))], mlsGroupID: group.mlsGroupID)
            try store.saveMessageMedia(mlsGroupID: group.mlsGroupID, rumorID: mine.rumorID, epoch: 7, upload: Data("upload-marker-c41".utf8))
            try store.saveMediaFile(Data("file-plaintext-marker-9d2".utf8), .attachment, blob: blob, mlsGroupID: group.mlsGroupID)
            try store.close()
        }
        let dump = try DatabaseDump(path: folder.path)
        for marker in ["media-secret-marker-7", "upload-marker-c41", "file-plaintext-marker-9d2"] {
            #expect(dump.locations(of: Data(marker.utf8)).isEmpty, "\(marker) in the clear")
        }
        #expect(dump.locations(of: blob).isEmpty, "the blob hash is only kept keyed")
        #expect(dump.cells.contains { $0.table == "media_files_v2" }, "control: the dump sees the table")

        let store = try GRDBMarmotStore(path: folder.path, key: key)
        #expect(try store.mediaSecrets(mlsGroupID: group.mlsGroupID, epoch: 7) == [secret(7)])
        #expect(try store.messageMediaEpoch(mlsGroupID: group.mlsGroupID, rumorID: mine.rumorID) == 7)
        #expect(try store.pendingUpload(mlsGroupID: group.mlsGroupID, rumorID: mine.rumorID) == Data("upload-marker-c41".utf8))
        #expect(try store.mediaFile(.attachment, blob: blob, mlsGroupID: group.mlsGroupID) == Data("file-plaintext-marker-9d2".utf8))
        #expect(try store.hasMediaFile(.attachment, blob: blob, mlsGroupID: group.mlsGroupID))
        #expect(try !store.hasMediaFile(.groupImage, blob: blob, mlsGroupID: group.mlsGroupID), "purposes are apart")
        try store.clearPendingUpload(mlsGroupID: group.mlsGroupID, rumorID: mine.rumorID)
        #expect(try store.pendingUpload(mlsGroupID: group.mlsGroupID, rumorID: mine.rumorID) == nil)
        #expect(try store.messageMediaEpoch(mlsGroupID: group.mlsGroupID, rumorID: mine.rumorID) == 7, "the epoch stays")
        #expect(try store.appliedMigrations().contains(MigrationV23Media.name))
    }

    /// A message's media goes with the message; secrets and files go with the group; media of a
    /// message that is not stored, or a file of a group without a row, is refused.
    @Test func rowsGoWithTheirMessageAndTheirGroup() throws {
        let store = try GRDBMarmotStore.inMemory(key: key)
        let group = makeGroup(4)
        try store.saveGroup(group)
        let (first, second) = (try message("one", in: group.mlsGroupID), try message("two", in: group.mlsGroupID))
        for mine in [first, second] {
            try store.saveMessage(mine)
            try store.saveMessageMedia(mlsGroupID: group.mlsGroupID, rumorID: mine.rumorID, epoch: 2, upload: Data([1]))
        }
        let blob = Data(repeating: 0xC2, count: 32)
        try store.saveMediaFile(Data([9]), .groupImage, blob: blob, mlsGroupID: group.mlsGroupID)
        try store.saveMediaSecrets([(epoch: 2, secret: secret(2))], mlsGroupID: group.mlsGroupID)

        try store.deleteMessage(mlsGroupID: group.mlsGroupID, rumorID: first.rumorID)
        #expect(try store.messageMediaEpoch(mlsGroupID: group.mlsGroupID, rumorID: first.rumorID) == nil)
        #expect(try store.messageMediaEpoch(mlsGroupID: group.mlsGroupID, rumorID: second.rumorID) == 2)

        try store.deleteGroup(mlsGroupID: group.mlsGroupID)
        try store.saveGroup(group)
        try store.saveMessage(second)
        #expect(try store.messageMediaEpoch(mlsGroupID: group.mlsGroupID, rumorID: second.rumorID) == nil, "gone with its group")
        #expect(try store.mediaFile(.groupImage, blob: blob, mlsGroupID: group.mlsGroupID) == nil)
        #expect(try store.mediaSecrets(mlsGroupID: group.mlsGroupID, epoch: 2).isEmpty)

        let stranger = try message("never stored", in: group.mlsGroupID)
        #expect(throws: StorageError.self) {
            try store.saveMessageMedia(mlsGroupID: group.mlsGroupID, rumorID: stranger.rumorID, epoch: 1, upload: nil)
        }
        #expect(throws: StorageError.self) {
            try store.saveMediaFile(Data([1]), .attachment, blob: blob, mlsGroupID: makeGroup(5).mlsGroupID)
        }
    }
}
