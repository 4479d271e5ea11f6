import Foundation

/// Thrown by `withTimeout` when the body does not finish in time.
public struct TestTimeoutError: Error, CustomStringConvertible {
    public let what: String
    public let seconds: Double
    public var description: String { "\(what) did not finish within \(seconds) s" }
}

/// Runs `body`, failing with `TestTimeoutError` after `seconds`, so no test can hang. A bound
/// catches a hang, not slowness: give it a minute, as a loaded machine can stall for tens of seconds.
public func withTimeout<T: Sendable>(
    _ seconds: Double, _ what: String = "operation", _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            throw TestTimeoutError(what: what, seconds: seconds)
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw TestTimeoutError(what: what, seconds: seconds) }
        return first
    }
}

/// A mailbox between a producer (callbacks, tasks) and a test that waits for items with a deadline.
public actor Inbox<Item: Sendable> {
    private var items: [Item] = []
    private var waiter: (id: Int, continuation: CheckedContinuation<Item?, Never>, timer: Task<Void, Never>)?
    private var nextID = 0

    public init() {}

    public func put(_ item: Item) {
        if let waiter {
            self.waiter = nil
            waiter.timer.cancel()
            waiter.continuation.resume(returning: item)
        } else {
            items.append(item)
        }
    }

    /// The next item, or nil when none arrives within `timeout` seconds.
    public func next(timeout: Double = 30) async -> Item? {
        if !items.isEmpty { return items.removeFirst() }
        nextID += 1
        let id = nextID
        return await withCheckedContinuation { continuation in
            let timer = Task { [weak self] in
                try? await Task.sleep(for: .seconds(timeout))
                guard !Task.isCancelled else { return }
                await self?.expire(id)
            }
            waiter = (id, continuation, timer)
        }
    }

    /// Waits for the first item satisfying `predicate`, discarding others; nil on timeout.
    public func first(timeout: Double = 30, where predicate: @Sendable (Item) -> Bool) async -> Item? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0, let item = await next(timeout: left) else { return nil }
            if predicate(item) { return item }
        }
    }

    /// Items received and not yet taken.
    public func drain() -> [Item] {
        defer { items.removeAll() }
        return items
    }

    private func expire(_ id: Int) {
        guard let waiter, waiter.id == id else { return }
        self.waiter = nil
        waiter.continuation.resume(returning: nil)
    }
}

/// Log level for library loggers in tests: `LOG_LEVEL` (trace…critical), else warning, so runs stay quiet.
public var testLogLevel: String {
    ProcessInfo.processInfo.environment["LOG_LEVEL"] ?? "warning"
}
