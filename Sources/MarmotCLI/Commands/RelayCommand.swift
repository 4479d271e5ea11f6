import ArgumentParser
import Foundation
import Logging
import NostrRelay

/// Runs the embedded Nostr relay in the foreground (NIP-01 over WebSocket, NIP-11), so two Marmot
/// homes, or any Nostr client, can talk on this machine without a network.
struct RelayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relay",
        abstract: "Run the embedded Nostr relay in the foreground until interrupted.",
        discussion: """
            Prints the relay's ws:// URL as the first line on stdout once it accepts connections.
            Events are stored in a SQLite file (default: $MARMOT_HOME/relay.sqlite) and survive restarts.
            """
    )

    @Option(help: "Interface to bind (loopback by default).")
    var host = "127.0.0.1"

    @Option(help: "TCP port; 0 picks a free one.")
    var port = 7447

    @Option(help: "SQLite file for stored events (default: $MARMOT_HOME/relay.sqlite).")
    var database: String?

    @Flag(help: "Keep events in memory only (nothing survives a restart).")
    var memory = false

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .notice

    func run() async throws {
        let storage: RelayStorage
        if memory {
            storage = .inMemory
        } else {
            let path = try database ?? MarmotHome.prepare().appendingPathComponent("relay.sqlite").path
            storage = .file(path: path)
        }
        var logger = Logger(label: "marmot.relay")
        logger.logLevel = logLevel
        let server = RelayServer(configuration: RelayConfiguration(host: host, port: port, storage: storage), logger: logger)
        do {
            try await server.start()
        } catch {
            throw ValidationError("cannot start the relay on \(host):\(port): \(error)")
        }
        // Unbuffered, so a parent process reading a pipe sees the URL at once.
        if let url = await server.url { FileHandle.standardOutput.write(Data((url + "\n").utf8)) }
        await Signals.waitForTermination()
        await server.stop()
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
