import ArgumentParser
import Foundation
import MarmotAppKit
import MarmotCore

/// `marmot relays [list|add|remove]`: the account's relays, with their connection.
struct RelaysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relays",
        abstract: "List, add or remove your relays (saved in $MARMOT_HOME/relays).",
        discussion: """
            `add` and `remove` change the session's relays through the core (which republishes your relay \
            lists), then save them in $MARMOT_HOME/relays, used whenever neither --relay nor MARMOT_RELAYS \
            is given.

            Examples:
              marmot relays
              marmot relays add wss://relay.example.com
              marmot relays remove wss://old.example.com --json
            """,
        subcommands: [List.self, Add.self, Remove.self],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List your relays and their connection (with --json: url, connected, status, origin).",
            discussion: """
                Relays your chats' groups name (their group data) are listed after yours, marked \
                "group relay" with the chats that brought them; at most 16 per group and 32 in all are \
                used, and none on your own network unless one of your relays is (with --json: origin \
                "group", chats [{chatId, title}]; your own have origin "yours").
                """)
        @OptionGroup var relay: RelayOptions
        @OptionGroup var output: OutputOptions
        func run() async throws { try await RelayFlows.list(Invocation(relay: relay, output: output)) }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a relay (ws:// or wss://).")
        @Argument(help: ArgumentHelp("The relay's URL.", valueName: "url")) var url: String
        @OptionGroup var relay: RelayOptions
        @OptionGroup var output: OutputOptions
        func run() async throws {
            try await RelayFlows.change(.addRelay(url: url), Invocation(relay: relay, output: output))
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove one of your relays (not the last).")
        @Argument(help: ArgumentHelp("The relay's URL.", valueName: "url")) var url: String
        @OptionGroup var relay: RelayOptions
        @OptionGroup var output: OutputOptions
        func run() async throws {
            try await RelayFlows.change(.removeRelay(url: url), Invocation(relay: relay, output: output))
        }
    }
}

/// What `relays` does: render the network slice's relays; dispatch changes and save the result.
@MainActor
enum RelayFlows {
    struct Row: Encodable {
        struct Chat: Encodable {
            let chatId: String
            let title: String
        }

        let url: String
        let connected: Bool
        /// The core's words for the relay's state ("failing: connection refused").
        let status: String
        /// "yours" (you chose it) or "group" (a chat's group names it).
        let origin: String
        /// The chats that brought a group relay (empty for yours).
        let chats: [Chat]
        /// Since when the relay has been down (Unix seconds), absent while it is not failing.
        let downSince: Int64?
        /// NIP-42 on the current connection: "not_asked", "authenticated" or "refused".
        let auth: String
        /// The relay's reason when `auth` is "refused", absent otherwise.
        let authReason: String?

        init(_ entry: RelayEntry, origin: String, chats: [Chat] = []) {
            url = entry.url
            connected = entry.connected
            status = entry.statusText
            self.origin = origin
            self.chats = chats
            downSince = entry.downSince
            switch entry.auth {
            case .notAsked: (auth, authReason) = ("not_asked", nil)
            case .authenticated: (auth, authReason) = ("authenticated", nil)
            case .refused(let reason): (auth, authReason) = ("refused", reason)
            }
        }
    }

    static func list(_ invocation: Invocation) async throws {
        try invocation.requireStoredAccount()
        try await invocation.withSession(publishKeyPackage: false) { session in
            try await session.requireAccount()
            try await session.untilSynced()
            print(session.state.network.relays, json: invocation.json)
            print(group: session.state.network.groupRelays, json: invocation.json)
        }
    }

    static func change(_ action: AppAction, _ invocation: Invocation) async throws {
        try invocation.requireStoredAccount()
        try await invocation.withSession(publishKeyPackage: false) { session in
            try await session.requireAccount()
            try await session.untilSynced()
            let mark = session.outcomeMark
            session.dispatch(action)
            _ = try await session.until("the relays to change", timeout: .seconds(30)) { state throws(CLIError) -> Bool? in
                guard let outcome = state.lastOutcome, outcome.sequence > mark, outcome.operation == .changeRelays else {
                    return nil
                }
                if !outcome.isSuccess { throw OutcomeExit.error(outcome) }
                return true
            }
            let file = session.home.appendingPathComponent("relays")
            do {
                try RelaySaver.write(session.state.network.relays, embeddedURL: session.embeddedRelay?.url.absoluteString, to: file)
            } catch {
                throw CLIError(.failure, "the relays changed but \(file.path) could not be written: \(error.localizedDescription)")
            }
            print(session.state.network.relays, json: invocation.json)
        }
    }

    private static func print(_ relays: [RelayEntry], json: Bool) {
        if json {
            relays.forEach { Output.json(Row($0, origin: "yours")) }
        } else {
            relays.forEach { Output.line("\($0.url)  \($0.statusText)") }
        }
    }

    /// The relays chats brought, after the user's own (issue 26).
    private static func print(group relays: [GroupRelayEntry], json: Bool) {
        if json {
            relays.forEach {
                Output.json(Row($0.relay, origin: "group", chats: $0.chats.map { Row.Chat(chatId: $0.chatID.rawValue, title: $0.title) }))
            }
        } else {
            relays.forEach { Output.line("\($0.url)  \($0.relay.statusText)  group relay \($0.originText)") }
        }
    }
}
