import Crypto
import Foundation
import Nostr

/// The key that encrypts secret columns at rest and keys the lookup hashes: HKDF-SHA256 of the
/// account's Nostr secret key, salted with this installation's random `InstallationSecret`, info
/// `marmot-storage-v2`. The database file alone reveals no MLS state, private keys, message text or
/// social graph, and another app that holds the same nsec but not the installation secret cannot
/// derive it (SQLCipher is not usable on this platform; swift-platform-notes "SQLite").
///
/// Not `Codable`, redacted when printed.
public struct StorageKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The HKDF info label of the current key; changing it orphans every existing database.
    public static let info = "marmot-storage-v2"
    /// The HKDF info label of the nsec-only key of databases written before installation secrets.
    public static let legacyInfo = "marmot-storage-v1"

    let key: SymmetricKey

    /// Derives the key from the account's Nostr identity and this installation's secret.
    public init(deriving secretKey: SecretKey, installationSecret: InstallationSecret) {
        key = Self.derive(secretKey, salt: installationSecret.bytes, info: Self.info)
    }

    /// The nsec-only key (info `marmot-storage-v1`, no salt) of databases written before installation
    /// secrets existed. Only for `GRDBMarmotStore`'s `legacyKey:`, which rekeys such a database to
    /// the current key the first time it is opened.
    public static func legacy(deriving secretKey: SecretKey) -> StorageKey {
        StorageKey(key: derive(secretKey, salt: Data(), info: legacyInfo))
    }

    /// The nsec-only legacy key; any app holding the nsec can derive it.
    @available(*, deprecated, renamed: "legacy(deriving:)", message: "pass an InstallationSecret: init(deriving:installationSecret:)")
    public init(deriving secretKey: SecretKey) {
        key = Self.derive(secretKey, salt: Data(), info: Self.legacyInfo)
    }

    /// Uses 32 raw bytes (for a key the platform keeps, e.g. in a keychain).
    public init(rawBytes: Data) throws(StorageError) {
        guard rawBytes.count == 32 else { throw .invalidKeyLength(rawBytes.count) }
        key = SymmetricKey(data: rawBytes)
    }

    private init(key: SymmetricKey) { self.key = key }

    private static func derive(_ secretKey: SecretKey, salt: Data, info: String) -> SymmetricKey {
        let ikm = Hex.decode(secretKey.hexEncodedSecret()) ?? []
        return HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: ikm), salt: salt, info: Data(info.utf8), outputByteCount: 32)
    }

    /// The HMAC key of the lookup columns, separate from the sealing key.
    var lookupKey: LookupKey {
        LookupKey(key: HKDF<SHA256>.deriveKey(
            inputKeyMaterial: key, salt: Data(), info: Data("marmot-storage-lookup-v2".utf8), outputByteCount: 32))
    }

    public var description: String { "StorageKey(redacted)" }
    public var debugDescription: String { description }
}

/// A random 32-byte secret made once per installation and kept by the platform beside the nsec
/// (Keychain item, or a 0600 file), which salts the `StorageKey`: the database cannot be opened by
/// someone who has the nsec but not this device's secret store. Kept across logouts so re-importing
/// the same nsec on this device reopens its data.
///
/// Not `Codable`, redacted when printed; `hexEncodedForStorage()` is the one way out, for the
/// platform's secret store.
public struct InstallationSecret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    public static let byteCount = 32
    let bytes: Data

    /// A fresh secret from the system's random generator.
    public static func generate() -> InstallationSecret {
        InstallationSecret(bytes: SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) })
    }

    /// Parses the 64 lowercase hex digits written by `hexEncodedForStorage()` (surrounding
    /// whitespace ignored); nil for anything else.
    public init?(hex: String) {
        guard let bytes = Hex.decode(hex.trimmingCharacters(in: .whitespacesAndNewlines)),
            bytes.count == Self.byteCount
        else { return nil }
        self.bytes = Data(bytes)
    }

    /// Uses 32 raw bytes; nil for another length.
    public init?(rawBytes: Data) {
        guard rawBytes.count == Self.byteCount else { return nil }
        self.bytes = rawBytes
    }

    private init(bytes: Data) { self.bytes = bytes }

    /// The secret as hex, for the platform's secret store only.
    public func hexEncodedForStorage() -> String { Hex.encode(bytes) }

    public var description: String { "InstallationSecret(redacted)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: []) }
}

/// Keys the lookup columns: HMAC-SHA256 over a domain label and the value, so a column that must be
/// searched (a group id, a rumor id, an event id) holds a value that cannot be reversed or
/// brute-forced from public data (e.g. a NIP-01 rumor id from guessed message text) without the key.
struct LookupKey: @unchecked Sendable {
    let key: SymmetricKey
    /// An HMAC per domain that has already taken the key and the domain's label: each lookup hash
    /// only adds its value (issue 27: keying the HMAC and building the label again for every
    /// lookup was 4% of a cold start). Read-only after `init`, hence the unchecked `Sendable`.
    private let started: [Domain: HMAC<SHA256>]

    /// The domains of lookup hashes; each kind of value gets its own, so equal bytes in two roles
    /// do not produce equal hashes.
    enum Domain: String, CaseIterable {
        case group, nostrGroup = "nostr-group", message, keyPackage = "key-package", processedEvent = "processed-event"
        case setting
        /// The version record of a group's secret trees (`GroupVersions`), apart from the row's.
        case groupRatchets = "group-ratchets"
        /// The version records of a group engine's rows (`GroupVersions`): its rest, and each
        /// state's blob, secret trees and witnesses.
        case engine, engineState = "engine-state", engineRatchets = "engine-ratchets", engineWitnesses = "engine-witnesses"
        /// The lookup hash of a digest a group engine saw or showed.
        case engineDigest = "engine-digest"
        /// The lookup hash of a person this account blocked (migration `v10-chat-preferences`).
        case blockedPerson = "blocked-person"
        /// The lookup hash of a person whose cached profile is kept (migration `v12-profiles`).
        case profile
        /// The lookup hash of a kept media secret, and of a media file's blob, within their group
        /// (migration `v23-media`).
        case mediaSecret = "media-secret", mediaBlob = "media-blob"
    }

    init(key: SymmetricKey) {
        self.key = key
        var started: [Domain: HMAC<SHA256>] = [:]
        for domain in Domain.allCases {
            var mac = HMAC<SHA256>(key: key)
            mac.update(data: Data("marmot-storage-v2/\(domain.rawValue)".utf8))
            mac.update(data: [0])
            started[domain] = mac
        }
        self.started = started
    }

    func hash<D: DataProtocol>(_ domain: Domain, _ value: D) -> Data {
        var mac = started[domain] ?? HMAC<SHA256>(key: key)
        mac.update(data: value)
        return Data(mac.finalize())
    }

    /// A message's lookup hash, scoped to its group.
    func message(groupID: Data, rumorID: Data) -> Data {
        var value = Data()
        value.append(UInt8(groupID.count))
        value.append(groupID)
        value.append(rumorID)
        return hash(.message, value)
    }
}

/// Seals and opens secret column values: ChaCha20-Poly1305 with a random nonce, stored as
/// `0x01 ‖ nonce ‖ ciphertext ‖ tag`; the associated data names the layout, table, column and row
/// (and, for group state, its version), so a sealed value copied to another row, column or version
/// does not open.
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

/// Where a sealed value lives: layout label, table, column and the row's key.
struct SealContext: CustomStringConvertible {
    /// The associated-data prefix of the first layout (tables of migration `v1-initial`).
    static let v1Label = "marmot-storage-v1"
    /// The associated-data prefix of the keyed-lookup layout (tables of migration `v2-keyed-lookups`).
    static let v2Label = "marmot-storage-v2"

    let label: String
    let table: String
    let column: String
    let row: Data

    /// A context of the current layout.
    init(_ table: String, _ column: String, row: Data) {
        self.init(label: Self.v2Label, table, column, row: row)
    }

    init(label: String, _ table: String, _ column: String, row: Data) {
        self.label = label
        self.table = table
        self.column = column
        self.row = row
    }

    /// A context of the first layout, to read rows written before `v2-keyed-lookups`.
    static func v1(_ table: String, _ column: String, row: Data) -> SealContext {
        SealContext(label: v1Label, table, column, row: row)
    }

    var associatedData: Data {
        var w = Data("\(label)/\(table)/\(column)/".utf8)
        w.append(row)
        return w
    }

    var description: String { "\(table).\(column)" }
}
