import ArgumentParser
import Foundation
import Logging
import MarmotCore

/// `marmot invites`: the pending invitations, as the chat list shows them above the chats.
struct InvitesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "invites",
        abstract: "List pending invitations: id, inviter npub, title and member count.",
        discussion: """
            Nobody joins a chat without saying so: an invitation waits here until `marmot accept <id>` \
            or `marmot decline <id>`. Newest first.

            Examples:
              marmot invites
              marmot invites --json | jq -r '.id'
            """
    )

    @OptionGroup var relay: RelayOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await InviteFlows.list(Invocation(relay: relay, output: output))
    }
}

/// `marmot accept <invite-id>`: join the chat an invitation is for.
struct AcceptCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accept",
        abstract: "Accept a pending invitation: join its chat and print the chat id.",
        discussion: """
            The id is one from `marmot invites` (a unique prefix of it is enough). Exit code 9 when no \
            pending invitation has that id, 6 when the relays could not be reached.

            Examples:
              marmot accept 3f2a…e9
              marmot accept "$(marmot invites --json | jq -r '.id' | head -1)" --json
            """
    )

    @Argument(help: ArgumentHelp("An invitation id from `marmot invites`.", valueName: "invite-id"))
    var inviteID: String

    @OptionGroup var relay: RelayOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await InviteFlows.answer(inviteID, accept: true, Invocation(relay: relay, output: output))
    }
}

/// `marmot decline <invite-id>`: refuse an invitation.
struct DeclineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decline",
        abstract: "Decline a pending invitation; nothing of its chat is kept.",
        discussion: """
            The id is one from `marmot invites` (a unique prefix of it is enough). Exit code 9 when no \
            pending invitation has that id.

            Examples:
              marmot decline 3f2a…e9
            """
    )

    @Argument(help: ArgumentHelp("An invitation id from `marmot invites`.", valueName: "invite-id"))
    var inviteID: String

    @OptionGroup var relay: RelayOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await InviteFlows.answer(inviteID, accept: false, Invocation(relay: relay, output: output))
    }
}

/// What `invites`, `accept` and `decline` do: render `AppState.invites`, dispatch the answer, and
/// wait for the core to report it.
@MainActor
enum InviteFlows {
    /// One row of `invites` (and the invitations shown by `chats`).
    struct InviteRow: Encodable {
        let type = "invite"
        let id: String
        let inviter: String
        let title: String
        let groupName: String
        let members: Int
        let time: String

        init(_ invite: InviteSummary) {
            id = invite.inviteID.rawValue
            inviter = invite.inviterNpub
            title = invite.title
            groupName = invite.groupName
            members = invite.memberCount
            time = invite.receivedTimeDisplay
        }

        var text: String {
            "\(id)  \(inviter)  \(members) members  \(time.isEmpty ? "-" : time)  \(title)"
        }
    }

    /// What `accept`/`decline` print.
    struct Answered: Encodable {
        let invite: String
        let accepted: Bool
        let inviter: String
        /// The chat joined (accept only).
        let chat: String?
        let title: String?
    }

    static func list(_ invocation: Invocation) async throws {
        try invocation.requireStoredAccount()
        try await invocation.withSession(publishKeyPackage: false) { session in
            try await session.requireAccount()
            try await session.untilSynced()
            let rows = session.state.invites.map(InviteRow.init)
            if invocation.json {
                rows.forEach { Output.json($0) }
            } else if rows.isEmpty {
                Output.line("No pending invitations.")
            } else {
                rows.forEach { Output.line($0.text) }
                Output.line("Answer with `marmot accept <id>` or `marmot decline <id>`.")
            }
        }
    }

    static func answer(_ argument: String, accept: Bool, _ invocation: Invocation) async throws {
        try invocation.requireStoredAccount()
        try await invocation.withSession(publishKeyPackage: false) { session in
            try await session.requireAccount()
            try await session.untilSynced()
            let invite = try await session.pendingInvite(argument)
            let id = invite.inviteID
            let chat = try await session.answer(invite, accept: accept)
            let answered = Answered(
                invite: id.rawValue, accepted: accept, inviter: invite.inviterNpub, chat: chat?.chatID.rawValue,
                title: chat?.displayName)
            let text =
                if let chat { "Joined chat \(chat.chatID) (\(chat.displayName)), invited by \(invite.inviterNpub)" } else {
                    "Declined the invitation from \(invite.inviterNpub)"
                }
            Output.emit(answered, json: invocation.json, text: text)
        }
    }
}

extension CLISession {
    /// Dispatches the answer to `invite` and waits until the core no longer lists it nor works on
    /// it; for an accept, returns the joined chat once the core has opened it. A failed outcome of
    /// the answer ends the wait with its code.
    func answer(_ invite: InviteSummary, accept: Bool, timeout: Duration = .seconds(90)) async throws(CLIError) -> ChatViewState? {
        let mark = outcomeMark
        let id = invite.inviteID
        dispatch(accept ? .acceptInvite(inviteID: id) : .declineInvite(inviteID: id))
        _ = try await until("the answer to invitation \(id)", timeout: timeout) { (state: AppState) throws(CLIError) -> Bool? in
            if state.busy.answeringInvites.contains(id) { return nil }
            if !state.invites.contains(where: { $0.inviteID == id }) { return true }
            if let failure = OutcomeExit.failure(in: state, after: mark, of: [.acceptInvite, .declineInvite]) {
                throw failure
            }
            return nil
        }
        guard accept else { return nil }
        let chat = try await until("the joined chat to open", timeout: .seconds(30)) { (state: AppState) -> ChatViewState? in
            if case .chat(let chatID) = state.router.topScreen, let chat = state.currentChat, chat.chatID == chatID {
                return chat
            }
            return nil
        }
        // The join finishes with the new member's key update (MIP-02); exiting before it would leave
        // it to a later run, where it can race the group's next commit. Past the bound it stays owed.
        do {
            _ = try await until("the join of \(chat.chatID) to finish", timeout: joinFinishTimeout) { (state: AppState) -> Bool? in
                state.busy.finishingJoins.contains(chat.chatID) ? nil : true
            }
        } catch {
            Logger(label: "marmot.cli").notice(
                "the join's key update is still owed; it is sent on a later run", metadata: ["chat": "\(chat.chatID)"])
        }
        return chat
    }

    /// How long `accept` waits for a join to finish before exiting with the key update still owed.
    var joinFinishTimeout: Duration { .seconds(20) }

    /// The pending invitation `argument` names (its id or a unique prefix of it), looked up once the
    /// session has caught up (`untilSynced`): an id not listed then is unknown (`.noInvitation`).
    func pendingInvite(_ argument: String) async throws(CLIError) -> InviteSummary {
        let wanted = argument.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        guard !wanted.isEmpty else { throw CLIError(.usage, "the invitation id is empty") }
        func match(_ invites: [InviteSummary]) throws(CLIError) -> InviteSummary? {
            if let exact = invites.first(where: { $0.inviteID.rawValue.lowercased() == wanted }) { return exact }
            let candidates = invites.filter { $0.inviteID.rawValue.lowercased().hasPrefix(wanted) }
            if candidates.count > 1 {
                throw CLIError(.usage, "\"\(argument)\" matches \(candidates.count) invitations; give more of the id")
            }
            return candidates.first
        }
        try await untilSynced()
        if let found = try match(state.invites) { return found }
        let joined = state.chatList.contains { $0.chatID.rawValue.lowercased() == wanted }
        let hint = joined ? " (that chat is already joined: see `marmot chats`)" : " (see `marmot invites`)"
        throw CLIError(.noInvitation, "no pending invitation \(argument)\(hint)")
    }
}
