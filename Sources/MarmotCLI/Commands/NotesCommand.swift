import ArgumentParser
import Foundation
import MarmotCore

/// `marmot notes`: this account's Notes chat, a chat with only your own devices (issue 29).
struct NotesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notes",
        abstract: "Write a note to yourself, or list your notes (shared with your linked devices).",
        discussion: """
            The Notes chat is an encrypted group whose members are only your own devices; it is made \
            the first time you use it. With TEXT, writes a note and waits until the relays accept it \
            (exit code 6 when it was not sent); without, prints the notes, oldest first (the lines and \
            JSON objects of `marmot messages`). Notes reach the devices linked with `marmot devices \
            link`; a device reads the notes written from the moment it was linked (earlier notes are \
            not transferred).

            Examples:
              marmot notes "buy milk"
              marmot notes
              marmot notes --limit 100 --json | jq -r '.text'
            """
    )

    @Argument(help: ArgumentHelp("The note; several words are joined with spaces.", valueName: "text"))
    var text: [String] = []

    @Option(help: ArgumentHelp("How many notes to list (default 20).", valueName: "n")) var limit: Int = 20
    @OptionGroup var relay: RelayOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if limit < 1 { throw ValidationError("--limit must be at least 1") }
    }

    func run() async throws {
        let note = text.joined(separator: " ").trimmingCharacters(in: .whitespacesAndNewlines)
        try await NotesFlow.run(note: note.isEmpty ? nil : note, limit: limit, Invocation(relay: relay, output: output))
    }
}

@MainActor
enum NotesFlow {
    struct Written: Encodable {
        let chat: String
        let message: String
        let delivery: String
        let reason: String?
        let ms: Int
    }

    static func run(note: String?, limit: Int, _ invocation: Invocation) async throws {
        try invocation.requireStoredAccount()
        try await invocation.withSession(publishKeyPackage: true) { session in
            try await session.requireAccount()
            try await session.untilSynced()
            let notes = try await session.openNotes()
            guard let note else {
                _ = try await session.openLoaded(notes.chatID)
                while let view = session.state.currentChat, view.canLoadOlder, shown(view).count < limit {
                    try await session.loadOlder(notes.chatID)
                }
                guard let view = session.state.currentChat else { return }
                let rows = shown(view).suffix(limit).map { MessagesFlow.row($0, in: notes.chatID) }
                if invocation.json {
                    rows.forEach { Output.json($0) }
                } else if rows.isEmpty {
                    Output.line("No notes yet.")
                } else {
                    rows.forEach { Output.line(MessagesFlow.text($0)) }
                }
                return
            }
            let start = ContinuousClock.now
            let sent = try await session.send(note, in: notes.chatID)
            let outcome = try await session.untilDelivered(sent, in: notes.chatID)
            let ms = start.duration(to: .now).milliseconds
            if case .failed(let reason) = outcome.delivery {
                if invocation.json {
                    Output.json(Written(chat: notes.chatID.rawValue, message: sent.rawValue, delivery: "failed", reason: reason, ms: ms))
                }
                throw CLIError(.notSent, "note not sent: \(reason)")
            }
            Output.emit(
                Written(chat: notes.chatID.rawValue, message: sent.rawValue, delivery: "sent", reason: nil, ms: ms),
                json: invocation.json, text: "Note saved in chat \(notes.chatID) (\(ms) ms)")
        }
    }

    /// The notes, without system lines of devices joining.
    static func shown(_ view: ChatViewState) -> [ChatMessage] { view.messages }
}

extension CLISession {
    /// Opens the Notes chat (the core makes it on first use) and waits for its view.
    func openNotes(timeout: Duration = .seconds(60)) async throws(CLIError) -> ChatViewState {
        let mark = outcomeMark
        dispatch(.openNotes)
        return try await until("the Notes chat to open", timeout: timeout) { state throws(CLIError) in
            if let chat = state.currentChat, chat.isNotes { return chat }
            if let failure = OutcomeExit.failure(in: state, after: mark, of: [.openNotes]) { throw failure }
            return nil
        }
    }
}
