import Foundation
import GRDB
import MLS
import Nostr

/// The data move of migration `v23-media`: the media settings older versions kept, into rows.
extension GRDBMarmotStore {
    /// The name prefixes of the settings rows older versions kept media records in.
    enum LegacyMedia {
        static let secret = "client.media_secret."
        static let epoch = "client.media_epoch."
        static let upload = "client.media_upload."
        static let file = "client.media."
        static let groupImage = "client.group_image."
    }

    /// Moves `client.media_secret.<group>.<epoch>`, `client.media_epoch.<group>.<rumor>`,
    /// `client.media_upload.<group>.<rumor>`, `client.media.<group>.<blob>` and
    /// `client.group_image.<group>.<blob>` settings into the v23 tables, once (the migration's
    /// `store_meta` marker), then deletes them. What names a group or message no longer stored,
    /// or does not parse, is dropped.
    func moveLegacyMedia() throws {
        let marker = MigrationV23Media.pendingMove
        guard try read({ db in try StoreMetaRow.fetchOne(db, key: marker) }) != nil else { return }
        let codec = self.codec
        var refs: [Data] = []
        var secrets: [GroupID: [(epoch: UInt64, secret: Data)]] = [:]
        var epochs: [GroupID: [EventID: UInt64]] = [:]
        var uploads: [GroupID: [EventID: Data]] = [:]
        var files: [(GroupID, MediaFilePurpose, Data, Data)] = []
        try read { db in
            for row in try SettingRow.fetchAll(db) {
                let record = try codec.setting(row)
                // Longest prefixes first: `client.media.` is a prefix of none of the others.
                let prefixes = [LegacyMedia.secret, LegacyMedia.epoch, LegacyMedia.upload, LegacyMedia.file, LegacyMedia.groupImage]
                guard let prefix = prefixes.first(where: { record.name.hasPrefix($0) }) else { continue }
                refs.append(row.keyRef)
                let parts = record.name.dropFirst(prefix.count).split(separator: ".", omittingEmptySubsequences: false).map(String.init)
                guard parts.count == 2, let groupBytes = Hex.decode(parts[0]), !groupBytes.isEmpty else { continue }
                let group = GroupID(Data(groupBytes))
                switch prefix {
                case LegacyMedia.secret:
                    if let epoch = UInt64(parts[1]) { secrets[group, default: []].append((epoch, record.value)) }
                case LegacyMedia.epoch:
                    if let rumor = try? EventID(hex: parts[1]), let epoch = UInt64(String(decoding: record.value, as: UTF8.self)) {
                        epochs[group, default: [:]][rumor] = epoch
                    }
                case LegacyMedia.upload:
                    if let rumor = try? EventID(hex: parts[1]) { uploads[group, default: [:]][rumor] = record.value }
                default:
                    if let blob = Hex.decode(parts[1]), blob.count == 32 {
                        files.append((group, prefix == LegacyMedia.file ? .attachment : .groupImage, Data(blob), record.value))
                    }
                }
            }
        }
        let groups = Set(try groups().map(\.mlsGroupID))
        for (group, list) in secrets where groups.contains(group) { try saveMediaSecrets(list, mlsGroupID: group) }
        for group in Set(epochs.keys).union(uploads.keys) where groups.contains(group) {
            for rumor in Set(epochs[group, default: [:]].keys).union(uploads[group, default: [:]].keys)
            where try message(mlsGroupID: group, rumorID: rumor) != nil {
                try saveMessageMedia(mlsGroupID: group, rumorID: rumor, epoch: epochs[group]?[rumor] ?? 0, upload: uploads[group]?[rumor])
            }
        }
        for (group, purpose, blob, content) in files where groups.contains(group) {
            try saveMediaFile(content, purpose, blob: blob, mlsGroupID: group)
        }
        try write { db in
            for ref in refs { _ = try SettingRow.deleteOne(db, key: ref) }
            _ = try StoreMetaRow.deleteOne(db, key: marker)
        }
    }
}
