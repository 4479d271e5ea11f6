/// Failures of the Marmot store.
public enum StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A raw storage key that is not 32 bytes.
    case invalidKeyLength(Int)
    /// The database was created with another key (the key check value does not open).
    case wrongKey
    /// A sealed column did not authenticate (wrong key, tampering, or moved between rows).
    case decryptionFailed(String)
    /// Sealing failed (not expected in practice).
    case encryptionFailed
    /// A row holds a value this version cannot read.
    case corruptRow(String)
    /// A row refers to a group that is not stored.
    case unknownGroup(String)
    /// A group's stored state is not the newest one this store wrote (an older sealed state was
    /// copied back into its row, or its row lacks a version record): refused, so the MLS ratchet never
    /// moves backwards.
    case rollback(String)
    /// SQLite or GRDB reported an error (statement arguments are never included).
    case database(String)
    /// The store was closed; nothing more is read or written.
    case closed

    public var description: String {
        switch self {
        case .invalidKeyLength(let n): "storage: key must be 32 bytes, got \(n)"
        case .wrongKey: "storage: the database was created with another key"
        case .decryptionFailed(let what): "storage: \(what) does not decrypt"
        case .encryptionFailed: "storage: encryption failed"
        case .corruptRow(let why): "storage: corrupt row: \(why)"
        case .unknownGroup(let id): "storage: no group \(id)"
        case .rollback(let what): "storage: \(what) was rolled back to an older state; refusing to load it"
        case .database(let why): "storage: \(why)"
        case .closed: "storage: the store is closed"
        }
    }
}
