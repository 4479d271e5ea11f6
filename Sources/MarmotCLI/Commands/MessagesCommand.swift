import ArgumentParser
import Foundation
import MarmotCore

/// `marmot messages`: a chat's history, oldest first (issue 25).
struct MessagesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "messages",
        abstract: "Print a chat's messages, oldest first, with their ids, reactions, replies and edits.",
        discussion: """
            Prints the newest --limit messages (default 20), or those before --before. Each is one line \
            (one JSON object with --json: `type` "message" or "system", `id`, `chat`, `senderPubkey` (hex), `mine`, \
            `text`, `at`, `time`, `edited`, `replyTo` {`id`, `available`, `text`}, `reactions` \
            [{`emoji`, `count`, `senders`}], `mentionsMe`, `delivery`). Deleted messages are not shown. \
            The ids are what `marmot react`, `reply`, `edit` and `delete` take. Reading a chat marks it \
            read, as opening it in the app does.

            Examples:
              marmot messages 3f2a…e9
              marmot messages 3f2a…e9 --limit 100 --json | jq -r '.text'
              marmot messages 3f2a…e9 --before 9b1c…07
            """
    )

    @Argument(help: ArgumentHelp("A chat id from `marmot chats`.", valueName: "chat-id")) var chat: String
    @Option(help: ArgumentHelp("How many messages (default 20).", valueName: "n")) var limit: Int = 20
    @Option(help: ArgumentHelp("Only messages older than this message id.", valueName: "message-id")) var before: String?
    @OptionGroup var relay: RelayOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if limit < 1 { throw ValidationError("--limit must be at least 1") }
    }

    func run() async throws {
        try await MessagesFlow.run(chat: chat, limit: limit, before: before, Invocation(relay: relay, output: output))
    }
}

@MainActor
enum MessagesFlow {
    struct Quote: Encodable {
        let id: String
        let available: Bool
        let text: String
    }

    struct Reaction: Encodable {
        let emoji: String
        let count: Int
        /// Hex public keys of the people who reacted.
        let senders: [String]
    }

    struct Row: Encodable {
        let type: String
        let id: String
        let chat: String
        let senderPubkey: String
        let mine: Bool
        let text: String
        let at: Int64
        let time: String
        let edited: Bool
        let replyTo: Quote?
        let reactions: [Reaction]
        let mentionsMe: Bool
        let delivery: String
        /// Pictures and files (issue 28): `marmot media save` takes their index.
        let attachments: [Attachment]
        /// `text` as one line, for the text output (not encoded).
        let line: String

        enum CodingKeys: String, CodingKey {
            case type, id, chat, senderPubkey, mine, text, at, time, edited, replyTo, reactions, mentionsMe, delivery
            case attachments
        }
    }

    struct Attachment: Encodable {
        let index: Int
        let filename: String
        let mimeType: String
        let size: Int?
        /// uploading, upload_failed, remote, downloading, available, failed.
        let state: String
        /// While uploading: whole percent uploaded so far.
        let progress: Int?
        /// "photo.jpg · image/jpeg · 1.2 MB".
        let label: String
    }

    static func run(chat: String, limit: Int, before: String?, _ invocation: Invocation) async throws {
        try invocation.requireStoredAccount()
        try await invocation.withSession(publishKeyPackage: false) { session in
            try await session.requireAccount()
            try await session.untilSynced()
            let chatID = try session.knownChat(chat)
            _ = try await session.openLoaded(chatID)
            let anchor = before.map { MessageID($0.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()) }
            if let anchor {
                try await session.loadUntilShown(anchor, in: chatID)
                guard session.state.currentChat?.messages.contains(where: { $0.id == anchor }) == true else {
                    throw CLIError(.failure, "no message \(anchor) in chat \(chatID)")
                }
            }
            // Enough history loaded for `limit` messages before the anchor (or the newest).
            while let view = session.state.currentChat, view.canLoadOlder, shown(view, before: anchor).count < limit {
                try await session.loadOlder(chatID)
            }
            guard let view = session.state.currentChat else { return }
            let rows = shown(view, before: anchor).suffix(limit).map { row($0, in: chatID) }
            if invocation.json {
                rows.forEach { Output.json($0) }
            } else if rows.isEmpty {
                Output.line("No messages.")
            } else {
                rows.forEach { Output.line(text($0)) }
            }
        }
    }

    /// The loaded messages, all of them or those older than `anchor`.
    static func shown(_ view: ChatViewState, before anchor: MessageID?) -> ArraySlice<ChatMessage> {
        guard let anchor, let index = view.messages.firstIndex(where: { $0.id == anchor }) else { return view.messages[...] }
        return view.messages[..<index]
    }

    static func row(_ message: ChatMessage, in chatID: ChatID) -> Row {
        let delivery: String =
            switch message.delivery {
            case .pending: "pending"
            case .sent: "sent"
            case .failed: "failed"
            }
        return Row(
            type: message.kind == .system ? "system" : "message", id: message.id.rawValue, chat: chatID.rawValue,
            senderPubkey: message.senderPubkey, mine: message.isMine, text: message.content, at: message.timestamp,
            time: message.displayTimestamp, edited: message.isEdited,
            replyTo: message.replyTo.map { Quote(id: $0.messageID.rawValue, available: $0.isAvailable, text: $0.text) },
            reactions: message.reactions.map { Reaction(emoji: $0.emoji, count: $0.count, senders: $0.senderPubkeys) },
            mentionsMe: message.mentionsMe, delivery: delivery,
            attachments: message.attachments.map {
                Attachment(
                    index: $0.index, filename: $0.filename, mimeType: $0.mimeType, size: $0.size, state: $0.state.name,
                    progress: $0.progress, label: $0.label)
            },
            line: message.line)
    }

    static func text(_ row: Row) -> String {
        guard row.type == "message" else { return "[\(row.time)] — \(row.line)" }
        let who = row.mine ? "you" : row.senderPubkey
        let quote = row.replyTo.map { "  ↳ re: \($0.text)\n" } ?? ""
        let edited = row.edited ? " (edited)" : ""
        let reactions = row.reactions.isEmpty ? "" : "  " + row.reactions.map { "\($0.emoji) \($0.count)" }.joined(separator: " ")
        let files = row.attachments.map { "\n  📎 [\($0.index)] \($0.label) (\($0.state))" }.joined()
        return "\(quote)[\(row.time)] \(who): \(row.line)\(edited)\(reactions)  [id \(row.id)]\(files)"
    }
}
