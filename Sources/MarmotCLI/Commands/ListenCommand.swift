import ArgumentParser
import Foundation
import MarmotCore

/// `marmot listen`: new chats and incoming messages as they arrive.
struct ListenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listen",
        abstract: "Print unread messages, then incoming chat invitations and messages until interrupted or the timeout.",
        discussion: """
            Invitations are only shown, never accepted: answer them with `marmot accept <id>` or \
            `marmot decline <id>`. Each event is one line (one JSON object with --json, whose `type` is \
            `listening`, `invite`, `chat` (a chat joined or started meanwhile), `message` or `system` (a \
            membership change such as someone added or leaving, in the core's wording)), written \
            as soon as it arrives. Pending invitations are printed first, then every unread message of \
            every chat, oldest first (those of the same second in the order they were received), then \
            what arrives live. Every message is printed exactly once, also when many arrive together or \
            during the catch-up, in the same shape whether it was unread at start or arrived live: its \
            `id`, `chat`, `sender` npub, `kind` (`text`, `reaction`, `edit`, `deletion`, `adminDeletion`, `system`), \
            `nostrKind`, time (`at`) and `target` (the message a reply, reaction, edit or deletion refers to).
            Printing a message does not mark it read: it stays unread (for `marmot chats`, and the next \
            `listen` prints it again) until its chat is opened or marked read. With --mark-read, each \
            chat is marked read once its messages are printed, so the next `listen` prints only newer ones.
            Ends on SIGINT/SIGTERM or after --timeout seconds, with exit code 0.

            Examples:
              marmot listen
              marmot listen --timeout 30 --json | jq -r 'select(.type == "message") | .text'
              marmot listen --mark-read --timeout 10 --json   # drain the inbox
            """
    )

    @Option(help: ArgumentHelp("Stop after this many seconds (default: run until interrupted).", valueName: "seconds"))
    var timeout: Double?

    @Flag(help: "Mark each chat read once its messages are printed (default: printed messages stay unread).")
    var markRead = false

    @OptionGroup var relay: RelayOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if let timeout, !(timeout > 0) { throw ValidationError("--timeout must be a positive number of seconds") }
    }

    func run() async throws {
        try await ListenFlow.run(timeout: timeout, markRead: markRead, Invocation(relay: relay, output: output))
    }
}

/// Renders the core's changes as events: an invitation the core lists that was not shown yet is an
/// `invite` (pending ones first; nothing is accepted here); a chat that appears after `listening`
/// is a `chat` (joined or started elsewhere); each message the core numbered as an arrival
/// (`ArrivedMessage.sequence`: the unread backlog of the start first, then live ones) is a `message`
/// or `system` line. Counts, titles and texts are the core's; chats are marked read only on request.
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
        /// The invitation's id, for `marmot accept` / `marmot decline`.
        var invite: String? = nil
        /// Members including this account (invitations and chats).
        var members: Int? = nil
        /// For a message: its id, author's npub, what it is ("text", "reaction", "edit", "deletion", "adminDeletion",
        /// "system"), its Nostr kind, what it refers to, and whether this account wrote it (on another device).
        var id: String? = nil
        var sender: String? = nil
        var kind: String? = nil
        var nostrKind: UInt16? = nil
        var target: String? = nil
        var mine: Bool? = nil
    }

    /// What the loop waits for: an update, the end (a signal or --timeout), or the end of the wait
    /// for chats marked read to be stored.
    enum Input {
        case update(AppUpdate)
        case stop
        case deadline
    }

    /// How long the end waits for the chats marked read (--mark-read) to be stored.
    static let markDeadline: Duration = .seconds(10)

    static func run(timeout: Double?, markRead: Bool, _ invocation: Invocation) async throws {
        try invocation.requireStoredAccount()
        // Every update since the session opened: the unread backlog may be numbered before
        // `listening` is printed, and each of its steps is printed from its own update.
        try await invocation.withSession(recordsUpdates: true) { session in
            // Signals are watched before anything is printed, so a caller that stops `listen` as soon
            // as it sees a line never meets the default (killing) action.
            let (inputs, input) = AsyncStream.makeStream(of: Input.self)
            Task {
                await Signals.waitForTermination()
                input.yield(.stop)
            }
            let updates = session.updates()
            let account = try await session.requireAccount()
            // What is already stored and pending is complete once the core says it caught up.
            try await session.untilSynced()
            if invocation.json {
                Output.json(Event(type: "listening", chat: nil, peer: nil, text: nil, at: nil, unread: nil, npub: account.npub))
            } else {
                Output.status("marmot: listening as \(account.npub); Ctrl-C to stop")
            }
            let forward = Task { @MainActor in
                for await update in updates { input.yield(.update(update)) }
            }
            defer { forward.cancel() }
            // Whichever comes first: a termination signal or the timeout.
            if let timeout {
                Task {
                    try? await Task.sleep(for: .seconds(timeout))  // renderer-check: allow (--timeout)
                    input.yield(.stop)
                }
            }
            var renderer = Renderer(
                json: invocation.json, from: session.state,
                markRead: markRead ? { session.dispatch(.markChatRead(chatID: $0)) } : nil)
            var stopping = false
            loop: for await next in inputs {
                switch next {
                case .update(let update): renderer.render(update)
                case .stop:
                    guard !stopping else { break }
                    stopping = true
                    if renderer.marksInFlight > 0 {
                        Task {
                            try? await Task.sleep(for: markDeadline)  // renderer-check: allow (bounded wait for --mark-read at the end)
                            input.yield(.deadline)
                        }
                    }
                case .deadline: break loop
                }
                if stopping && renderer.marksInFlight == 0 { break loop }
            }
        }
    }

    struct Renderer {
        let json: Bool
        /// Marks a chat read once its messages are printed (--mark-read); nil leaves them unread.
        let markRead: ((ChatID) -> Void)?
        /// The rev `listening` was printed at: chats known then are not new, and invitations of
        /// earlier updates are those of that state, printed at once.
        private let baselineRev: UInt64
        private var knownChats: Set<ChatID>
        /// The last arrival shown (`ArrivedMessage.sequence`).
        private var lastSequence: UInt64 = 0
        /// Invitations already shown.
        private var shownInvites: Set<InviteID> = []
        /// The last outcome seen (`OperationOutcome.sequence`), so each is counted once.
        private var lastOutcome: UInt64
        /// Chats marked read whose outcome has not come yet.
        private(set) var marksInFlight = 0

        /// Starts from the state `listening` was printed on, showing its pending invitations.
        init(json: Bool, from state: AppState, markRead: ((ChatID) -> Void)?) {
            self.json = json
            self.markRead = markRead
            baselineRev = state.rev
            knownChats = Set(state.chatList.map(\.chatID))
            lastOutcome = state.lastOutcome?.sequence ?? 0
            render(state.invites)
        }

        /// One update of the core, in rev order from the session's start.
        mutating func render(_ update: AppUpdate) {
            switch update {
            case .fullState(let state):
                render(state.chatList, rev: state.rev)
                if state.rev > baselineRev { render(state.invites) }
                note(state.lastOutcome)
            case .chatListChanged(let rev, let list): render(list, rev: rev)
            case .invitesChanged(let rev, let invites): if rev > baselineRev { render(invites) }
            case .outcomeChanged(_, let outcome, _): note(outcome)
            default: break
            }
        }

        /// Counts the outcome of a chat marked read, once.
        private mutating func note(_ outcome: OperationOutcome?) {
            guard let outcome, outcome.sequence > lastOutcome else { return }
            lastOutcome = outcome.sequence
            if outcome.operation == .markChatRead, marksInFlight > 0 { marksInFlight -= 1 }
        }

        /// Shows each invitation once, oldest first.
        mutating func render(_ invites: [InviteSummary]) {
            for invite in invites.reversed() where !shownInvites.contains(invite.inviteID) {
                shownInvites.insert(invite.inviteID)
                var event = Event(
                    type: "invite", chat: nil, peer: invite.inviterNpub, text: invite.title, at: nil, unread: nil,
                    npub: nil)
                event.invite = invite.inviteID.rawValue
                event.members = invite.memberCount
                let time = invite.receivedTimeDisplay.isEmpty ? "" : "[\(invite.receivedTimeDisplay)] "
                Output.emit(
                    event, json: json,
                    text: "invite   \(time)\(invite.title) (accept: marmot accept \(invite.inviteID))")
            }
        }

        /// Each message that arrived since the last one shown, in arrival order (the core numbers
        /// them, `ArrivedMessage.sequence`, the unread backlog first), so none is missed or shown twice
        /// however many arrive between two updates; then, with --mark-read, their chats are marked read.
        private mutating func render(_ chats: [ChatSummary], rev: UInt64) {
            var arrived: [(chat: ChatSummary, message: ArrivedMessage)] = []
            for chat in chats.reversed() {
                if rev > baselineRev, !knownChats.contains(chat.chatID) { joined(chat) }
                knownChats.insert(chat.chatID)
                arrived += chat.recentArrivals.filter { $0.sequence > lastSequence }.map { (chat, $0) }
            }
            var printed: [ChatID] = []
            for (chat, message) in arrived.sorted(by: { $0.message.sequence < $1.message.sequence }) {
                self.message(message, in: chat)
                lastSequence = message.sequence
                if !printed.contains(chat.chatID) { printed.append(chat.chatID) }
            }
            guard let markRead else { return }
            for chatID in printed {
                markRead(chatID)
                marksInFlight += 1
            }
        }

        private func joined(_ chat: ChatSummary) {
            var event = Event(type: "chat", chat: chat.chatID.rawValue, peer: chat.peerNpub, text: chat.displayName,
                              at: nil, unread: nil, npub: nil)
            event.members = chat.memberCount
            Output.emit(event, json: json, text: "chat     \(chat.chatID) with \(chat.displayName)")
        }

        /// One message that arrived: its text, a reaction, edit or deletion (with its target), or a
        /// system line (`type` "system").
        private func message(_ arrival: ArrivedMessage, in chat: ChatSummary) {
            let system = arrival.kind == "system"
            var event = Event(
                type: system ? "system" : "message", chat: chat.chatID.rawValue, peer: chat.peerNpub, text: arrival.text,
                at: arrival.timestamp, unread: chat.unreadCount, npub: nil)
            event.id = arrival.messageID.rawValue
            event.sender = arrival.senderNpub
            event.kind = arrival.kind
            event.nostrKind = arrival.nostrKind
            event.target = arrival.target?.rawValue
            event.mine = arrival.isMine
            let time = arrival.displayTimestamp.isEmpty ? "" : "[\(arrival.displayTimestamp)] "
            let label = system ? "system  " : arrival.kind == "text" ? "message " : arrival.kind.padding(toLength: 8, withPad: " ", startingAt: 0)
            let target = arrival.target.map { " (on \($0.rawValue))" } ?? ""
            let who = system ? "" : " \(arrival.senderNpub)"
            Output.emit(
                event, json: json,
                text: "\(label) \(time)\(chat.displayName)\(who): \(arrival.line)\(target) [id \(arrival.messageID)]")
        }
    }
}
