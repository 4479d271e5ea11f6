import ArgumentParser
import Foundation
import MarmotCore

/// `marmot group …`: named group chats (create, members, admins, rename, add, remove, leave).
struct GroupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "group",
        abstract: "Group chats: create, add, remove, rename, image, promote, demote, leave, members.",
        discussion: """
            Only admins add, remove, rename, change admins, set disappearing messages and disband; anyone may \
            leave. Exit code 4 for an invalid npub, 5 when an invitee has no key package, 6 when no relay \
            took the change, 10 in a chat you left or were removed from. With --json, changes print the \
            chat as it is after them.

            Examples:
              marmot group create --name "Climbing" npub1… npub1…
              marmot group add <chat-id> npub1…
              marmot group retention <chat-id> 1d
              marmot group image <chat-id> team.png
              marmot group members <chat-id> --json
              marmot group add-devices <chat-id>
            """,
        subcommands: [
            Create.self, Add.self, Remove.self, Rename.self, Image.self, Promote.self, Demote.self, Retention.self, Disband.self, Leave.self,
            Members.self, AddDevices.self,
        ]
    )

    struct Disband: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Close a v2 group you administer for every member, for good (its history stays readable).")
        @OptionGroup var target: GroupTarget
        func run() async throws {
            try await GroupFlows.change(target.chat, "disbanded", target.invocation) { id in .disbandChat(chatID: id) }
        }
    }

    struct Retention: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set how long messages live in a v2 group you administer (disappearing messages).",
            discussion: """
                DURATION is a number with a unit (30s, 10m, 12h, 1d, 2w), plain seconds, or "off". Every \
                member's client deletes each message that long after it was sent. v1 chats have no \
                disappearing messages (the change is refused).
                """)
        @OptionGroup var target: GroupTarget
        @Argument(help: ArgumentHelp("How long messages live, or off.", valueName: "duration")) var duration: RetentionDuration
        func run() async throws {
            let seconds = duration.seconds
            let verb = seconds == 0 ? "disappearing messages off" : "messages disappear after \(seconds) s"
            try await GroupFlows.change(target.chat, verb, target.invocation) { id in
                .setRetention(chatID: id, seconds: seconds)
            }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a named group with these npubs and print its id.")
        @Option(help: "The group's name.") var name: String
        @Argument(help: ArgumentHelp("The members' npubs.", valueName: "npub")) var npubs: [String]
        @OptionGroup var relay: RelayOptions
        @OptionGroup var output: OutputOptions
        func run() async throws {
            try await GroupFlows.create(name: name, npubs: npubs, Invocation(relay: relay, output: output))
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add npubs to a group you administer.")
        @OptionGroup var target: GroupTarget
        @Argument(help: ArgumentHelp("The npubs to add.", valueName: "npub")) var npubs: [String]
        func run() async throws {
            try await GroupFlows.change(target.chat, "added \(npubs.count)", target.invocation) { id in
                .addMembers(chatID: id, npubs: npubs)
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a member from a group you administer.")
        @OptionGroup var target: GroupTarget
        @Argument(help: ArgumentHelp("The member's npub.", valueName: "npub")) var npub: String
        func run() async throws {
            try await GroupFlows.change(target.chat, "removed", target.invocation) { id in
                .removeMember(chatID: id, npub: npub)
            }
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Rename a group you administer.")
        @OptionGroup var target: GroupTarget
        @Argument(help: ArgumentHelp("The new name.", valueName: "name")) var name: String
        func run() async throws {
            try await GroupFlows.change(target.chat, "renamed", target.invocation) { id in
                .renameChat(chatID: id, name: name)
            }
        }
    }

    struct Promote: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make a member an admin.")
        @OptionGroup var target: GroupTarget
        @Argument(help: ArgumentHelp("The member's npub.", valueName: "npub")) var npub: String
        func run() async throws {
            try await GroupFlows.change(target.chat, "promoted", target.invocation) { id in
                .setAdmin(chatID: id, npub: npub, isAdmin: true)
            }
        }
    }

    struct Demote: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Take admin rights from a member (your own npub: step down).")
        @OptionGroup var target: GroupTarget
        @Argument(help: ArgumentHelp("The member's npub.", valueName: "npub")) var npub: String
        func run() async throws {
            try await GroupFlows.change(target.chat, "demoted", target.invocation) { id in
                .setAdmin(chatID: id, npub: npub, isAdmin: false)
            }
        }
    }

    struct Leave: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Leave a group (an admin of it commits your departure).")
        @OptionGroup var target: GroupTarget
        func run() async throws {
            try await GroupFlows.change(target.chat, "left", target.invocation) { id in .leaveChat(chatID: id) }
        }
    }

    struct AddDevices: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add-devices",
            abstract: "Add your other linked devices (see `marmot devices`) to a chat you administer.",
            discussion: """
                Each linked device of this account that is not in the chat yet is added with its newest key \
                package; it reads the chat from then on (no earlier messages). Exit code 1 when no other \
                device is linked or all are in the chat already.
                """)
        @OptionGroup var target: GroupTarget
        func run() async throws {
            try await GroupFlows.change(target.chat, "added your other devices", target.invocation, operation: .addMyDevices) { id in
                .addMyDevices(chatID: id)
            }
        }
    }

    struct Members: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a chat's members and admins.")
        @OptionGroup var target: GroupTarget
        func run() async throws {
            try await GroupFlows.members(target.chat, target.invocation)
        }
    }
}

/// The chat a `group` subcommand acts on, and the options every command has.
struct GroupTarget: ParsableArguments {
    @Argument(help: ArgumentHelp("The chat id (or a unique prefix).", valueName: "chat-id")) var chat: String
    @OptionGroup var relay: RelayOptions
    @OptionGroup var output: OutputOptions

    @MainActor var invocation: Invocation { Invocation(relay: relay, output: output) }
}

/// What `group …` does: dispatch the core's group actions and wait for their outcome.
@MainActor
enum GroupFlows {
    /// What a group command did and the chat as the core shows it after the change.
    struct Done: Encodable {
        let chat: String
        let name: String
        let members: Int
        let change: String
        /// The admins' npubs after the change (nil for `create`, printed before any change).
        var admins: [String]?
        /// False after leaving.
        var member: Bool?
        /// How long messages live after the change, in seconds (0: kept).
        var retentionSeconds: UInt64?
        /// The group picture's state after the change (none, loading, available, failed).
        var image: String?
    }

    struct MemberList: Encodable {
        let chat: String
        let name: String
        let members: [String]
        let admins: [String]
        let canManage: Bool
        /// Devices (MLS leaves) per member npub, for those with more than one (issue 29).
        let devices: [String: Int]
    }

    static func create(name: String, npubs: [String], _ invocation: Invocation) async throws {
        try invocation.requireStoredAccount()
        try await invocation.withSession(publishKeyPackage: false) { session in
            try await session.requireAccount()
            try await session.untilSynced()
            let mark = session.outcomeMark
            session.dispatch(.createGroup(name: name, memberNpubs: npubs))
            let chat = try await session.until("the group to be created", timeout: .seconds(90)) { state throws(CLIError) -> ChatViewState? in
                if let failure = OutcomeExit.failure(in: state, after: mark, of: [.createGroup]) { throw failure }
                guard let outcome = state.lastOutcome, outcome.sequence > mark, outcome.operation == .createGroup,
                      outcome.isSuccess, let chat = state.currentChat
                else { return nil }
                return chat
            }
            let done = Done(chat: chat.chatID.rawValue, name: chat.displayName, members: chat.memberCount, change: "created")
            Output.emit(done, json: invocation.json, text: "Created group \(chat.chatID) (\(chat.displayName), \(chat.memberCount) members)")
        }
    }

    static func change(
        _ argument: String, _ verb: String, _ invocation: Invocation, operation: UserOperation = .changeGroup,
        _ action: @escaping (ChatID) -> AppAction
    ) async throws {
        try invocation.requireStoredAccount()
        try await invocation.withSession(publishKeyPackage: false) { session in
            try await session.requireAccount()
            try await session.untilSynced()
            let id = try session.chatID(argument)
            let mark = session.outcomeMark
            session.dispatch(action(id))
            // The core puts the chat as changed into the state with the outcome (issue 30), so the
            // row read in the same state is the new one.
            let row = try await session.until("the group change", timeout: .seconds(90)) { state throws(CLIError) -> ChatSummary? in
                guard let outcome = state.lastOutcome, outcome.sequence > mark,
                      outcome.operation == operation
                else { return nil }
                if !outcome.isSuccess { throw OutcomeExit.error(outcome) }
                return state.chatList.first { $0.chatID == id }
            }
            let done = Done(
                chat: id.rawValue, name: row.displayName, members: row.memberCount, change: verb, admins: row.adminNpubs,
                member: row.isMember, retentionSeconds: row.retentionSeconds, image: row.image.name)
            Output.emit(done, json: invocation.json, text: "Group \(id): \(verb)")
        }
    }

    static func members(_ argument: String, _ invocation: Invocation) async throws {
        try invocation.requireStoredAccount()
        try await invocation.withSession(publishKeyPackage: false) { session in
            try await session.requireAccount()
            try await session.untilSynced()
            let id = try session.chatID(argument)
            session.dispatch(.openChat(chatID: id))
            let chat = try await session.until("the chat to open", timeout: .seconds(30)) { state -> ChatViewState? in
                state.currentChat?.chatID == id ? state.currentChat : nil
            }
            let me: String? = if case .loggedIn(let npub, _) = session.state.auth { npub } else { nil }
            let list = MemberList(
                chat: id.rawValue, name: chat.displayName, members: ([me].compactMap { $0 } + chat.memberNpubs),
                admins: chat.adminNpubs, canManage: chat.canManage,
                devices: Dictionary(chat.members.filter { $0.deviceCount > 1 }.map { ($0.npub, $0.deviceCount) }) { first, _ in first })
            let text = list.members.map { npub in
                (list.admins.contains(npub) ? "admin   " : "member  ") + npub + (npub == me ? "  (you)" : "")
                    + (list.devices[npub].map { "  (\($0) devices)" } ?? "")
            }.joined(separator: "\n")
            Output.emit(list, json: invocation.json, text: text)
        }
    }
}

extension CLISession {
    /// The chat `argument` names: its id or a unique prefix of it (`.usage` otherwise).
    func chatID(_ argument: String) throws(CLIError) -> ChatID {
        let wanted = argument.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        let matches = state.chatList.filter { $0.chatID.rawValue.lowercased().hasPrefix(wanted) }
        if let exact = matches.first(where: { $0.chatID.rawValue.lowercased() == wanted }) { return exact.chatID }
        guard matches.count == 1, !wanted.isEmpty else {
            throw CLIError(.usage, matches.isEmpty ? "no chat \(argument) (see `marmot chats`)" : "\"\(argument)\" matches \(matches.count) chats")
        }
        return matches[0].chatID
    }
}
