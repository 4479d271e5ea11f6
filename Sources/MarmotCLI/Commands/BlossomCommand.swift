import ArgumentParser
import Foundation
import MarmotCore

/// `marmot blossom [list|add|remove]`: the Blossom servers pictures and files are uploaded to.
struct BlossomCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "blossom",
        abstract: "List, add or remove the Blossom servers your pictures and files are uploaded to.",
        discussion: """
            Files you send go to the first server, encrypted (MIP-04). Until you name one, the Blossom \
            server of each of your relays is used (`marmot relay` serves one on its own address). \
            Changes are saved with your account and published as your server list (kind 10063).

            Examples:
              marmot blossom
              marmot blossom add https://blossom.example.com
              marmot blossom remove https://old.example.com --json
            """,
        subcommands: [List.self, Add.self, Remove.self],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the Blossom servers in use (with --json: url, named).")
        @OptionGroup var relay: RelayOptions
        @OptionGroup var output: OutputOptions
        func run() async throws { try await BlossomFlows.run(nil, Invocation(relay: relay, output: output)) }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a Blossom server (http:// or https://).")
        @Argument(help: ArgumentHelp("The server's URL.", valueName: "url")) var url: String
        @OptionGroup var relay: RelayOptions
        @OptionGroup var output: OutputOptions
        func run() async throws { try await BlossomFlows.run(.addBlossomServer(url: url), Invocation(relay: relay, output: output)) }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove one of your Blossom servers (removing the last goes back to your relays' own).")
        @Argument(help: ArgumentHelp("The server's URL.", valueName: "url")) var url: String
        @OptionGroup var relay: RelayOptions
        @OptionGroup var output: OutputOptions
        func run() async throws {
            try await BlossomFlows.run(.removeBlossomServer(url: url), Invocation(relay: relay, output: output))
        }
    }
}

/// What `blossom` does: dispatch a change (if any), then list the servers.
@MainActor
enum BlossomFlows {
    struct Row: Encodable {
        let url: String
        /// Whether you named it (false: your relay's own server).
        let named: Bool
    }

    static func run(_ action: AppAction?, _ invocation: Invocation) async throws {
        try invocation.requireStoredAccount()
        try await invocation.withSession(publishKeyPackage: false) { session in
            try await session.requireAccount()
            try await session.untilSynced()
            _ = try await session.until("the Blossom servers to be read") { $0.network.blossomServersLoaded ? true : nil }
            if let action {
                let mark = session.outcomeMark
                session.dispatch(action)
                _ = try await session.until("the Blossom servers to change", timeout: .seconds(30)) {
                    state throws(CLIError) -> Bool? in
                    guard let outcome = state.lastOutcome, outcome.sequence > mark, outcome.operation == .changeBlossomServers
                    else { return nil }
                    if !outcome.isSuccess { throw OutcomeExit.error(outcome) }
                    return true
                }
            }
            let network = session.state.network
            if invocation.json {
                network.blossomServers.forEach { Output.json(Row(url: $0, named: network.blossomServersNamed)) }
            } else if network.blossomServers.isEmpty {
                Output.line("No Blossom server: add one with `marmot blossom add URL`.")
            } else {
                let note = network.blossomServersNamed ? "" : "  (your relay's own)"
                network.blossomServers.forEach { Output.line("\($0)\(note)") }
            }
        }
    }
}
