import Nostr
@testable import NostrClient
@testable import NostrRelay
import TestSupport

/// A bare WebSocket to a relay for tests that send arbitrary (also invalid) text and read raw replies.
final class RawSocket: Sendable {
    private let inbox = Inbox<String>()
    private let openSignal = Inbox<Bool>()
    private let transport: WebSocketTransport

    private init(url: String) {
        let inbox = self.inbox
        let openSignal = self.openSignal
        transport = WebSocketTransport(
            url: url, maxMessageSize: 1 << 25, logger: testLogger("raw-socket"),
            onOpen: { await openSignal.put(true) },
            onText: { await inbox.put($0) },
            onClose: { _ in await openSignal.put(false) })
    }

    /// Opens a socket to `url`, failing when it is not open within 5 s.
    static func connect(_ url: String) async throws -> RawSocket {
        let socket = RawSocket(url: url)
        guard await socket.openSignal.next(timeout: 20) == true else { throw RawSocketError.couldNotConnect(url) }
        return socket
    }

    func send(_ text: String) { transport.send(text) }

    /// The next text message, or nil after `timeout` seconds.
    func next(timeout: Double = 20) async -> String? { await inbox.next(timeout: timeout) }

    /// The next message parsed as a relay message (events not verified).
    func nextMessage(timeout: Double = 20) async -> RelayMessage? {
        guard let text = await next(timeout: timeout) else { return nil }
        return try? RelayMessage(json: text, verifyEvents: false)
    }

    /// Messages until EOSE for `sub` (exclusive), or nil on timeout.
    func collectUntilEOSE(_ sub: SubscriptionID, timeout: Double = 20) async -> [RelayMessage]? {
        var messages: [RelayMessage] = []
        while let message = await nextMessage(timeout: timeout) {
            if message == .eose(sub) { return messages }
            messages.append(message)
        }
        return nil
    }

    /// Waits until the connection is closed (true) or `timeout` passes (false).
    func waitClosed(timeout: Double = 20) async -> Bool {
        await openSignal.first(timeout: timeout) { $0 == false } != nil
    }

    func close() { transport.close(grace: .milliseconds(500)) }
}

enum RawSocketError: Error {
    case couldNotConnect(String)
}

/// Runs `body` against a fresh embedded relay, stopping it afterwards.
func withRelay<T: Sendable>(
    _ configuration: RelayConfiguration = RelayConfiguration(),
    _ body: @Sendable (RelayServer, String) async throws -> T
) async throws -> T {
    let server = RelayServer(configuration: configuration, logger: testLogger("relay"))
    let port = try await server.start()
    do {
        let result = try await body(server, "ws://127.0.0.1:\(port)")
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}
