import Foundation

/// A value guarded by a lock, for the few places read from arbitrary threads without awaiting.
///
/// `@unchecked Sendable` is sound because every access to `value` goes through `lock`.
final class LockedValue<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    /// Reads the value under the lock.
    func get() -> Value {
        lock.lock()
        defer { lock.unlock() }
        return value
    }

    /// Mutates the value under the lock and returns what `body` returns.
    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
