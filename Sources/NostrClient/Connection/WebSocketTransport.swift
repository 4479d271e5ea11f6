import HummingbirdWSClient
import Logging

#if canImport(Network)
import Network
#endif

/// One WebSocket connection run by `WebSocketClient` (swift-websocket), reporting to a sink.
///
/// Messages to send go through an ordered queue; received text is handed to `onText` one message at
/// a time (awaited, so order is kept); `onOpen` and `onClose` bracket the connection. Foundation's
/// `URLSessionWebSocketTask` is not used: it lacks WebSocket support on Linux.
///
/// On Apple platforms the connection runs on Network.framework (NIOTransportServices), which brings
/// up cellular and VPN-on-demand on a phone and does TLS with the system trust store; BSD sockets
/// (NIOPosix) do neither there. Elsewhere it runs on NIOPosix with NIOSSL for `wss`.
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
                let close = try await Self.connect(url: url, configuration: configuration, logger: logger) { inbound, outbound, _ in
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

    /// Opens the WebSocket on the platform's transport and runs `handler` on it.
    ///
    /// With Network.framework, TLS options are always passed: `ws` URLs ignore them, `wss` URLs get
    /// Network.framework's TLS (system trust, SNI from the host). Passing none would make a `wss`
    /// connection plain TCP on that path, so `NWProtocolTLS.Options()` is the default here.
    private static func connect(
        url: String, configuration: WebSocketClientConfiguration, logger: Logger,
        handler: @escaping WebSocketDataHandler<WebSocketClient.Context>
    ) async throws -> WebSocketCloseFrame? {
        #if canImport(Network)
        return try await WebSocketClient.connect(
            url: url, configuration: configuration, transportServicesTLSOptions: .options(NWProtocolTLS.Options()),
            logger: logger, handler: handler)
        #else
        return try await WebSocketClient.connect(url: url, configuration: configuration, logger: logger, handler: handler)
        #endif
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
