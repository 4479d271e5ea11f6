import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import ServiceLifecycle

/// Errors from starting the relay.
public enum RelayServerError: Error, Sendable, CustomStringConvertible {
    case alreadyRunning
    case couldNotBind(String)

    public var description: String {
        switch self {
        case .alreadyRunning: "the relay is already running"
        case .couldNotBind(let why): "the relay could not start: \(why)"
        }
    }
}

/// An embedded Nostr relay (NIP-01 over WebSocket, NIP-11 info document) on one host and port.
///
/// `start()` binds and returns the port (useful with port 0), `stop()` closes every connection and
/// the database, and a stopped server can be started again (same port and file: events persist when
/// storage is a file).
public actor RelayServer {
    public nonisolated let configuration: RelayConfiguration
    private let logger: Logger

    private struct Running {
        let group: ServiceGroup
        let task: Task<Void, Never>
        let store: EventStore
        let hub: RelayHub
        let blobs: BlobStore?
        let port: Int
    }

    private var running: Running?
    private var pendingBind: CheckedContinuation<Int, any Error>?
    private var stopWaiters: [CheckedContinuation<Void, Never>] = []
    /// Told the bound port once (routes that need it before `start()` returns).
    private var bindObservers: [@Sendable (Int) -> Void] = []

    public init(configuration: RelayConfiguration = RelayConfiguration(), logger: Logger = Logger(label: "NostrRelay")) {
        self.configuration = configuration
        self.logger = logger
    }

    /// The bound port while running.
    public var port: Int? { running?.port }

    /// `ws://host:port` while running.
    public var url: String? {
        guard let port = running?.port else { return nil }
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return "ws://\(host):\(port)"
    }

    /// `http://host:port`, the embedded Blossom server's base URL, while running with Blossom on.
    public var blossomURL: String? {
        guard configuration.blossom != nil, let url else { return nil }
        return "http" + url.dropFirst(2)
    }

    /// Opens the database, binds, and returns the bound port once connections are accepted.
    @discardableResult
    public func start() async throws -> Int {
        guard running == nil, pendingBind == nil else { throw RelayServerError.alreadyRunning }
        let store = try EventStore(storage: configuration.storage, maxStoredBytes: configuration.maxStoredBytes)
        let blobs: BlobStore?
        do {
            blobs = try configuration.blossom.map { try Self.openBlobStore($0, storage: configuration.storage, logger: logger) }
        } catch {
            try? store.close()
            throw error
        }
        let access = RelayAccessPolicy(configuration.auth)
        let hub = RelayHub(logger: logger, access: access)
        var engine = RelayEngine(
            store: store, hub: hub, limits: configuration.limits, logger: logger, faults: configuration.faults)
        engine.globalRate = configuration.globalEventRate.map { TokenBucket($0) }
        engine.access = access
        let boundPort = BoundPort()
        engine.relayAddresses = { [configuration] in Self.authAddresses(configuration, port: boundPort.value) }
        bindObservers.append { boundPort.value = $0 }
        let admission = RelayAdmission(
            allowedOrigins: configuration.allowedOrigins, maxConnections: configuration.maxConnections)
        let app = makeApplication(engine: engine, admission: admission, blobs: blobs)
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        let task = Task { [weak self] in
            var failure: (any Error)?
            do { try await group.run() } catch { failure = error }
            await self?.serverEnded(failure)
        }
        do {
            let port = try await withCheckedThrowingContinuation { pendingBind = $0 }
            running = Running(group: group, task: task, store: store, hub: hub, blobs: blobs, port: port)
            logger.info("relay listening", metadata: ["host": "\(configuration.host)", "port": "\(port)"])
            return port
        } catch {
            try? store.close()
            try? blobs?.close()
            throw error
        }
    }

    /// Starts the relay and returns when it is stopped.
    public func run() async throws {
        try await start()
        await withCheckedContinuation { stopWaiters.append($0) }
    }

    /// Closes all connections (WebSocket close frames), stops listening and closes the database.
    public func stop() async {
        guard let current = running else { return }
        running = nil
        await current.group.triggerGracefulShutdown()
        let task = current.task
        // Connections get a close frame; a peer that never answers is cut after a few seconds.
        let watchdog = Task {
            try await Task.sleep(for: .seconds(5))
            task.cancel()
        }
        await task.value
        watchdog.cancel()
        do { try current.store.close() } catch {
            logger.warning("closing the relay database failed", metadata: ["error": "\(error)"])
        }
        do { try current.blobs?.close() } catch {
            logger.warning("closing the blob index failed", metadata: ["error": "\(error)"])
        }
        logger.info("relay stopped")
        for waiter in stopWaiters { waiter.resume() }
        stopWaiters.removeAll()
    }

    /// Number of stored events (tests, diagnostics); nil when stopped.
    public func storedEventCount() async throws -> Int? {
        guard let store = running?.store else { return nil }
        return try await store.count()
    }

    /// Bytes of event JSON stored, summed from the database (what `maxStoredBytes` bounds); nil when stopped.
    public func storedEventBytes() async throws -> Int64? {
        guard let store = running?.store else { return nil }
        return try await store.measuredStoredBytes()
    }

    /// Bytes of blobs the Blossom server stores (as counted for its quota); nil when stopped or off.
    public func storedBlobBytes() -> Int64? { running?.blobs?.storedBytes }

    /// Bytes reserved by Blossom uploads in progress (tests, diagnostics); nil when stopped or off.
    public func blobBytesInFlight() -> Int64? { running?.blobs?.inFlightBytes }

    /// The folder of blob files (tests, diagnostics); nil when stopped or off.
    public var blobDirectory: URL? { running?.blobs?.directory }

    /// Opens the blob store: the configured folder, else `blobs/` beside the database file, else
    /// (events in memory) a temporary folder removed on stop.
    static func openBlobStore(_ blossom: BlossomConfiguration, storage: RelayStorage, logger: Logger) throws -> BlobStore {
        if let directory = blossom.directory {
            return try BlobStore(directory: URL(fileURLWithPath: directory, isDirectory: true), temporary: false,
                                 inMemoryIndex: false, configuration: blossom, logger: logger)
        }
        switch storage {
        case .file(let path):
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("blobs", isDirectory: true)
            return try BlobStore(directory: folder, temporary: false, inMemoryIndex: false, configuration: blossom, logger: logger)
        case .inMemory:
            let folder = FileManager.default.temporaryDirectory
                .appendingPathComponent("marmot-blobs-\(UUID().uuidString)", isDirectory: true)
            return try BlobStore(directory: folder, temporary: true, inMemoryIndex: true, configuration: blossom, logger: logger)
        }
    }

    /// Open connections and live subscriptions; nil when stopped.
    public func connectionCounts() async -> (connections: Int, subscriptions: Int)? {
        guard let hub = running?.hub else { return nil }
        return await hub.counts
    }

    // MARK: Internals

    /// What an AUTH event's `relay` tag may name: the bound address (any host when bound to all
    /// interfaces), and the configured public URL, if any (a relay behind a TLS proxy).
    static func authAddresses(_ configuration: RelayConfiguration, port: Int) -> [RelayAddress] {
        var addresses = [RelayAddress.bound(host: configuration.host, port: port)]
        if let url = configuration.auth.relayURL, let address = RelayAddress(url: url) { addresses.append(address) }
        return addresses
    }

    private func didBind(_ port: Int) {
        for observer in bindObservers { observer(port) }
        bindObservers.removeAll()
        pendingBind?.resume(returning: port)
        pendingBind = nil
    }

    private func serverEnded(_ error: (any Error)?) {
        if let pending = pendingBind {
            pendingBind = nil
            pending.resume(throwing: RelayServerError.couldNotBind(error.map { "\($0)" } ?? "server ended before binding"))
        } else if let error {
            logger.error("relay server ended", metadata: ["error": "\(error)"])
        }
    }

    private func makeApplication(engine: RelayEngine, admission: RelayAdmission, blobs: BlobStore?) -> some Service {
        let information = RelayInformation(configuration: configuration)
        let router = Router(context: RelayRequestContext.self)
        router.get("/") { request, _ -> Response in
            Self.informationResponse(request: request, information: information)
        }
        router.on("/", method: .options) { _, _ -> Response in
            Response(status: .noContent, headers: Self.corsHeaders)
        }
        if let blobs {
            let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
            let boundPort = BoundPort()
            BlossomRoutes(
                store: blobs, admission: admission, logger: logger,
                fallbackBase: { "http://\(host):\(boundPort.value)" }, publicBase: nil
            ).register(on: router)
            bindObservers.append { boundPort.value = $0 }
        }
        // The frame decoder refuses a frame whose header announces more than this (close 1009) before
        // reading its payload; `messages(maxSize:)` does the same for a message sent in fragments.
        let maxMessage = configuration.limits.maxMessageLength
        let logger = self.logger
        let limits = configuration.limits
        let connectionRate = configuration.connectionEventRate
        let wsRouter = Router(context: BasicWebSocketRequestContext.self)
        wsRouter.ws(
            "/",
            shouldUpgrade: { request, _ in
                // Refused upgrades get an HTTP error response and no WebSocket (hummingbird-websocket
                // answers 400 and closes).
                if let reason = admission.refusal(origin: request.headers[.origin]) {
                    logger.notice("WebSocket upgrade refused", metadata: ["reason": "\(reason)"])
                    return .dontUpgrade
                }
                return .upgrade([:])
            },
            onUpgrade: { inbound, outbound, _ in
                guard admission.enter() else {
                    logger.notice("connection refused: too many connections", metadata: ["max": "\(admission.maxConnections)"])
                    try? await outbound.close(.unknown(1013), reason: "too many connections")
                    return
                }
                defer { admission.leave() }
                try await Self.serveConnection(inbound: inbound.messages(maxSize: maxMessage), outbound: outbound,
                                           engine: engine, limits: limits, rate: connectionRate.map { TokenBucket($0) },
                                           logger: logger)
            })
        return Application(
            router: router,
            server: .http1WebSocketUpgrade(
                webSocketRouter: wsRouter,
                configuration: .init(ws: .init(maxFrameSize: maxMessage, autoPing: .enabled(timePeriod: .seconds(30))))),
            // Every TCP connection (also ones that never upgrade) counts against a backstop a little
            // above the WebSocket cap; beyond it the relay stops accepting until one closes, so a
            // socket flood cannot exhaust file descriptors (NIP-11 requests still fit in the margin).
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port), serverName: nil,
                availableConnectionsDelegate: .maximum(
                    configuration.maxConnections + Self.nonWebSocketMargin, logger: logger)),
            onServerRunning: { [weak self] channel in
                await self?.didBind(channel.localAddress?.port ?? 0)
            },
            logger: logger)
    }

    /// Reads messages in order and hands them to the engine while a second task writes the answers
    /// and live events; returns when the client goes away, the relay stops, or the client reads too slowly.
    ///
    /// A read that ends in an error (a message over the limit in fragments) is rethrown without a
    /// normal close, so hummingbird-websocket closes with that error's code (1009, RFC 6455 §7.4.1).
    private static func serveConnection(
        inbound: WebSocketInboundMessageStream, outbound: WebSocketOutboundWriter,
        engine: RelayEngine, limits: RelayLimits, rate: TokenBucket?, logger baseLogger: Logger
    ) async throws {
        let queue = OutboundQueue(capacity: limits.maxPendingMessages, logger: baseLogger)
        let id = await engine.open(outbound: queue)
        var logger = baseLogger
        logger[metadataKey: "conn"] = "\(id)"
        logger.debug("connection opened")
        let failure = await withTaskGroup(of: Void.self, returning: (any Error)?.self) { group in
            group.addTask {
                for await text in queue.stream {
                    do { try await outbound.write(.text(text)) } catch { break }
                }
                // The queue ends when the reader is done or when it overflowed; close either way,
                // unless the read failed (then the error's close code is sent instead).
                if !Task.isCancelled { try? await outbound.close(.normalClosure, reason: nil) }
            }
            var failure: (any Error)?
            do {
                for try await message in inbound {
                    switch message {
                    case .text(let text):
                        await engine.handle(text, connection: id, outbound: queue, connectionRate: rate)
                    case .binary:
                        queue.send(RelayWire.notice("invalid: binary messages are not supported"))
                    }
                }
            } catch {
                logger.debug("connection read ended", metadata: ["error": "\(error)"])
                failure = error
                group.cancelAll()
            }
            queue.finish()
            await engine.hub.unregister(id)
            return failure
        }
        logger.debug("connection closed")
        if let failure { throw failure }
    }

    /// The port once bound, for closures built before binding.
    final class BoundPort: @unchecked Sendable {
        private let lock = NSLock()
        private var port = 0
        var value: Int {
            get { lock.withLock { port } }
            set { lock.withLock { port = newValue } }
        }
    }

    /// TCP connections beyond `maxConnections` the relay still accepts (NIP-11 requests, refused upgrades).
    static let nonWebSocketMargin = 16

    static let corsHeaders: HTTPFields = [
        .accessControlAllowOrigin: "*",
        .accessControlAllowHeaders: "*",
        .accessControlAllowMethods: "GET, OPTIONS",
    ]

    /// NIP-11: the information document for `Accept: application/nostr+json`, else a short hint.
    static func informationResponse(request: Request, information: RelayInformation) -> Response {
        let accept = request.headers[.accept] ?? ""
        guard accept.contains("application/nostr+json") else {
            var headers = corsHeaders
            headers[.contentType] = "text/plain; charset=utf-8"
            return Response(status: .ok, headers: headers,
                            body: .init(byteBuffer: ByteBuffer(string: "Nostr relay: connect with a WebSocket client.\n")))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let body = (try? encoder.encode(information)) ?? Data("{}".utf8)
        var headers = corsHeaders
        headers[.contentType] = "application/nostr+json"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
