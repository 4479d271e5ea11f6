import ArgumentParser
import Foundation
import Logging

/// `marmot web`: the browser renderer. Serves one page on 127.0.0.1 that renders the core's state
/// and sends the user's intents back over a WebSocket, as the SwiftUI app does through AppManager.
struct WebCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web",
        abstract: "Serve the client as a web page on 127.0.0.1 (open the printed URL in a browser).",
        discussion: """
            Prints one line on stdout, the page's URL with a random token (http://127.0.0.1:PORT/?token=…), \
            once it accepts connections; requests without the token, with another Host or from another \
            Origin are refused. The page shows the same screens as the terminal client (login, chats \
            with invitations, chat, new chat). The account's nsec stays in $MARMOT_HOME/nsec; the page \
            gets it only through "Export key" after a confirmation.

            Examples:
              marmot web
              marmot web --port 8080 --relay ws://127.0.0.1:7447
            """
    )

    @Option(help: "TCP port on 127.0.0.1; 0 picks a free one.")
    var port = 8787

    @OptionGroup var relay: RelayOptions

    @Flag(name: .shortAndLong, help: "Log to stderr (-v info, -vv debug).")
    var verbose: Int

    func run() async throws {
        guard (0...65535).contains(port) else { throw CLIError(.usage, "--port must be 0...65535") }
        let home = try MarmotHome.prepare()
        let level: Logger.Level = verbose >= 2 ? .debug : verbose == 1 ? .info : .warning
        let plan = try RelayPlan.resolve(options: relay.relays, home: home)
        var configuration = CLISession.Configuration(home: home, relays: plan, logLevel: level)
        configuration.savesRelayChanges = true
        let session = try await CLISession.open(configuration)
        var logger = Logger(label: "marmot.web")
        logger.logLevel = level
        let gate = WebGate(port: port)
        let server = WebServer(gate: gate, bridge: WebBridge(session: session, logger: logger), logger: logger)
        let requestedPort = port
        let serverTask = Task {
            try await server.run(port: requestedPort) { bound in
                gate.port = bound
                FileHandle.standardOutput.write(Data("http://127.0.0.1:\(bound)/?token=\(gate.token)\n".utf8))
            }
        }
        await Signals.waitForTermination()
        serverTask.cancel()
        _ = await serverTask.result
        await session.close()
    }
}
