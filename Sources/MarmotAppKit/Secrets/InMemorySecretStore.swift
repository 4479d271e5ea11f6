import Foundation
import MarmotCore

/// A secret store that forgets everything when released, for tests and SwiftUI previews.
///
/// Holds the installation secret in a second slot, which `delete()` leaves alone.
///
/// `@unchecked Sendable` is sound because `secret` and `installationSecret` are only read and written
/// under `lock`.
public final class InMemorySecretStore: SecretStore, InstallationSecretStore, @unchecked Sendable, CustomStringConvertible,
    CustomDebugStringConvertible, CustomReflectable
{
    private let lock = NSLock()
    private var secret: String?
    private var installationSecret: InstallationSecret?

    public init(secret: String? = nil, installationSecret: InstallationSecret? = nil) {
        self.secret = secret
        self.installationSecret = installationSecret
    }

    public func loadInstallationSecret() throws(SecretStoreError) -> InstallationSecret? {
        lock.lock()
        defer { lock.unlock() }
        return installationSecret
    }

    public func saveInstallationSecret(_ secret: InstallationSecret) throws(SecretStoreError) {
        lock.lock()
        defer { lock.unlock() }
        installationSecret = secret
    }

    public func load() throws(SecretStoreError) -> String? {
        lock.lock()
        defer { lock.unlock() }
        return secret
    }

    public func save(_ secret: String) throws(SecretStoreError) {
        lock.lock()
        defer { lock.unlock() }
        self.secret = secret
    }

    public func delete() throws(SecretStoreError) {
        lock.lock()
        defer { lock.unlock() }
        secret = nil
    }

    public var description: String {
        let stored = (try? load()) != nil
        return "InMemorySecretStore(\(stored ? "secret: redacted" : "empty"))"
    }

    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["summary": description]) }
}
