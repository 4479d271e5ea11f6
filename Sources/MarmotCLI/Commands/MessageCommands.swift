import ArgumentParser
import Foundation
import MarmotCore

/// `marmot react|unreact|reply|edit|delete`: one action on one message of a chat (issue 25).
///
/// Every one names the chat (`marmot chats`) and the message (`marmot messages <chat>` or
/// `marmot listen` show ids), dispatches the core's action and waits for its outcome: 0 once the
/// relays accepted it, else the outcome's exit code and message.
struct ReactCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "react",
        abstract: "React to a message with an emoji (kind 7).",
        discussion: """
            Examples:
              marmot react 3f2a…e9 9b1c…07 👍
              marmot react 3f2a…e9 9b1c…07 ❤️ --json
            """
    )

    @OptionGroup var target: MessageTarget
    @Argument(help: ArgumentHelp("The emoji (at most 64 characters).", valueName: "emoji")) var emoji: String

    func run() async throws {
        try await MessageActionFlow.run(.react, target) {
            .react(chatID: $0, messageID: $1, emoji: emoji)
        }
    }
}

struct UnreactCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unreact",
        abstract: "Take back your reaction to a message (all of yours on it, or only the emoji given).",
        discussion: """
            Exit code 1 with `not_reacted` when you have no such reaction there.

            Examples:
              marmot unreact 3f2a…e9 9b1c…07 👍
            """
    )

    @OptionGroup var target: MessageTarget
    @Argument(help: ArgumentHelp("Only this emoji (default: all of yours).", valueName: "emoji")) var emoji: String?

    func run() async throws {
        try await MessageActionFlow.run(.unreact, target) {
            .unreact(chatID: $0, messageID: $1, emoji: emoji)
        }
    }
}

struct ReplyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reply",
        abstract: "Answer a message: a text that quotes it.",
        discussion: """
            Examples:
              marmot reply 3f2a…e9 9b1c…07 "sounds good"
            """
    )

    @OptionGroup var target: MessageTarget
    @OptionGroup var text: MessageText

    func run() async throws {
        try await MessageActionFlow.run(.reply, target) {
            .reply(chatID: $0, messageID: $1, content: text.joined)
        }
    }
}

struct EditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Replace the text of one of your messages (shown marked edited).",
        discussion: """
            Exit code 1 with `not_author` for someone else's message.

            Examples:
              marmot edit 3f2a…e9 9b1c…07 "see you at 7"
            """
    )

    @OptionGroup var target: MessageTarget
    @OptionGroup var text: MessageText

    func run() async throws {
        try await MessageActionFlow.run(.editMessage, target) {
            .editMessage(chatID: $0, messageID: $1, content: text.joined)
        }
    }
}

struct DeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete one of your messages for everyone (an admin of a named group: anyone's).",
        discussion: """
            Exit code 1 with `not_author` for someone else's message, unless you are an admin of a group \
            that is not a one-to-one chat (as White Noise lets its admins moderate).

            Examples:
              marmot delete 3f2a…e9 9b1c…07 --json
            """
    )

    @OptionGroup var target: MessageTarget

    func run() async throws {
        try await MessageActionFlow.run(.deleteMessage, target) {
            .deleteMessage(chatID: $0, messageID: $1)
        }
    }
}

/// The chat and message a message command acts on (positional, in that order), and the options
/// every command has.
struct MessageTarget: ParsableArguments {
    @Argument(help: ArgumentHelp("A chat id from `marmot chats`.", valueName: "chat-id")) var chat: String
    @Argument(help: ArgumentHelp("A message id from `marmot messages`.", valueName: "message-id")) var message: String
    @OptionGroup var relay: RelayOptions
    @OptionGroup var output: OutputOptions

    @MainActor var invocation: Invocation { Invocation(relay: relay, output: output) }
}

/// The text of a reply or an edit: the remaining words, joined with spaces; never blank.
struct MessageText: ParsableArguments {
    @Argument(help: ArgumentHelp("The text; several words are joined with spaces.", valueName: "text")) var words: [String]

    var joined: String { words.joined(separator: " ") }

    func validate() throws {
        if joined.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { throw ValidationError("the text is empty") }
    }
}

/// What the five commands share: open the chat, find the message, dispatch, follow the outcome.
@MainActor
enum MessageActionFlow {
    struct Done: Encodable {
        let chat: String
        /// The message acted on.
        let message: String
        /// The operation (`react`, `unreact`, `reply`, `edit_message`, `delete_message`).
        let operation: String
        let code: String
        /// The id of the event sent (the reaction, reply, edit or deletion).
        let id: String?
        let ms: Int
    }

    static func run(
        _ operation: UserOperation, _ target: MessageTarget, action: @escaping (ChatID, MessageID) -> AppAction
    ) async throws {
        let (chat, message, invocation) = (target.chat, target.message, target.invocation)
        try invocation.requireStoredAccount()
        try await invocation.withSession(publishKeyPackage: false) { session in
            try await session.requireAccount()
            try await session.untilSynced()
            let chatID = try session.knownChat(chat)
            let messageID = MessageID(message.trimmingCharacters(in: .whitespacesAndNewlines).lowercased())
            _ = try await session.openLoaded(chatID)
            try await session.loadUntilShown(messageID, in: chatID)
            let start = ContinuousClock.now
            let mark = session.outcomeMark
            session.dispatch(action(chatID, messageID))
            let outcome = try await session.until("the relays to accept it", timeout: .seconds(60)) { state in
                guard let outcome = state.lastOutcome, outcome.sequence > mark, outcome.operation == operation else {
                    return nil as OperationOutcome?
                }
                return outcome
            }
            guard outcome.isSuccess else { throw OutcomeExit.error(outcome) }
            let ms = start.duration(to: .now).milliseconds
            Output.emit(
                Done(chat: chatID.rawValue, message: messageID.rawValue, operation: operation.rawValue,
                     code: outcome.code.rawValue, id: outcome.messageID?.rawValue, ms: ms),
                json: invocation.json, text: "Done: \(operation.rawValue) on \(messageID) in chat \(chatID) (\(ms) ms)")
        }
    }
}

extension CLISession {
    /// The chat the core lists under `raw`; a clear failure otherwise.
    func knownChat(_ raw: String) throws(CLIError) -> ChatID {
        let chatID = ChatID(raw.trimmingCharacters(in: .whitespacesAndNewlines))
        guard state.chatList.contains(where: { $0.chatID == chatID }) else {
            throw CLIError(.failure, "no chat \(raw) (see `marmot chats`)")
        }
        return chatID
    }

    /// Opens a listed chat and waits until its newest page is shown.
    func openLoaded(_ chatID: ChatID) async throws(CLIError) -> ChatViewState {
        _ = try await openChat(id: chatID)
        return try await until("chat \(chatID) to load") { state in
            guard let chat = state.currentChat, chat.chatID == chatID, chat.isLoaded else { return nil as ChatViewState? }
            return chat
        }
    }

    /// Pages back (the core's page size) until `messageID` is loaded or no older history is left.
    func loadUntilShown(_ messageID: MessageID, in chatID: ChatID) async throws(CLIError) {
        while true {
            guard let chat = state.currentChat, chat.chatID == chatID else { return }
            if chat.messages.contains(where: { $0.id == messageID }) || !chat.canLoadOlder { return }
            try await loadOlder(chatID)
        }
    }

    /// One older page of the open chat.
    func loadOlder(_ chatID: ChatID) async throws(CLIError) {
        let before = state.currentChat?.messages.first?.id
        dispatch(.loadOlder(chatID: chatID))
        _ = try await until("older messages") { state in
            guard let chat = state.currentChat, chat.chatID == chatID, !chat.isLoadingOlder else { return nil as Bool? }
            return chat.messages.first?.id != before || !chat.canLoadOlder ? true : nil
        }
    }
}
