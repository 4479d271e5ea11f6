import ArgumentParser
import Foundation
import MarmotCore

/// `marmot listen`: new chats and incoming messages as they arrive.
struct ListenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listen",
        abstract: "Print incoming chat invitations and messages until interrupted or the timeout.",
        discussion: """
            Invitations are only shown, never accepted: answer them with `marmot accept <id>` or \
            `marmot decline <id>`. Each event is one line (one JSON object with --json, whose `type` is \
            `listening`, `invite`, `chat` (a chat joined or started meanwhile), `message` or `system` (a \
            membership change such as someone added or leaving, in the core's wording)), written \
            as soon as it arrives. Every message is printed exactly once, also when many arrive \
            together or during the catch-up, with its `id`, `chat`, `sender` npub, `kind` (`text`, \
            `reaction`, `edit`, `deletion`, `system`), `nostrKind`, time (`at`) and `target` (the \
            message a reply, reaction, edit or deletion refers to); of a catch-up longer than 64 \
            messages in one chat before the first line, the newest 64. Pending invitations and unread \
            messages already received are printed first. Messages stay unread for `marmot chats`.
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

/// Renders the core's changes as events: an invitation the core lists that was not shown yet is an
/// `invite` (pending ones first; nothing is accepted here); a chat that appears after the stored list
/// was shown is a `chat` (joined or started elsewhere); a rise in a chat's unread count is an incoming
/// message, shown with the chat's last message, and unread messages already stored are shown first.
/// Counts, titles and previews are the core's; nothing is marked read.
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
        /// For a message: its id, author's npub, what it is ("text", "reaction", "edit", "deletion",
        /// "system"), its Nostr kind, what it refers to, and whether this account wrote it (on another device).
        var id: String? = nil
        var sender: String? = nil
        var kind: String? = nil
        var nostrKind: UInt16? = nil
        var target: String? = nil
        var mine: Bool? = nil
    }

    static func run(timeout: Double?, _ invocation: Invocation) async throws {
        try invocation.requireStoredAccount()
        try await invocation.withSession() { session in
            // Signals are watched before anything is printed, so a caller that stops `listen` as soon
            // as it sees a line never meets the default (killing) action.
            let (stop, stopper) = AsyncStream.makeStream(of: Void.self)
            Task {
                await Signals.waitForTermination()
                stopper.yield()
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
            let snapshot = session.state
            let consumer = Task { @MainActor in
                var renderer = Renderer(json: invocation.json)
                renderer.render(snapshot.invites)
                renderer.render(snapshot.chatList, rev: snapshot.rev)
                for await update in updates where update.rev > snapshot.rev {
                    switch update {
                    case .fullState(let state):
                        renderer.render(state.invites)
                        renderer.render(state.chatList, rev: state.rev)
                    case .chatListChanged(let rev, let list): renderer.render(list, rev: rev)
                    case .invitesChanged(_, let invites): renderer.render(invites)
                    default: break
                    }
                }
            }
            // Whichever comes first: a termination signal or the timeout.
            if let timeout {
                Task {
                    try? await Task.sleep(for: .seconds(timeout))  // renderer-check: allow (--timeout)
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
        /// The last arrival shown (`ArrivedMessage.sequence`).
        private var lastSequence: UInt64 = 0
        /// Invitations already shown.
        private var shownInvites: Set<InviteID> = []

        init(json: Bool) { self.json = json }

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
        /// them, `ArrivedMessage.sequence`), so none is missed or shown twice however many arrive
        /// between two updates; at the start, a chat with unread messages of an earlier run and none
        /// arrived since shows its newest one.
        mutating func render(_ chats: [ChatSummary], rev: UInt64) {
            guard rev > lastRev else { return }
            let baseline = lastRev == 0
            lastRev = rev
            var arrived: [(chat: ChatSummary, message: ArrivedMessage)] = []
            for chat in chats.reversed() {
                let previous = seen[chat.chatID]
                seen[chat.chatID] = chat.unreadCount
                if previous == nil, !baseline { joined(chat) }
                if baseline, chat.unreadCount > 0, chat.recentArrivals.isEmpty { stored(chat) }
                arrived += chat.recentArrivals.filter { $0.sequence > lastSequence }.map { (chat, $0) }
            }
            for (chat, message) in arrived.sorted(by: { $0.message.sequence < $1.message.sequence }) {
                self.message(message, in: chat)
                lastSequence = message.sequence
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

        /// The newest of the unread messages stored by an earlier run, or a system line.
        private func stored(_ chat: ChatSummary) {
            let system = chat.lastMessageKind == .system
            let event = Event(
                type: system ? "system" : "message", chat: chat.chatID.rawValue, peer: chat.peerNpub, text: chat.lastMessage,
                at: chat.lastMessageAt, unread: chat.unreadCount, npub: nil)
            let time = chat.lastMessageTimeDisplay.isEmpty ? "" : "[\(chat.lastMessageTimeDisplay)] "
            let text =
                system
                ? "system   \(time)\(chat.displayName): \(chat.lastMessage ?? "")"
                : "message  \(time)\(chat.displayName): \(chat.lastMessage ?? "")"
            Output.emit(event, json: json, text: text)
        }
    }
}
