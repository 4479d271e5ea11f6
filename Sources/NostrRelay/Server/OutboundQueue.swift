import Logging

/// The ordered queue of text messages waiting to be written to one WebSocket connection.
///
/// Bounded so a reader that stops reading cannot make the relay buffer without end: on overflow the
/// queue finishes, and the connection's writer then closes the socket (the client reconnects and
/// resubscribes with `since`).
struct OutboundQueue: Sendable {
    let stream: AsyncStream<String>
    private let continuation: AsyncStream<String>.Continuation
    private let logger: Logger

    init(capacity: Int, logger: Logger) {
        (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingOldest(capacity))
        self.logger = logger
    }

    /// Queues `text`; returns false when the queue is closed or full (then it is closed).
    @discardableResult
    func send(_ text: String) -> Bool {
        switch continuation.yield(text) {
        case .enqueued: return true
        case .dropped:
            logger.warning("outbound queue full: closing slow connection")
            continuation.finish()
            return false
        case .terminated: return false
        @unknown default: return false
        }
    }

    /// Ends the queue; the writer drains what is queued, then stops.
    func finish() { continuation.finish() }
}
