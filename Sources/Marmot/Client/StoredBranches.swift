import Foundation
import MLS
import Nostr

/// A group's open forks as kept in the store's sealed settings: the other branches
/// (`AlternateBranch`, each with its MLS state, secret) and the witnesses of the branch we are on.
///
/// Branch selection weighs every branch within the rewind horizon by its depth and its witnesses
/// (MDK 0.9.14 `select_canonical_branch`, issue 24), so a restart must not forget them: a message that
/// opens only on another branch would otherwise wait until our own history reached it.
struct StoredBranches: Sendable {
    /// 2 adds each alternate's path (its states after the fork below its tip); 1 is still read.
    static let version: UInt8 = 2

    var alternates: [AlternateBranch]
    var witnesses: [UInt64: Set<Data>]

    func encoded() -> Data {
        var w = TLSWriter(capacity: 4096)
        w.write(Self.version)
        Self.write(witnesses, to: &w)
        w.write(UInt8(clamping: alternates.count))
        for branch in alternates.prefix(Int(UInt8.max)) {
            w.write(branch.forkEpoch)
            w.writeOpaque(branch.snapshot.encoded())
            w.writeOpaque(branch.mls.serialized())
            Self.write(branch.sentSinceFork, to: &w)
            Self.write(branch.receivedSinceFork, to: &w)
            Self.write(branch.witnesses, to: &w)
            w.write(UInt8(clamping: branch.path.count))
            for step in branch.path.prefix(Int(UInt8.max)) { w.writeOpaque(step.encoded()) }
        }
        return w.data
    }

    init(alternates: [AlternateBranch], witnesses: [UInt64: Set<Data>]) {
        self.alternates = alternates
        self.witnesses = witnesses
    }

    init(encoded data: Data) throws {
        var r = TLSReader(data)
        let version = try r.readUInt8()
        guard version == 1 || version == Self.version else { throw StorageError.corruptRow("stored branches version") }
        witnesses = try Self.readWitnesses(&r)
        let count = try r.readUInt8()
        alternates = try (0..<count).map { _ in
            let forkEpoch = try r.readUInt64()
            let snapshot = try EpochSnapshot(encoded: try r.readOpaque())
            let mls = try MLSGroup(serialized: try r.readOpaque())
            var branch = AlternateBranch(forkEpoch: forkEpoch, snapshot: snapshot, mls: mls)
            branch.sentSinceFork = try Self.readIDs(&r)
            branch.receivedSinceFork = try Self.readIDs(&r)
            branch.witnesses = try Self.readWitnesses(&r)
            if version >= 2 {
                branch.path = try (0..<(try r.readUInt8())).map { _ in try EpochSnapshot(encoded: try r.readOpaque()) }
            }
            return branch
        }
        try r.finish()
    }

    private static func write(_ ids: [EventID], to w: inout TLSWriter) {
        w.write(UInt32(clamping: ids.count))
        for id in ids { w.writeFixed(id.bytes) }
    }

    private static func readIDs(_ r: inout TLSReader) throws -> [EventID] {
        let count = try r.readUInt32()
        guard count <= 100_000 else { throw StorageError.corruptRow("stored branches message count") }
        return try (0..<count).map { _ in try EventID(bytes: try r.readFixed(32)) }
    }

    /// Epochs in order, each with its senders' keys in order, so equal records encode equally.
    private static func write(_ witnesses: [UInt64: Set<Data>], to w: inout TLSWriter) {
        w.write(UInt32(clamping: witnesses.count))
        for epoch in witnesses.keys.sorted() {
            let senders = witnesses[epoch, default: []].sorted { $0.lexicographicallyPrecedes($1) }
            w.write(epoch)
            w.write(UInt32(clamping: senders.count))
            for sender in senders { w.writeOpaque(sender) }
        }
    }

    private static func readWitnesses(_ r: inout TLSReader) throws -> [UInt64: Set<Data>] {
        let epochs = try r.readUInt32()
        guard epochs <= 1_000 else { throw StorageError.corruptRow("stored branches witness epochs") }
        var witnesses: [UInt64: Set<Data>] = [:]
        for _ in 0..<epochs {
            let epoch = try r.readUInt64()
            let count = try r.readUInt32()
            guard count <= 100_000 else { throw StorageError.corruptRow("stored branches witnesses") }
            witnesses[epoch] = Set(try (0..<count).map { _ in try r.readOpaque() })
        }
        return witnesses
    }
}

extension MarmotClient {
    /// Writes group `id`'s open forks to the store (sealed), or removes the record when none is
    /// open; called after every change to them, which happens only while a fork is open.
    func saveBranches(_ id: GroupID) {
        do {
            try store.setSetting(ClientSettings.branches(id), branchBooks[id]?.record)
        } catch {
            logger.warning("cannot store the open forks of \(id): \(error)")
        }
    }

    /// Group `id`'s open forks as the last run left them; a record that does not read is dropped
    /// with a log line (the group then goes on from its own branch, as before forks were stored).
    func loadBranches(_ id: GroupID) {
        guard let data = (try? store.setting(ClientSettings.branches(id))).flatMap({ $0 }) else { return }
        do {
            try branchBooks[id, default: BranchBook()].restore(data)
        } catch {
            logger.warning("the stored open forks of \(id) do not read: \(error); going on from our branch")
        }
    }
}
