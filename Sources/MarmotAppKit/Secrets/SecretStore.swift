/// Where the platform keeps the account's nsec between launches (MVP spec, Key Storage; bible §6.6).
///
/// The core never persists the secret key: it hands a new one out once (`AppUpdate.accountCreated`)
/// and receives it back at launch (`AppAction.restoreSession`). Implementations never log the secret
/// and print as redacted.
public protocol SecretStore: Sendable {
    /// The stored secret, or nil when none is stored.
    func load() throws(SecretStoreError) -> String?
    /// Stores `secret`, replacing any previous one.
    func save(_ secret: String) throws(SecretStoreError)
    /// Removes the stored secret; succeeds when none is stored.
    func delete() throws(SecretStoreError)
}

/// Why a secret store failed. Carries locations and status codes, never the secret.
public enum SecretStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A Keychain call returned `status` (an `OSStatus`).
    case keychain(operation: String, status: Int32)
    /// A file operation on `path` failed with `errno`.
    case file(operation: String, path: String, errno: Int32)
    /// The file at `path` still has permissions other than owner read/write after fixing them.
    case insecurePermissions(path: String, mode: UInt32)
    /// The stored bytes are not UTF-8 text.
    case notText
    /// The stored installation secret is not 64 hex digits.
    case invalidInstallationSecret

    public var description: String {
        switch self {
        case .keychain(let operation, let status): "Keychain \(operation) failed (OSStatus \(status))"
        case .file(let operation, let path, let code): "\(operation) \(path) failed (errno \(code))"
        case .insecurePermissions(let path, let mode):
            "\(path) has mode \(String(mode, radix: 8)), expected 600"
        case .notText: "the stored secret is not UTF-8 text"
        case .invalidInstallationSecret: "the stored installation secret is not 32 bytes of hex"
        }
    }
}
