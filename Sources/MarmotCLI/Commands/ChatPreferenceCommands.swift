import ArgumentParser
import Foundation
import MarmotCore

/// How long `marmot mute --for` mutes: a number with a unit (s, m, h, d, w) or "forever".
struct MuteLength: ExpressibleByArgument, Equatable {
    let duration: MuteDuration

    init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces).lowercased()
        if text == "forever" {
            duration = .forever
            return
        }
        guard let length = RetentionDuration(argument: text), length.seconds > 0 else { return nil }
        duration = .seconds(length.seconds)
    }

    init(_ duration: MuteDuration) { self.duration = duration }

    var defaultValueDescription: String {
        if case .seconds(let seconds) = duration { "\(seconds)s" } else { "forever" }
    }
}

/// `marmot mute CHAT [--for 8h|1w|forever]`.
struct MuteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mute",
        abstract: "Mute a chat for a while or for good: its unread count stays, it never asks for attention.",
        discussion: """
            A timed mute ends by itself. Kept on this device (across restarts), never sent to anyone; \
            `marmot chats` marks the chat "muted" (with --json: `muted`, `mutedUntil`). A muted chat \
            that is archived stays archived when messages arrive.

            Examples:
              marmot mute 3f9a… --for 8h
              marmot mute 3f9a… --for 1w --json
              marmot mute 3f9a…
            """
    )

    @Argument(help: ArgumentHelp("The chat's id (or a unique prefix) from `marmot chats`.", valueName: "chat"))
    var chat: String

    @Option(name: .customLong("for"), help: ArgumentHelp("How long: 30m, 8h, 1d, 1w, … or forever.", valueName: "duration"))
    var length = MuteLength(.forever)

    @OptionGroup var relay: RelayOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await ChatPreferenceFlows.change(
            chat, operation: .muteChat, verb: "muted", Invocation(relay: relay, output: output)
        ) { .muteChat(chatID: $0, duration: length.duration) }
    }
}

/// `marmot unmute CHAT`.
struct UnmuteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unmute", abstract: "Unmute a chat (its unread messages ask for attention again).",
        discussion: "Example:\n  marmot unmute 3f9a…")

    @Argument(help: ArgumentHelp("The chat's id (or a unique prefix) from `marmot chats`.", valueName: "chat"))
    var chat: String
    @OptionGroup var relay: RelayOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await ChatPreferenceFlows.change(
            chat, operation: .unmuteChat, verb: "unmuted", Invocation(relay: relay, output: output)) { .unmuteChat(chatID: $0) }
    }
}

/// `marmot archive CHAT`.
struct ArchiveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "archive",
        abstract: "Archive a chat: `marmot chats` leaves it out (see `marmot chats --archived`).",
        discussion: """
            It comes back by itself when a new message arrives while it is not muted, or with \
            `marmot unarchive`. Kept on this device (across restarts), never sent to anyone; you \
            stay a member and can still read and send there.

            Examples:
              marmot archive 3f9a…
              marmot chats --archived
            """)

    @Argument(help: ArgumentHelp("The chat's id (or a unique prefix) from `marmot chats`.", valueName: "chat"))
    var chat: String
    @OptionGroup var relay: RelayOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await ChatPreferenceFlows.change(
            chat, operation: .archiveChat, verb: "archived", Invocation(relay: relay, output: output)) { .archiveChat(chatID: $0) }
    }
}

/// `marmot unarchive CHAT`.
struct UnarchiveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unarchive", abstract: "Bring an archived chat back to `marmot chats`.",
        discussion: "Example:\n  marmot unarchive 3f9a…")

    @Argument(help: ArgumentHelp("The chat's id (or a unique prefix) from `marmot chats --archived`.", valueName: "chat"))
    var chat: String
    @OptionGroup var relay: RelayOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await ChatPreferenceFlows.change(
            chat, operation: .unarchiveChat, verb: "unarchived", Invocation(relay: relay, output: output)
        ) { .unarchiveChat(chatID: $0) }
    }
}

/// `marmot block NPUB`.
struct BlockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "block",
        abstract: "Block a person: their invitations are dropped, a 1:1 with them is hidden, their group messages collapsed.",
        discussion: """
            Nothing is sent to anyone about it. Their new invitations are not listed (nor accepted), \
            a 1:1 chat with them leaves `marmot chats` and refuses sends (exit code 11), and their \
            messages in groups show as "Message from a blocked person". Kept on this device across \
            restarts; undo with `marmot unblock`.

            Examples:
              marmot block npub1…
              marmot blocked --json
            """)

    @Argument(help: ArgumentHelp("The person's npub.", valueName: "npub"))
    var npub: String
    @OptionGroup var relay: RelayOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await ChatPreferenceFlows.block(npub, block: true, Invocation(relay: relay, output: output))
    }
}

/// `marmot unblock NPUB`.
struct UnblockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unblock",
        abstract: "Unblock a person: their chat, invitations and messages show again.",
        discussion: "Example:\n  marmot unblock npub1…")

    @Argument(help: ArgumentHelp("The person's npub.", valueName: "npub"))
    var npub: String
    @OptionGroup var relay: RelayOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await ChatPreferenceFlows.block(npub, block: false, Invocation(relay: relay, output: output))
    }
}

/// `marmot blocked`.
struct BlockedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "blocked",
        abstract: "List the people you blocked (with --json: npub, pubkey, blockedAt), longest blocked first.",
        discussion: "Examples:\n  marmot blocked\n  marmot blocked --json | jq -r .npub")

    @OptionGroup var relay: RelayOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await ChatPreferenceFlows.listBlocked(Invocation(relay: relay, output: output))
    }
}

/// What mute, archive and block do: dispatch the action, wait for its outcome, print it.
@MainActor
enum ChatPreferenceFlows {
    struct Changed: Encodable {
        let chat: String
        let change: String
        let muted: Bool
        let mutedUntil: Int64?
        let archived: Bool
    }

    struct BlockChanged: Encodable {
        let npub: String
        let blocked: Bool
    }

    struct BlockedRow: Encodable {
        let npub: String
        let pubkey: String
        let blockedAt: Int64
        let time: String
    }

    static func change(
        _ argument: String, operation: UserOperation, verb: String, _ invocation: Invocation,
        action: @escaping (ChatID) -> AppAction
    ) async throws {
        try invocation.requireStoredAccount()
        try await invocation.withSession(publishKeyPackage: false) { session in
            try await session.requireAccount()
            try await session.untilSynced()
            let id = try session.chatID(argument)
            try await session.perform(action(id), operation: operation, waiting: "the chat to be \(verb)")
            guard let row = session.state.chatList.first(where: { $0.chatID == id }) else {
                throw CLIError(.failure, "chat \(argument) is no longer listed")
            }
            let mark = row.muteLabel.map { " (\($0))" } ?? ""
            Output.emit(
                Changed(chat: id.rawValue, change: verb, muted: row.isMuted, mutedUntil: row.mutedUntil, archived: row.isArchived),
                json: invocation.json, text: "Chat \(id): \(verb)\(mark)")
        }
    }

    static func block(_ npub: String, block: Bool, _ invocation: Invocation) async throws {
        try invocation.requireStoredAccount()
        try await invocation.withSession(publishKeyPackage: false) { session in
            try await session.requireAccount()
            try await session.untilSynced()
            let operation: UserOperation = block ? .blockPerson : .unblockPerson
            try await session.perform(
                block ? .blockPerson(npub: npub) : .unblockPerson(npub: npub), operation: operation,
                waiting: block ? "the block" : "the unblock")
            let trimmed = npub.trimmingCharacters(in: .whitespacesAndNewlines)
            Output.emit(
                BlockChanged(npub: trimmed, blocked: block), json: invocation.json,
                text: block ? "Blocked \(trimmed) (nothing was sent to anyone)" : "Unblocked \(trimmed)")
        }
    }

    static func listBlocked(_ invocation: Invocation) async throws {
        try invocation.requireStoredAccount()
        try await invocation.withSession(publishKeyPackage: false) { session in
            try await session.requireAccount()
            try await session.untilSynced()
            let rows = session.state.blocked.people.map {
                BlockedRow(npub: $0.npub, pubkey: $0.pubkey, blockedAt: $0.blockedAt, time: $0.blockedTimeDisplay)
            }
            if invocation.json {
                rows.forEach { Output.json($0) }
            } else if rows.isEmpty {
                Output.line("Nobody is blocked.")
            } else {
                rows.forEach { Output.line("\($0.npub)  blocked \($0.time)") }
            }
        }
    }
}

extension CLISession {
    /// Dispatches `action` and waits for its outcome; a failure ends with its code.
    func perform(_ action: AppAction, operation: UserOperation, waiting what: String) async throws(CLIError) {
        let mark = outcomeMark
        dispatch(action)
        _ = try await until(what, timeout: .seconds(30)) { state throws(CLIError) -> Bool? in
            guard let outcome = state.lastOutcome, outcome.sequence > mark, outcome.operation == operation else { return nil }
            if !outcome.isSuccess { throw OutcomeExit.error(outcome) }
            return true
        }
    }
}
