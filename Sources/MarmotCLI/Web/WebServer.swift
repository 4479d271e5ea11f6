import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import MarmotContract
import MarmotCore

/// The HTTP side of `marmot web`: one page (`GET /?token=…`) and one WebSocket (`/ws?token=…`), on
/// 127.0.0.1 only, both behind `WebGate`.
///
/// The WebSocket carries the JSON contract (docs/ffi-contract.md): the server sends
/// `{"kind":"state","state":…}` first and on each `resync`, then `{"kind":"update","update":…}` in rev
/// order (accountCreated with its nsec removed); the page sends `{"kind":"action","action":…}`,
/// `{"kind":"resync"}` and `{"kind":"exportNsec","confirm":true}`.
final class WebServer: Sendable {
    let gate: WebGate
    let bridge: WebBridge
    let logger: Logger

    init(gate: WebGate, bridge: WebBridge, logger: Logger) {
        self.gate = gate
        self.bridge = bridge
        self.logger = logger
    }

    /// Serves until the task is cancelled; calls `onBound` with the port once listening.
    func run(port: Int, onBound: @escaping @Sendable (Int) async -> Void) async throws {
        let gate = self.gate
        let bridge = self.bridge
        let logger = self.logger
        let router = Router()
        router.get("/") { request, _ -> Response in
            if let reason = gate.refusal(
                host: request.head.authority, origin: request.headers[.origin],
                token: request.uri.queryParameters["token"].map(String.init), requireOrigin: false)
            {
                logger.notice("web: page request refused", metadata: ["reason": "\(reason)"])
                return Self.text(.forbidden, "Forbidden: open the URL printed by `marmot web` (\(reason)).\n")
            }
            var headers = Self.securityHeaders(port: gate.port)
            headers[.contentType] = "text/html; charset=utf-8"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: WebPage.html)))
        }
        let wsRouter = Router(context: BasicWebSocketRequestContext.self)
        wsRouter.ws(
            "/ws",
            shouldUpgrade: { request, _ in
                if let reason = gate.refusal(
                    host: request.head.authority, origin: request.headers[.origin],
                    token: request.uri.queryParameters["token"].map(String.init), requireOrigin: true)
                {
                    logger.notice("web: WebSocket refused", metadata: ["reason": "\(reason)"])
                    return .dontUpgrade
                }
                return .upgrade([:])
            },
            onUpgrade: { inbound, outbound, _ in
                await bridge.serve(inbound: inbound.messages(maxSize: 1 << 20), outbound: outbound)
            })
        let app = Application(
            router: router,
            server: .http1WebSocketUpgrade(
                webSocketRouter: wsRouter,
                configuration: .init(ws: .init(maxFrameSize: 1 << 22, autoPing: .enabled(timePeriod: .seconds(30))))),
            configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: nil),
            onServerRunning: { channel in await onBound(channel.localAddress?.port ?? port) },
            logger: logger)
        try await app.runService(gracefulShutdownSignals: [])
    }

    static func text(_ status: HTTPResponse.Status, _ body: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    /// No framing, no referrer (the URL holds the token), no caching, and a CSP that lets the inline
    /// page talk only to its own WebSocket.
    static func securityHeaders(port: Int) -> HTTPFields {
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        headers[HTTPFields.Element.Name("Referrer-Policy")!] = "no-referrer"
        headers[HTTPFields.Element.Name("X-Frame-Options")!] = "DENY"
        headers[HTTPFields.Element.Name("X-Content-Type-Options")!] = "nosniff"
        headers[.contentSecurityPolicy] =
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
            + "connect-src ws://127.0.0.1:\(port) ws://localhost:\(port); frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
        return headers
    }
}
