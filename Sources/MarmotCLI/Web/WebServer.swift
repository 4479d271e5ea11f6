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

    /// Why `gate` refuses `request`, read from its Host, Origin and `token` query parameter; nil lets it in.
    static func refusal(of request: Request, by gate: WebGate, requireOrigin: Bool) -> String? {
        gate.refusal(
            host: request.head.authority, origin: request.headers[.origin],
            token: request.uri.queryParameters["token"].map(String.init), requireOrigin: requireOrigin)
    }

    /// Serves until the task is cancelled; calls `onBound` with the port once listening.
    func run(port: Int, onBound: @escaping @Sendable (Int) async -> Void) async throws {
        let gate = self.gate
        let bridge = self.bridge
        let logger = self.logger
        let router = Router()
        router.get("/") { request, _ -> Response in
            if let reason = Self.refusal(of: request, by: gate, requireOrigin: false) {
                logger.notice("web: page request refused", metadata: ["reason": "\(reason)"])
                return Self.text(.forbidden, "Forbidden: open the URL printed by `marmot web` (\(reason)).\n")
            }
            var headers = Self.securityHeaders(port: gate.port)
            headers[.contentType] = "text/html; charset=utf-8"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: WebPage.html)))
        }
        router.get("/attachment") { request, _ -> Response in
            if let reason = Self.refusal(of: request, by: gate, requireOrigin: false) {
                logger.notice("web: attachment request refused", metadata: ["reason": "\(reason)"])
                return Self.text(.forbidden, "Forbidden (\(reason)).\n")
            }
            return await Self.attachment(request.uri.queryParameters, bridge: bridge)
        }
        router.get("/chat-image") { request, _ -> Response in
            if let reason = Self.refusal(of: request, by: gate, requireOrigin: false) {
                logger.notice("web: chat image request refused", metadata: ["reason": "\(reason)"])
                return Self.text(.forbidden, "Forbidden (\(reason)).\n")
            }
            return await Self.chatImage(request.uri.queryParameters, bridge: bridge)
        }
        let wsRouter = Router(context: BasicWebSocketRequestContext.self)
        wsRouter.ws(
            "/ws",
            shouldUpgrade: { request, _ in
                if let reason = Self.refusal(of: request, by: gate, requireOrigin: true) {
                    logger.notice("web: WebSocket refused", metadata: ["reason": "\(reason)"])
                    return .dontUpgrade
                }
                return .upgrade([:])
            },
            onUpgrade: { inbound, outbound, _ in
                // A file the page sends travels as base64 in one action (12 MB of file at most).
                await bridge.serve(inbound: inbound.messages(maxSize: Self.maxInboundMessage), outbound: outbound)
            })
        let app = Application(
            router: router,
            server: .http1WebSocketUpgrade(
                webSocketRouter: wsRouter,
                configuration: .init(ws: .init(maxFrameSize: Self.maxInboundMessage, autoPing: .enabled(timePeriod: .seconds(30))))),
            configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: nil),
            onServerRunning: { channel in await onBound(channel.localAddress?.port ?? port) },
            logger: logger)
        try await app.runService(gracefulShutdownSignals: [])
    }

    /// The largest WebSocket message the page may send: a 12 MB file in base64, with room to spare.
    static let maxInboundMessage = 1 << 24

    /// Picture types a browser may draw inline from this server; anything else (SVG and HTML
    /// included: they could run script) is only ever offered as a download.
    static let inlineImageTypes: Set<String> = ["image/jpeg", "image/png", "image/gif", "image/webp"]

    /// `GET /attachment?chat=…&message=…&index=…[&download=1]`: the decrypted bytes of an
    /// attachment, through the core (which downloads and decrypts it when it is not here yet).
    static func attachment(_ query: Hummingbird.Parameters, bridge: WebBridge) async -> Response {
        guard let chat = query["chat"].map(String.init), let message = query["message"].map(String.init),
            let index = query["index"].flatMap({ Int(String($0)) }), index >= 0
        else { return text(.badRequest, "chat, message and index are required\n") }
        let chatID = ChatID(chat)
        let messageID = MessageID(message)
        let found = await MainActor.run { () -> ChatAttachment? in
            bridge.session.state.currentChat.flatMap { view in
                view.chatID == chatID ? view.messages.first { $0.id == messageID }?.attachments.first { $0.index == index } : nil
            }
        }
        guard let found else { return text(.notFound, "no such attachment in the open chat\n") }
        let data: Data
        do {
            data = try await bridge.session.attachmentData(chatID: chatID, messageID: messageID, index: index)
        } catch {
            return text(.badGateway, "cannot open the file: \(error.reason)\n")
        }
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        headers[HTTPFields.Element.Name("X-Content-Type-Options")!] = "nosniff"
        headers[.contentSecurityPolicy] = "default-src 'none'; sandbox"
        let inline = query["download"] == nil && inlineImageTypes.contains(found.mimeType)
        headers[.contentType] = inline ? found.mimeType : "application/octet-stream"
        let name = found.filename.unicodeScalars.filter { $0.isASCII && $0.value >= 0x20 && $0 != "\"" && $0 != "\\" }
        headers[.contentDisposition] = (inline ? "inline" : "attachment") + "; filename=\"\(String(String.UnicodeScalarView(name)))\""
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// `GET /chat-image?chat=…`: a chat's group picture, through the core (downloaded, checked and
    /// decrypted when not here yet); drawn inline only as one of the four picture types.
    static func chatImage(_ query: Hummingbird.Parameters, bridge: WebBridge) async -> Response {
        guard let chat = query["chat"].map(String.init) else { return text(.badRequest, "chat is required\n") }
        let chatID = ChatID(chat)
        let known = await MainActor.run { bridge.session.state.chatList.contains { $0.chatID == chatID && $0.image.isSet } }
        guard known else { return text(.notFound, "no such chat with a picture\n") }
        let data: Data
        do {
            data = try await bridge.session.chatImageData(chatID: chatID)
        } catch {
            return text(.badGateway, "cannot open the picture: \(error.reason)\n")
        }
        guard let type = ChatImageState.mediaType(of: data), inlineImageTypes.contains(type) else {
            return text(.unsupportedMediaType, "the picture is not PNG, JPEG, GIF or WebP\n")
        }
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        headers[HTTPFields.Element.Name("X-Content-Type-Options")!] = "nosniff"
        headers[.contentSecurityPolicy] = "default-src 'none'; sandbox"
        headers[.contentType] = type
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
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
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self'; "
            + "connect-src ws://127.0.0.1:\(port) ws://localhost:\(port); frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
        return headers
    }
}
