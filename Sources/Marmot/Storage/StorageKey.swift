import Crypto
import Foundation
import Nostr

/// The key that encrypts secret columns at rest: HKDF-SHA256 of the account's Nostr secret key with
/// info `marmot-storage-v1`, so the database file alone reveals no MLS state, private keys or message
/// text (SQLCipher is not usable on this platform; swift-platform-notes "SQLite").
///
/// Not `Codable`, redacted when printed.
public struct StorageKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The HKDF info label; changing it orphans every existing database.
    public static let info = "marmot-storage-v1"

    let key: SymmetricKey

    /// Derives the key from the account's Nostr identity.
    public init(deriving secretKey: SecretKey) {
        let ikm = Hex.decode(secretKey.hexEncodedSecret()) ?? []
        key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: ikm), salt: Data(), info: Data(Self.info.utf8), outputByteCount: 32)
    }

    /// Uses 32 raw bytes (for a key the platform keeps, e.g. in a keychain).
    public init(rawBytes: Data) throws(StorageError) {
        guard rawBytes.count == 32 else { throw .invalidKeyLength(rawBytes.count) }
        key = SymmetricKey(data: rawBytes)
    }

    public var description: String { "StorageKey(redacted)" }
    public var debugDescription: String { description }
}

/// Seals and opens secret column values: ChaCha20-Poly1305 with a random nonce, stored as
/// `0x01 ‖ nonce ‖ ciphertext ‖ tag`; the associated data names the table, column and row, so a
/// sealed value copied to another row or column does not open.
struct StorageCipher: Sendable {
    static let formatVersion: UInt8 = 1
    let key: StorageKey

    func seal(_ plaintext: Data, _ context: SealContext) throws(StorageError) -> Data {
        do {
            let box = try ChaChaPoly.seal(plaintext, using: key.key, authenticating: context.associatedData)
            var out = Data([Self.formatVersion])
            out.append(box.combined)
            return out
        } catch {
            throw .encryptionFailed
        }
    }

    func open(_ sealed: Data, _ context: SealContext) throws(StorageError) -> Data {
        guard sealed.first == Self.formatVersion else { throw .decryptionFailed(context.description) }
        do {
            let box = try ChaChaPoly.SealedBox(combined: sealed.dropFirst())
            return try ChaChaPoly.open(box, using: key.key, authenticating: context.associatedData)
                .withUnsafeBytes { Data($0) }
        } catch {
            throw .decryptionFailed(context.description)
        }
    }

    func sealString(_ text: String, _ context: SealContext) throws(StorageError) -> Data {
        try seal(Data(text.utf8), context)
    }

    func openString(_ sealed: Data, _ context: SealContext) throws(StorageError) -> String {
        let data = try open(sealed, context)
        guard let text = UTF8Text.decode(data) else { throw .corruptRow("\(context.description) is not UTF-8") }
        return text
    }
}

/// Where a sealed value lives: table, column and the row's key.
struct SealContext: CustomStringConvertible {
    let table: String
    let column: String
    let row: Data

    init(_ table: String, _ column: String, row: Data) {
        self.table = table
        self.column = column
        self.row = row
    }

    var associatedData: Data {
        var w = Data("\(StorageKey.info)/\(table)/\(column)/".utf8)
        w.append(row)
        return w
    }

    var description: String { "\(table).\(column)" }
}
