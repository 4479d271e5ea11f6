import Foundation
import HummingbirdWSClient
import Logging
import Nostr

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
            var reason = "connection lost"
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
                if let close { reason = Self.describe(close) }
            } catch is CancellationError {
                reason = "cancelled"
            } catch {
                reason = await Self.reason(for: error, url: url)
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
        // System roots plus any CA the user added (`AddedTrust`); `ws` URLs ignore it.
        return try await WebSocketClient.connect(
            url: url, configuration: configuration, tlsConfiguration: AddedTrust.clientConfiguration(), logger: logger,
            handler: handler)
        #endif
    }

    /// A relay's close frame as people read it: "closed by the relay (going away: restarting)".
    static func describe(_ close: WebSocketCloseFrame) -> String {
        let code =
            switch close.closeCode {
            case .normalClosure: "normal closure"
            case .goingAway: "going away"
            case .policyViolation: "policy violation"
            case .messageTooLarge: "message too large"
            case .unexpectedServerError: "server error"
            default: "\(close.closeCode)"
            }
        let message = close.reason.map { Self.shortened($0) }.flatMap { $0.isEmpty ? nil : $0 }
        return "closed by the relay (\(code)\(message.map { ": \($0)" } ?? ""))"
    }

    /// A connection error as a short reason for a status line (issue 17): "connection refused",
    /// "TLS error: …", "WebSocket handshake refused", … rather than a transport library's dump.
    static func describe(_ error: any Error) -> String {
        if let error = error as? WebSocketClientError {
            return error == .webSocketUpgradeFailed ? "WebSocket handshake refused" : Self.shortened("\(error)")
        }
        let text = String(describing: error)
        let lower = text.lowercased()
        let type = String(reflecting: Swift.type(of: error)).lowercased()
        if lower.contains("connection refused") { return "connection refused" }
        if lower.contains("dns") || lower.contains("name or service not known") || lower.contains("nodename nor servname") {
            return "address not found (DNS)"
        }
        if type.contains("ssl") || type.contains("tls") || lower.contains("certificate") || lower.contains("tls") {
            return "TLS error: \(Self.shortened(text))"
        }
        if lower.contains("timed out") || lower.contains("timeout") { return "connection timed out" }
        if lower.contains("connection reset") { return "connection reset" }
        if lower.contains("unreachable") { return "network unreachable" }
        return Self.shortened(text)
    }

    /// `describe(error)`, except that a refused certificate says what is wrong with it (issue 44).
    static func reason(for error: any Error, url: String) async -> String {
        await TLSDiagnosis.reason(for: error, url: url) ?? describe(error)
    }

    /// At most 120 characters on one line, without control characters (relay text is untrusted).
    static func shortened(_ text: String) -> String {
        UntrustedText.line(text, limit: 120)
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
