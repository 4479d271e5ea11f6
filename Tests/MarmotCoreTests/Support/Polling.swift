import Foundation

/// Raised when a condition does not become true in time; the message names the condition.
struct WaitTimeout: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting for: \(what)" }
}

/// Polls `condition` every few milliseconds until it holds, failing after `timeout`.
///
/// Tests wait for outcomes this way instead of sleeping a fixed time, so pass/fail never depends on
/// speed; the timeout only bounds a hang.
func waitUntil(
    _ what: String, timeout: Duration = .seconds(60), _ condition: @Sendable () async throws -> Bool
) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while true {
        if try await condition() { return }
        if clock.now >= deadline { throw WaitTimeout(what: what) }
        try await Task.sleep(for: .milliseconds(5))
    }
}

/// A value guarded by a lock, for test doubles read from synchronous code.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    var current: Value {
        lock.lock()
        defer { lock.unlock() }
        return value
    }

    @discardableResult
    func update<R>(_ body: (inout Value) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
