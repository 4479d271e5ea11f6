import Foundation
import GRDB
import MLS
import Nostr
import Testing
@testable import Marmot

/// The `invitations_v2` table (migration `v22-invitations`): a pending invitation and the state we
/// had left as one row of the group, gone with it, and the old `client.invite.*` and
/// `client.former_state.*` settings moved on open.
@Suite struct StoreInvitationsTests: StoreFixture {
    let account = Keys.generate()
    let installation = InstallationSecret.generate()

    func makeGroup(_ byte: UInt8) -> StoredGroup { makeGroup(byte, status: .pending) }

    func record(_ byte: UInt8) -> InviteRecord {
        InviteRecord(inviter: Keys.generate().publicKey, wrapID: try! EventID(bytes: Data(repeating: byte, count: 32)), receivedAt: 1_800_000_000)
    }

    @Test func anInvitationAndItsFormerStateAreKeptSealedAcrossReopen() throws {
        let folder = TemporaryStoreFolder()
        defer { folder.remove() }
        let (first, back) = (makeGroup(1), makeGroup(2))
        let (invite, again) = (record(0xA1), record(0xB2))
        let former = Data("former-state-marker-51c9".utf8)
        do {
            let store = try GRDBMarmotStore(path: folder.path, key: key)
            for group in [first, back] { try store.saveGroup(group) }
            try store.saveInvitation(invite.encoded(), formerState: nil, mlsGroupID: first.mlsGroupID)
            try store.saveInvitation(again.encoded(), formerState: former, mlsGroupID: back.mlsGroupID)
            try store.close()
        }
        let dump = try DatabaseDump(path: folder.path)
        #expect(dump.cells.filter { $0.table == "invitations_v2" && $0.column == "sealed_record" }.count == 2, "control: two rows")
        #expect(dump.locations(of: former).isEmpty && dump.locations(of: Data(invite.inviter.bytes)).isEmpty)
        #expect(dump.locations(of: Data(again.wrapID.bytes)).isEmpty)

        let store = try GRDBMarmotStore(path: folder.path, key: key)
        #expect(try store.invitation(mlsGroupID: first.mlsGroupID).map(InviteRecord.init(encoded:)) == invite)
        #expect(try store.formerState(mlsGroupID: first.mlsGroupID) == nil)
        #expect(try store.invitation(mlsGroupID: back.mlsGroupID).map(InviteRecord.init(encoded:)) == again)
        #expect(try store.formerState(mlsGroupID: back.mlsGroupID) == former)
        try store.deleteInvitation(mlsGroupID: back.mlsGroupID)
        #expect(try store.invitation(mlsGroupID: back.mlsGroupID) == nil && store.formerState(mlsGroupID: back.mlsGroupID) == nil)
        #expect(try store.appliedMigrations().contains(MigrationV22Invitations.name))
    }

    @Test func theRowGoesWithItsGroupAndNeedsOne() throws {
        let store = try GRDBMarmotStore.inMemory(key: key)
        let group = makeGroup(3)
        try store.saveGroup(group)
        try store.saveInvitation(record(1).encoded(), formerState: Data([9]), mlsGroupID: group.mlsGroupID)
        try store.deleteGroup(mlsGroupID: group.mlsGroupID)
        try store.saveGroup(group)
        #expect(try store.invitation(mlsGroupID: group.mlsGroupID) == nil, "the row went with its group")
        #expect(throws: StorageError.self) {
            try store.saveInvitation(record(2).encoded(), formerState: nil, mlsGroupID: makeGroup(4).mlsGroupID)
        }
    }

    /// A home written before v22 (`client.invite.<group>` and `client.former_state.<group>`
    /// settings, as the old client wrote them) opens with each invitation a row of its group with
    /// its former state; one for a group without a row, and a former state without an invitation,
    /// are dropped; the old rows are deleted.
    @Test func oldSettingsRowsAreMovedOnOpen() throws {
        let folder = TemporaryStoreFolder()
        defer { folder.remove() }
        let (plain, back, gone) = (makeGroup(5), makeGroup(6), makeGroup(7))
        let (invite, again) = (record(0x11), record(0x22))
        let names = [
            GRDBMarmotStore.legacyInvitePrefix + plain.mlsGroupID.description,
            GRDBMarmotStore.legacyInvitePrefix + back.mlsGroupID.description,
            GRDBMarmotStore.legacyFormerStatePrefix + back.mlsGroupID.description,
            GRDBMarmotStore.legacyInvitePrefix + gone.mlsGroupID.description,
            GRDBMarmotStore.legacyFormerStatePrefix + plain.mlsGroupID.description + "x",
        ]
        do {
            let store = try GRDBMarmotStore(path: folder.path, key: key)
            for group in [plain, back] { try store.saveGroup(group) }
            try store.setSetting(names[0], invite.encoded())
            try store.setSetting(names[1], again.encoded())
            try store.setSetting(names[2], Data("left state".utf8))
            try store.setSetting(names[3], record(0x33).encoded())
            try store.setSetting(names[4], Data([1]))
            try store.setSetting("client.other", Data([7]))
            try store.close()
        }
        // Back to the schema of a v21 home: no invitations table, v22 not applied.
        let queue = try DatabaseQueue(path: folder.path)
        try queue.write { db in
            try db.execute(sql: "DROP TABLE invitations_v2")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = ?", arguments: [MigrationV22Invitations.name])
        }
        try queue.close()

        let store = try GRDBMarmotStore(path: folder.path, key: key)
        #expect(try store.invitation(mlsGroupID: plain.mlsGroupID).map(InviteRecord.init(encoded:)) == invite)
        #expect(try store.formerState(mlsGroupID: plain.mlsGroupID) == nil)
        #expect(try store.invitation(mlsGroupID: back.mlsGroupID).map(InviteRecord.init(encoded:)) == again)
        #expect(try store.formerState(mlsGroupID: back.mlsGroupID) == Data("left state".utf8))
        #expect(try store.invitation(mlsGroupID: gone.mlsGroupID) == nil)
        #expect(try store.presentSettings(names).isEmpty, "the old rows are deleted")
        #expect(try store.setting("client.other") == Data([7]), "other settings stay")
    }
}
