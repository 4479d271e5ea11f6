import ArgumentParser
import Foundation
import MarmotCore

/// `marmot send`: one message to an npub or a chat id.
struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Send a message to an npub (finding or starting the 1:1 chat) or a chat id.",
        discussion: """
            Waits until the relays accept the message. Exit code 6 when it was not sent, 5 when the \
            npub has no key package (no chat can be started), 4 for an invalid npub, 10 when you are no \
            longer a member of that chat (you left or were removed; it stays readable).

            With --file, sends a picture or file (MIP-04): encrypted for the chat, uploaded to your \
            first Blossom server (`marmot blossom`), and referenced by the message; the text, if any, \
            is its caption. Exit code 6 also when the upload failed.

            Examples:
              marmot send npub1… "hello"
              marmot send 3f2a…e9 "see you at 6" --json
              marmot send 3f2a…e9 --file ~/photo.jpg "the view"
            """
    )

    @Argument(help: ArgumentHelp("An npub, or a chat id from `marmot chats`.", valueName: "npub|chat-id"))
    var target: String

    @Argument(help: ArgumentHelp("The message; several words are joined with spaces (with --file: the caption, optional).", valueName: "text"))
    var text: [String] = []

    @Option(name: .long, help: ArgumentHelp("A picture or file to send (at most 100 MB).", valueName: "path"))
    var file: String?

    @OptionGroup var relay: RelayOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        // The core ignores blank messages; say so instead of waiting for one that never comes.
        if file == nil, text.joined(separator: " ").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw ValidationError("the message is empty")
        }
    }

    func run() async throws {
        let attachment = try file.map(SendFlow.readAttachment)
        try await SendFlow.run(
            target: target, text: text.joined(separator: " "), attachment: attachment, Invocation(relay: relay, output: output))
    }
}

/// What `send` does: open the chat through the core, dispatch `sendMessage`, follow its delivery.
@MainActor
enum SendFlow {
    struct Sent: Encodable {
        let chat: String
        let peer: String
        let message: String
        let delivery: String
        let reason: String?
        let ms: Int
    }

    static func run(target: String, text: String, attachment: OutgoingAttachment? = nil, _ invocation: Invocation) async throws {
        try invocation.requireStoredAccount()
        try await invocation.withSession(publishKeyPackage: false) { session in
            try await session.requireAccount()
            try await session.untilSynced()
            let chatID = ChatID(target.trimmingCharacters(in: .whitespacesAndNewlines))
            let chat: ChatViewState
            if session.state.chatList.contains(where: { $0.chatID == chatID }) {
                chat = try await session.openChat(id: chatID)
            } else {
                do throws(CLIError) {
                    chat = try await session.openChat(with: target)
                } catch {
                    throw explain(error, target: target)
                }
            }
            let start = ContinuousClock.now
            let sent = try await session.send(text, attachment: attachment, in: chat.chatID)
            let outcome = try await session.untilDelivered(sent, in: chat.chatID)
            let ms = start.duration(to: .now).milliseconds
            switch outcome.delivery {
            case .failed(let reason):
                if invocation.json {
                    Output.json(Sent(chat: chat.chatID.rawValue, peer: chat.peerNpub, message: sent.rawValue,
                                     delivery: "failed", reason: reason, ms: ms))
                }
                throw CLIError(.notSent, "message not sent: \(reason)")
            case .sent, .pending:
                Output.emit(
                    Sent(chat: chat.chatID.rawValue, peer: chat.peerNpub, message: sent.rawValue, delivery: "sent",
                         reason: nil, ms: ms),
                    json: invocation.json, text: "Sent to \(chat.peerNpub) in chat \(chat.chatID) (\(ms) ms)")
            }
        }
    }
}

extension SendFlow {
    /// Reads a file to send: its bytes, its name and a MIME type guessed from its extension.
    nonisolated static func readAttachment(_ path: String) throws -> OutgoingAttachment {
        let url = URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? nil
        guard let size else { throw CLIError(.usage, "cannot read \(path): no such file") }
        guard size <= 100 * 1024 * 1024 else { throw CLIError(.usage, "\(path) is larger than 100 MB") }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw CLIError(.usage, "cannot read \(path): \(error.localizedDescription)")
        }
        guard !data.isEmpty else { throw CLIError(.usage, "\(path) is empty") }
        return OutgoingAttachment(data: data, filename: url.lastPathComponent, mimeType: MIMEType.guess(url.pathExtension))
    }

    /// Adds that a target which is not an npub was not a known chat id either.
    static func explain(_ error: CLIError, target: String) -> CLIError {
        guard error.code == .invalidKey, !target.hasPrefix("npub") else { return error }
        return CLIError(.invalidKey, "\(error.message) (\"\(target)\" is not a chat id from `marmot chats` either)")
    }
}

extension CLISession {
    /// Dispatches `sendMessage` into the open chat and returns the id of the message it queued: the
    /// one the core's outcome for this send names (in any delivery state: on a fast relay it is sent
    /// before this watch sees it pending), or a new message of ours still pending. A message of ours
    /// that merely appears (loaded from the store) is never taken for it.
    func send(
        _ text: String, attachment: OutgoingAttachment? = nil, in chatID: ChatID, timeout: Duration = .seconds(30)
    ) async throws(CLIError) -> MessageID {
        let mark = outcomeMark
        let known = Set(state.currentChat?.messages.map(\.id) ?? [])
        let operation: UserOperation
        if let attachment {
            operation = .sendAttachment
            dispatch(.sendAttachment(
                chatID: chatID, data: attachment.data, filename: attachment.filename, mimeType: attachment.mimeType,
                caption: text))
        } else {
            operation = .sendMessage
            dispatch(.sendMessage(chatID: chatID, content: text))
        }
        return try await until("the message to be queued", timeout: timeout) { state throws(CLIError) in
            try Self.queuedMessage(in: state, chatID: chatID, after: mark, known: known, operation: operation)
        }
    }

    /// The message a `sendMessage` dispatched after outcome `mark` queued, as `state` shows it: the
    /// one its outcome names (sent, failed or pending), else a new pending message of ours (not in
    /// `known`); nil while neither is there. A failure of the send other than "not sent" throws.
    static func queuedMessage(
        in state: AppState, chatID: ChatID, after mark: UInt64, known: Set<MessageID>,
        operation: UserOperation = .sendMessage
    ) throws(CLIError) -> MessageID? {
        if let outcome = state.lastOutcome, outcome.sequence > mark, outcome.operation == operation,
            let id = outcome.messageID
        {
            return id
        }
        if let failure = OutcomeExit.failure(in: state, after: mark, of: [operation]), state.lastOutcome?.code != .notSent {
            throw failure
        }
        guard let chat = state.currentChat, chat.chatID == chatID else { return nil }
        return chat.messages.last { $0.isMine && $0.delivery == .pending && !known.contains($0.id) }?.id
    }

    /// Waits until message `id` of the open chat is no longer pending.
    func untilDelivered(_ id: MessageID, in chatID: ChatID, timeout: Duration = .seconds(60)) async throws(CLIError)
        -> ChatMessage
    {
        try await until("the relays to accept the message", timeout: timeout) { state in
            guard let chat = state.currentChat, chat.chatID == chatID,
                let message = chat.messages.last(where: { $0.id == id }), message.delivery != .pending
            else { return nil }
            return message
        }
    }
}

extension Duration {
    var milliseconds: Int {
        Int(components.seconds * 1000) + Int(components.attoseconds / 1_000_000_000_000_000)
    }
}
