import ArgumentParser
import Foundation
import MarmotCore

/// `marmot chats`: the chat list as the core shows it.
struct ChatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chats",
        abstract: "List pending invitations, then chats: id, peer npub (or members), protocol, unread count, time, preview.",
        discussion: """
            Newest activity first, as in the app's chat list: what this home has stored, plus what the \
            relays deliver while the command starts up. Pending invitations come first (with --json, \
            objects whose `type` is `invite`; chats have `type` `chat`); answer them with \
            `marmot accept <id>` or `marmot decline <id>`. Group chats show their member count; every chat \
            shows the Marmot protocol it speaks (with --json, `protocol` is `v1` or `v2`).

            Archived chats (`marmot archive`) are left out; --archived lists only the archived ones \
            (and no invitations). Muted chats are marked `[muted]` or `[muted until …]` and keep their \
            unread count (with --json: `muted`, `mutedUntil`, `archived`). A 1:1 with someone you \
            blocked is not listed, nor are their invitations (`marmot blocked`).

            Examples:
              marmot chats
              marmot chats --archived
              marmot chats --json | jq -r 'select(.unread > 0) | .id'
            """
    )

    @Flag(help: "List only the archived chats.")
    var archived = false

    @OptionGroup var relay: RelayOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await ChatFlows.list(archived: archived, Invocation(relay: relay, output: output))
    }
}

/// `marmot chat …`: one chat.
struct ChatCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chat",
        abstract: "Start a 1:1 chat with an npub (`chat new`).",
        subcommands: [New.self]
    )

    struct New: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "new",
            abstract: "Start (or find) the 1:1 chat with an npub and print its id.",
            discussion: """
            Fetches the peer's key package, creates the encrypted group and sends the invitation. \
            Exit code 5 when the peer has no key package on the relays, 4 for an invalid npub.

            Examples:
              marmot chat new npub1…
              marmot chat new npub1… --relay wss://relay.example.com --json
            """
        )

        @Argument(help: ArgumentHelp("The peer's npub.", valueName: "npub"))
        var npub: String

        @OptionGroup var relay: RelayOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await ChatFlows.new(npub: npub, Invocation(relay: relay, output: output))
        }
    }
}

/// What `chats` and `chat new` do.
@MainActor
enum ChatFlows {
    /// One row of `chats`.
    struct ChatRow: Encodable {
        let type = "chat"
        let id: String
        let peer: String
        let name: String
        let unread: UInt32
        let lastMessage: String?
        let lastMessageAt: Int64?
        let preview: String
        let time: String
        let group: Bool
        /// Members including this account.
        let members: Int
        /// The Marmot protocol version the chat speaks: "v1" or "v2".
        let `protocol`: String
        /// The core's label for it ("Marmot v2").
        let protocolLabel: String
        /// False once we left or were removed (readable, nothing can be sent there).
        let member: Bool
        /// The core's mark for such a chat ("left"), else nil.
        let membership: String?
        /// The group picture's state: none, loading, available or failed.
        let image: String
        /// Why the picture failed, else nil.
        let imageError: String?
        /// This account's Notes chat (issue 29): its own devices only; listed first.
        let notes: Bool
        /// Whether the group settled on one history: settled, syncing, resolving or blocked (issue 24).
        let convergence: String
        /// Why not, in words; nil when settled.
        let convergenceLabel: String?
        /// Muted now (issue 48): the unread count stays, the chat asks for no attention.
        let muted: Bool
        /// When a timed mute ends (Unix seconds); nil when not muted or muted for good.
        let mutedUntil: Int64?
        /// Archived: left out of `marmot chats` unless --archived.
        let archived: Bool
        /// The core's mark of a muted chat ("muted", "muted until 14:05"), else nil.
        let muteLabel: String?

        init(_ summary: ChatSummary) {
            id = summary.chatID.rawValue
            peer = summary.peerNpub
            name = summary.displayName
            unread = summary.unreadCount
            lastMessage = summary.lastMessage
            lastMessageAt = summary.lastMessageAt
            preview = summary.lastMessagePreview
            time = summary.lastMessageTimeDisplay
            group = summary.isGroup
            members = summary.memberCount
            `protocol` = summary.protocolVersion.rawValue
            protocolLabel = summary.protocolLabel
            member = summary.isMember
            membership = summary.membershipLabel
            image = summary.image.name
            imageError = summary.image.reason
            notes = summary.isNotes
            convergence = summary.convergence.code
            convergenceLabel = summary.convergenceLabel
            muted = summary.isMuted
            mutedUntil = summary.mutedUntil
            archived = summary.isArchived
            muteLabel = summary.muteLabel
        }

        var text: String {
            let unreadText = unread > 0 ? "\(unread) unread" : "read"
            let who = notes ? name : group ? "\(name) (\(members) members)" : peer
            let mark = membership.map { "  (\($0))" } ?? ""
            let picture = image == "none" ? "" : "  [picture: \(image)]"
            let settling = convergence == "settled" ? "" : "  [\(convergence)]"
            let quiet = (muteLabel.map { "  [\($0)]" } ?? "") + (archived ? "  [archived]" : "")
            return "\(id)  \(who)\(mark)\(picture)\(settling)\(quiet)  \(protocolLabel)  \(unreadText)  \(time.isEmpty ? "-" : time)  \(preview)"
        }
    }

    struct ChatOpened: Encodable {
        let chat: String
        let peer: String
        let created: Bool
    }

    static func list(archived: Bool = false, _ invocation: Invocation) async throws {
        try invocation.requireStoredAccount()
        try await invocation.withSession(publishKeyPackage: false) { session in
            try await session.requireAccount()
            try await session.untilSynced()
            let invites = archived ? [] : session.state.invites.map(InviteFlows.InviteRow.init)
            let rows = (archived ? session.state.archivedChats : session.state.inboxChats).map(ChatRow.init)
            if invocation.json {
                invites.forEach { Output.json($0) }
                rows.forEach { Output.json($0) }
                return
            }
            if !invites.isEmpty {
                Output.line("Invitations (answer with `marmot accept <id>` or `marmot decline <id>`):")
                invites.forEach { Output.line("  " + $0.text) }
                Output.line(rows.isEmpty ? "" : "Chats:")
            }
            if rows.isEmpty, archived {
                Output.line("No archived chats.")
            } else if rows.isEmpty {
                Output.line("No chats yet. Start one with `marmot chat new <npub>` or `marmot send <npub> <text>`.")
            } else {
                rows.forEach { Output.line($0.text) }
            }
        }
    }

    static func new(npub: String, _ invocation: Invocation) async throws {
        try invocation.requireStoredAccount()
        try await invocation.withSession(publishKeyPackage: false) { session in
            try await session.requireAccount()
            try await session.untilSynced()
            let existed = Set(session.state.chatList.map(\.chatID))
            let chat = try await session.openChat(with: npub)
            Output.emit(
                ChatOpened(chat: chat.chatID.rawValue, peer: chat.peerNpub, created: !existed.contains(chat.chatID)),
                json: invocation.json,
                text: "\(existed.contains(chat.chatID) ? "Found" : "Created") chat \(chat.chatID) with \(chat.peerNpub)")
        }
    }
}

extension CLISession {
    /// Asks the core for the chat with `npub` (it finds an existing one or creates it) and waits
    /// until that chat is open; a failed `createChat` outcome ends the wait with its code.
    func openChat(with npub: String, timeout: Duration = .seconds(90)) async throws(CLIError) -> ChatViewState {
        let mark = outcomeMark
        dispatch(.createChat(peerNpub: npub))
        return try await until("the chat with \(npub)", timeout: timeout) { state throws(CLIError) in
            if case .chat(let chatID) = state.router.topScreen, let chat = state.currentChat, chat.chatID == chatID {
                return chat
            }
            if let failure = OutcomeExit.failure(in: state, after: mark, of: [.createChat]) { throw failure }
            return nil
        }
    }

    /// Opens a chat the core already lists and waits for its view.
    func openChat(id chatID: ChatID, timeout: Duration = .seconds(30)) async throws(CLIError) -> ChatViewState {
        let mark = outcomeMark
        dispatch(.openChat(chatID: chatID))
        return try await until("chat \(chatID) to open", timeout: timeout) { state throws(CLIError) in
            if let chat = state.currentChat, chat.chatID == chatID { return chat }
            if let failure = OutcomeExit.failure(in: state, after: mark, of: [.openChat]) { throw failure }
            return nil
        }
    }
}
