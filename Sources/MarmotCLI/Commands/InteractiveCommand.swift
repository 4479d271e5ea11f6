import ArgumentParser
import Foundation
import MarmotCore
import Logging

/// `marmot` (or `marmot ui`): the full-screen terminal client, the screens of the app.
struct InteractiveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ui",
        abstract: "The interactive terminal client (the default when no command is given).",
        discussion: """
            Full screen: login (create or import an account), chat list (pending invitations on top), \
            chat, new chat, new group, group info, relays, your name, Notes, devices. Keys are listed on the bottom \
            line: arrows or j/k move, Enter opens or sends, Esc goes back, a accepts and d declines the \
            highlighted invitation (Enter asks), r retries a failed message, PgUp loads older messages, \
            R opens your relays (a adds, r removes; changes are saved in $MARMOT_HOME/relays), P your \
            name, o opens Notes (notes to self on all your devices), D your devices (l links the \
            highlighted waiting device, r removes a linked one), Ctrl-C quits. Log lines go to \
            $MARMOT_HOME/marmot.log while the screen is up. Needs a terminal; in scripts use the \
            other commands, or `marmot demo` to see two accounts talk.

            Examples:
              marmot
              marmot --relay wss://relay.example.com
            """
    )

    @OptionGroup var relay: RelayOptions

    @Flag(name: .shortAndLong, help: "Log more to $MARMOT_HOME/marmot.log (-v info, -vv debug).")
    var verbose: Int

    func run() async throws {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            throw CLIError(.usage, "the interactive client needs a terminal; try `marmot demo` or `marmot --help`")
        }
        let home = try MarmotHome.prepare()
        let plan = try RelayPlan.resolve(options: relay.relays, home: home)
        var configuration = CLISession.Configuration(
            home: home, relays: plan, logLevel: verbose >= 2 ? .debug : verbose == 1 ? .info : .warning)
        configuration.announceEmbeddedRelay = false
        configuration.savesRelayChanges = true
        let session = try await CLISession.open(configuration)
        let where_ =
            if let embedded = session.embeddedRelay {
                "embedded relay \(embedded.url.absoluteString)"
            } else {
                session.relayURLs.map(\.absoluteString).joined(separator: ", ")
            }
        let saver = AttachmentSaver(folder: home.appendingPathComponent("downloads", isDirectory: true)) {
            chatID, messageID, index throws(AttachmentError) -> Data in
            try await session.attachmentData(chatID: chatID, messageID: messageID, index: index)
        }
        do {
            try await TerminalUI.run(
                manager: session.manager, statusLine: { where_ },
                logFile: home.appendingPathComponent("marmot.log"), saver: saver)
        } catch {
            await session.close()
            throw CLIError(.failure, "terminal: \(error)")
        }
        await session.close()
    }
}
