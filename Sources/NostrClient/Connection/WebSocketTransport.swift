import HummingbirdWSClient
import Logging

/// One WebSocket connection run by `WebSocketClient` (swift-websocket), reporting to a sink.
///
/// Messages to send go through an ordered queue; received text is handed to `onText` one message at
/// a time (awaited, so order is kept); `onOpen` and `onClose` bracket the connection. Foundation's
/// `URLSessionWebSocketTask` is not used: it lacks WebSocket support on Linux.
struct WebSocketTransport: Sendable {
    private let outgoing: AsyncStream<String>.Continuation
    private let task: Task<Void, Never>

    init(
        url: String, maxMessageSize: Int, logger: Logger,
        onOpen: @escaping @Sendable () async -> Void,
        onText: @escaping @Sendable (String) async -> Void,
        onClose: @escaping @Sendable (String) async -> Void
    ) {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        outgoing = continuation
        let configuration = WebSocketClientConfiguration(maxFrameSize: maxMessageSize, autoPing: .enabled(timePeriod: .seconds(30)))
        task = Task {
            var reason = "closed by relay"
            do {
                let close = try await WebSocketClient.connect(url: url, configuration: configuration, logger: logger) { inbound, outbound, _ in
                    await onOpen()
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for await text in stream {
                                try await outbound.write(.text(text))
                            }
                            // Finished by `close()`: end the connection from our side.
                            try? await outbound.close(.normalClosure, reason: nil)
                        }
                        for try await message in inbound.messages(maxSize: maxMessageSize) {
                            if case .text(let text) = message { await onText(text) }
                        }
                        group.cancelAll()
                    }
                }
                if let close { reason = "closed (\(close.closeCode))" }
            } catch is CancellationError {
                reason = "cancelled"
            } catch {
                reason = "\(error)"
            }
            continuation.finish()
            await onClose(reason)
        }
    }

    /// Queues a text message.
    func send(_ text: String) { outgoing.yield(text) }

    /// Closes the connection: a close frame when open; an attempt still connecting, or a peer that
    /// does not answer the close frame, is cut after `grace`.
    func close(grace: Duration = .seconds(2)) {
        outgoing.finish()
        let task = self.task
        Task {
            try? await Task.sleep(for: grace)
            task.cancel()
        }
    }

}
