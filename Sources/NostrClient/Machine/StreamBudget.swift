import Foundation

/// How much of a stream its consumer has not taken yet, and a wait for room: back-pressure for the
/// relay and pool subscription streams.
///
/// Why: those streams buffered without bound, so a relay sending faster than the client handles
/// events (each kind-445 is decrypted and run through MLS) grew memory with every event (surface
/// review 2026-12-01, N2). Dropping events would lose our own data; instead the producer waits
/// (`waitForRoom`) once the buffer is over `Limits`, the WebSocket is then not read, and TCP flow
/// control slows the relay down. The producer always adds what it has (one message over the
/// bound at most), so nothing is lost and nobody blocks while holding an actor.
public final class StreamBudget: @unchecked Sendable {
    /// The bound: bytes of event content plus a fixed cost per message, and messages.
    public struct Limits: Sendable, Equatable {
        public var bytes: Int
        public var count: Int

        public init(bytes: Int, count: Int) {
            self.bytes = bytes
            self.count = count
        }
    }

    /// What one message is counted as beyond its content (its tags, id, signature and framing).
    static let messageOverhead = 256

    public let limits: Limits
    private let lock = NSLock()
    private var bytes = 0
    private var count = 0
    private var closed = false
    private var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    private var nextWaiter = 0

    public init(limits: Limits) {
        self.limits = limits
    }

    /// Bytes and messages given to the stream and not yet taken.
    public var held: (bytes: Int, count: Int) { lock.withLock { (bytes, count) } }

    /// Whether the producer should wait before it adds more.
    public var isFull: Bool { lock.withLock { !closed && (bytes >= limits.bytes || count >= limits.count) } }

    /// The producer yielded a message of `size` bytes.
    func added(_ size: Int) {
        lock.withLock {
            bytes += size
            count += 1
        }
    }

    /// The consumer took a message of `size` bytes: a waiting producer goes on once there is room.
    func taken(_ size: Int) {
        let ready: [CheckedContinuation<Void, Never>] = lock.withLock {
            bytes = max(0, bytes - size)
            count = max(0, count - 1)
            return roomLocked ? takeWaitersLocked() : []
        }
        for waiter in ready { waiter.resume() }
    }

    /// The stream ended (its consumer left): nothing waits for room any more.
    func close() {
        let ready: [CheckedContinuation<Void, Never>] = lock.withLock {
            closed = true
            return takeWaitersLocked()
        }
        for waiter in ready { waiter.resume() }
    }

    /// Returns once the buffer is under its limits, the stream ended, or the task is cancelled.
    func waitForRoom() async {
        let key: Int = lock.withLock {
            nextWaiter += 1
            return nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow: Bool = lock.withLock {
                    if roomLocked || Task.isCancelled { return true }
                    waiters[key] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = lock.withLock { waiters.removeValue(forKey: key) }
            waiter?.resume()
        }
    }

    private var roomLocked: Bool { closed || (bytes < limits.bytes && count < limits.count) }

    private func takeWaitersLocked() -> [CheckedContinuation<Void, Never>] {
        defer { waiters = [:] }
        return Array(waiters.values)
    }

    /// The size a subscription message is counted as.
    static func size(of message: SubscriptionMessage) -> Int {
        if case .event(let event) = message { return event.content.utf8.count + messageOverhead }
        return messageOverhead
    }

    static func size(of message: PoolSubscriptionMessage) -> Int {
        if case .event(let event, _) = message { return event.content.utf8.count + messageOverhead }
        return messageOverhead
    }
}
