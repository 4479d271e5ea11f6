import ArgumentParser
import Foundation
import MarmotCore

/// `marmot listen`: new chats and incoming messages as they arrive.
struct ListenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listen",
        abstract: "Print incoming chat invitations and messages until interrupted or the timeout.",
        discussion: """
            Invitations are accepted automatically. Each event is one line (one JSON object with \
            --json, whose `type` is `listening`, `invite` or `message`), written as soon as it arrives. \
            Unread messages already received are printed first. Messages stay unread for `marmot chats`.
            Ends on SIGINT/SIGTERM or after --timeout seconds, with exit code 0.

            Examples:
              marmot listen
              marmot listen --timeout 30 --json | jq -r 'select(.type == "message") | .text'
            """
    )

    @Option(help: ArgumentHelp("Stop after this many seconds (default: run until interrupted).", valueName: "seconds"))
    var timeout: Double?

    @OptionGroup var relay: RelayOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if let timeout, !(timeout > 0) { throw ValidationError("--timeout must be a positive number of seconds") }
    }

    func run() async throws {
        try await ListenFlow.run(timeout: timeout, Invocation(relay: relay, output: output))
    }
}

/// Renders the chat list's changes as events: a chat that appears after the stored list was shown is
/// an invitation (the messaging layer accepts welcomes); a rise in a chat's unread count is an
/// incoming message, shown with the chat's last message, and unread messages already stored are
/// shown first. Counts and previews are the core's; nothing is marked read.
@MainActor
enum ListenFlow {
    struct Event: Encodable {
        let type: String
        let chat: String?
        let peer: String?
        let text: String?
        let at: Int64?
        let unread: UInt32?
        let npub: String?
    }

    static func run(timeout: Double?, _ invocation: Invocation) async throws {
        try invocation.requireStoredAccount()
        try await invocation.withSession() { session in
            let updates = session.updates()
            let account = try await session.requireAccount()
            if invocation.json {
                Output.json(Event(type: "listening", chat: nil, peer: nil, text: nil, at: nil, unread: nil, npub: account.npub))
            } else {
                Output.status("marmot: listening as \(account.npub); Ctrl-C to stop")
            }
            let snapshot = session.state
            let consumer = Task { @MainActor in
                var renderer = Renderer(json: invocation.json)
                renderer.render(snapshot.chatList, rev: snapshot.rev)
                for await update in updates {
                    switch update {
                    case .fullState(let state): renderer.render(state.chatList, rev: state.rev)
                    case .chatListChanged(let rev, let list): renderer.render(list, rev: rev)
                    default: break
                    }
                }
            }
            // Whichever comes first: a termination signal or the timeout.
            let (stop, stopper) = AsyncStream.makeStream(of: Void.self)
            Task {
                await Signals.waitForTermination()
                stopper.yield()
            }
            if let timeout {
                Task {
                    try? await Task.sleep(for: .seconds(timeout))
                    stopper.yield()
                }
            }
            for await _ in stop { break }
            consumer.cancel()
        }
    }

    struct Renderer {
        let json: Bool
        /// Unread count last shown per chat.
        private var seen: [ChatID: UInt32] = [:]
        private var lastRev: UInt64 = 0

        init(json: Bool) { self.json = json }

        mutating func render(_ chats: [ChatSummary], rev: UInt64) {
            guard rev > lastRev else { return }
            let baseline = lastRev == 0
            lastRev = rev
            for chat in chats.reversed() {
                let previous = seen[chat.chatID]
                seen[chat.chatID] = chat.unreadCount
                if previous == nil, !baseline { invite(chat) }
                if chat.unreadCount > (previous ?? 0) { message(chat) }
            }
        }

        private func invite(_ chat: ChatSummary) {
            let event = Event(type: "invite", chat: chat.chatID.rawValue, peer: chat.peerNpub, text: nil, at: nil,
                              unread: nil, npub: nil)
            Output.emit(event, json: json, text: "invite   chat \(chat.chatID) with \(chat.peerNpub)")
        }

        private func message(_ chat: ChatSummary) {
            let event = Event(
                type: "message", chat: chat.chatID.rawValue, peer: chat.peerNpub, text: chat.lastMessage,
                at: chat.lastMessageAt, unread: chat.unreadCount, npub: nil)
            let time = chat.lastMessageTimeDisplay.isEmpty ? "" : "[\(chat.lastMessageTimeDisplay)] "
            Output.emit(event, json: json, text: "message  \(time)\(chat.displayName): \(chat.lastMessage ?? "")")
        }
    }
}
