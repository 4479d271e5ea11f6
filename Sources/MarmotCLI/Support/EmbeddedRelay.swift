import Foundation
import Logging
import NostrRelay

/// The relay `marmot` runs in-process on loopback when no relay is configured, so the app works
/// offline; its events are kept in `$MARMOT_HOME/relay.sqlite` (or memory).
struct EmbeddedRelay: Sendable {
    let server: RelayServer
    let url: URL

    /// Starts a relay on 127.0.0.1 and a free port; `database` nil keeps events in memory.
    static func start(database: URL?, logLevel: Logger.Level) async throws(CLIError) -> EmbeddedRelay {
        var logger = Logger(label: "marmot.relay")
        logger.logLevel = logLevel
        let storage: RelayStorage = database.map { .file(path: $0.path) } ?? .inMemory
        let server = RelayServer(
            configuration: RelayConfiguration(host: "127.0.0.1", port: 0, storage: storage), logger: logger)
        do {
            _ = try await server.start()
        } catch {
            throw CLIError(.failure, "cannot start the embedded relay: \(error)")
        }
        guard let text = await server.url, let url = URL(string: text) else {
            await server.stop()
            throw CLIError(.failure, "the embedded relay did not report its URL")
        }
        return EmbeddedRelay(server: server, url: url)
    }

    func stop() async { await server.stop() }
}
