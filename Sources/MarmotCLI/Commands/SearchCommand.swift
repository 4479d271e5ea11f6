import ArgumentParser
import Foundation
import MarmotCore

/// `marmot search TEXT [--chat ID] [--limit N]`: messages matching every word, newest first (issue 48).
struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search your messages, in every chat or one: newest first, with chat, sender, time and id.",
        discussion: """
            Every word must appear in the message (case and accents ignored); the last one may be the \
            start of a word. The index is built in memory from this device's messages and never written \
            to disk. With --json: one object per line (chat, message, sender, createdAt, snippet).

            Examples:
              marmot search lunch
              marmot search "cafe tomor" --chat 3f9a… --limit 5
            """
    )

    @Argument(help: ArgumentHelp("The words to find.", valueName: "text"))
    var text: String

    @Option(name: .customLong("chat"), help: ArgumentHelp("Only this chat (its id or a unique prefix).", valueName: "chat"))
    var chat: String?

    @Option(help: ArgumentHelp("At most this many results (1 to 1000).", valueName: "n"))
    var limit = 50

    @OptionGroup var relay: RelayOptions
    @OptionGroup var output: OutputOptions

    struct Row: Encodable {
        let chat: String
        let message: String
        let sender: String
        let createdAt: Int64
        let snippet: String
    }

    func run() async throws {
        try await Self.search(text, chat: chat, limit: limit, Invocation(relay: relay, output: output))
    }

    @MainActor
    static func search(_ text: String, chat: String?, limit: Int, _ invocation: Invocation) async throws {
        try invocation.requireStoredAccount()
        try await invocation.withSession(publishKeyPackage: false) { session in
            try await session.requireAccount()
            try await session.untilSynced()
            var chatID: ChatID?
            if let chat { chatID = try session.chatID(chat) }
            session.dispatch(.search(query: text, chatID: chatID, limit: limit))
            let found = try await session.until("the search", timeout: .seconds(60)) { [chatID] state throws(CLIError) -> SearchState? in
                let search = state.search
                guard search.query == text, search.chatID == chatID, !search.searching else { return nil }
                if let error = search.error { throw CLIError(.failure, error) }
                return search
            }
            let rows = found.results.map {
                Row(chat: $0.chatID.rawValue, message: $0.messageID.rawValue, sender: $0.sender, createdAt: $0.createdAt, snippet: $0.snippet)
            }
            if invocation.json {
                rows.forEach { Output.json($0) }
            } else if rows.isEmpty {
                Output.line("No messages found.")
            } else {
                let format = ISO8601DateFormatter()
                for row in rows {
                    let time = format.string(from: Date(timeIntervalSince1970: TimeInterval(row.createdAt)))
                    Output.line("\(time)  \(row.chat)  \(row.sender): \(row.snippet)  [\(row.message)]")
                }
            }
        }
    }
}
