import Foundation
import GRDB

/// The checks a row of a group or of a message makes before it is written: per-group tables
/// `REFERENCES` their parent, and a clear `StorageError` says which record had none.
extension GRDBMarmotStore {
    /// Throws `.unknownGroup(what)` unless group `groupRef` has a row.
    static func requireGroup(_ groupRef: Data, _ db: Database, _ what: String) throws {
        guard try groupExists(groupRef, db) else { throw StorageError.unknownGroup(what) }
    }

    /// Whether group `groupRef` has a row.
    static func groupExists(_ groupRef: Data, _ db: Database) throws -> Bool {
        try GroupRow.filter(key: groupRef).fetchCount(db) > 0
    }

    /// Whether message `messageRef` of group `groupRef` has a row.
    static func messageExists(_ groupRef: Data, _ messageRef: Data, _ db: Database) throws -> Bool {
        try Row.fetchOne(
            db.cachedStatement(sql: "SELECT 1 FROM messages_v2 WHERE group_ref = ? AND message_ref = ?"),
            arguments: [groupRef, messageRef]) != nil
    }
}
