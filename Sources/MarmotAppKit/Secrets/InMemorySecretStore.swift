import Foundation

/// A secret store that forgets everything when released, for tests and SwiftUI previews.
///
/// `@unchecked Sendable` is sound because `secret` is only read and written under `lock`.
public final class InMemorySecretStore: SecretStore, @unchecked Sendable, CustomStringConvertible,
    CustomDebugStringConvertible, CustomReflectable
{
    private let lock = NSLock()
    private var secret: String?

    public init(secret: String? = nil) { self.secret = secret }

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
