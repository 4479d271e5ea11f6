import Foundation
import Logging
import NostrRelay

/// The relay `marmot` runs in-process on loopback when no relay is configured, so the app works
/// offline; its events are kept in `$MARMOT_HOME/relay.sqlite` (or memory).
///
/// It keeps one address per home (`EmbeddedRelayPorts`, issue 50): chats made on it name its URL.
/// When another `marmot` of the same home already serves that address (a `listen` running while a
/// `send` starts), this one uses that relay instead of starting a second.
struct EmbeddedRelay: Sendable {
    /// The relay this process runs; nil when another process of the home serves the address.
    let server: RelayServer?
    let url: URL
    /// Addresses the home's relay had before, each to `url` (a chat naming one reaches this relay).
    let aliases: [String: String]

    /// Starts the home's relay on 127.0.0.1: on its kept port, else (a fresh home, or a port another
    /// program took) a free one, kept from then on. `database` nil keeps events in memory;
    /// `portFile` nil does not keep the port.
    static func start(database: URL?, portFile: URL? = nil, logLevel: Logger.Level) async throws(CLIError) -> EmbeddedRelay {
        var logger = Logger(label: "marmot.relay")
        logger.logLevel = logLevel
        var ports = portFile.map(EmbeddedRelayPorts.load) ?? EmbeddedRelayPorts()
        if let kept = ports.current, let keptURL = URL(string: EmbeddedRelayPorts.url(kept)) {
            if let server = await serve(database: database, port: kept, logger: logger) {
                return EmbeddedRelay(server: server, url: keptURL, aliases: ports.aliases)
            }
            if await RelayProbe.answers(port: kept) {
                logger.notice("the home's embedded relay on port \(kept) is run by another marmot process; using it")
                return EmbeddedRelay(server: nil, url: keptURL, aliases: ports.aliases)
            }
            logger.warning("the embedded relay's port \(kept) is taken by another program; moving to a new port")
        }
        guard let server = await serve(database: database, port: 0, logger: logger), let text = await server.url,
            let url = URL(string: text), let port = url.port
        else {
            throw CLIError(.failure, "cannot start the embedded relay on 127.0.0.1")
        }
        ports.moved(to: port)
        if let portFile {
            do { try ports.save(portFile) } catch { logger.warning("cannot keep the embedded relay's port in \(portFile.path): \(error)") }
        }
        return EmbeddedRelay(server: server, url: url, aliases: ports.aliases)
    }

    /// A relay serving `database` on `port` (0: a free one), or nil when it cannot listen there.
    private static func serve(database: URL?, port: Int, logger: Logger) async -> RelayServer? {
        let storage: RelayStorage = database.map { .file(path: $0.path) } ?? .inMemory
        let server = RelayServer(configuration: RelayConfiguration(host: "127.0.0.1", port: port, storage: storage), logger: logger)
        do {
            _ = try await server.start()
            return server
        } catch {
            logger.debug("embedded relay cannot listen on port \(port): \(error)")
            return nil
        }
    }

    func stop() async { await server?.stop() }
}
