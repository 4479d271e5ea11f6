import ArgumentParser
import Foundation
import MarmotCore

/// `marmot media save`: writes a message's picture or file to disk (downloaded and decrypted first
/// when it is not on this device).
struct MediaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "media",
        abstract: "Save the pictures and files of messages.",
        subcommands: [Save.self],
        defaultSubcommand: Save.self
    )

    struct Save: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Save a message's attachment to a file.",
            discussion: """
                Downloads the attachment from its Blossom server when it is not on this device, checks the \
                blob's hash, decrypts it (MIP-04) and writes it to PATH (a folder: under the file's own \
                name). `marmot messages` lists attachments with their index. Exit code 1 when the file \
                cannot be fetched or opened (the reason is printed); PATH is then not written.

                Examples:
                  marmot media save 3f2a…e9 9c1d…77 ~/Downloads/
                  marmot media save 3f2a…e9 9c1d…77 photo.jpg --index 1 --json
                """)
        @OptionGroup var target: MessageTarget
        @Argument(help: ArgumentHelp("Where to write it (a file, or an existing folder).", valueName: "path"))
        var path: String
        @Option(help: ArgumentHelp("Which attachment of the message (from 0).", valueName: "n")) var index = 0

        func validate() throws {
            if index < 0 { throw ValidationError("--index is 0 or more") }
        }

        func run() async throws { try await MediaFlow.save(target, path: path, index: index) }
    }
}

/// What `media save` does: find the message, ask the core for the bytes, write them.
@MainActor
enum MediaFlow {
    struct Saved: Encodable {
        let chat: String
        let message: String
        let index: Int
        let path: String
        let bytes: Int
        let mimeType: String
        let ms: Int
    }

    static func save(_ target: MessageTarget, path: String, index: Int) async throws {
        let invocation = target.invocation
        try invocation.requireStoredAccount()
        try await invocation.withSession(publishKeyPackage: false) { session in
            try await session.requireAccount()
            try await session.untilSynced()
            let chatID = try session.knownChat(target.chat)
            let messageID = MessageID(target.message.trimmingCharacters(in: .whitespacesAndNewlines).lowercased())
            _ = try await session.openLoaded(chatID)
            try await session.loadUntilShown(messageID, in: chatID)
            guard let message = session.state.currentChat?.messages.first(where: { $0.id == messageID }) else {
                throw CLIError(.failure, "no message \(messageID) in chat \(chatID)")
            }
            guard message.attachments.indices.contains(index) else {
                throw CLIError(
                    .failure,
                    message.attachments.isEmpty
                        ? "message \(messageID) has no attachment" : "message \(messageID) has no attachment \(index)")
            }
            let attachment = message.attachments[index]
            let start = ContinuousClock.now
            let data: Data
            do {
                data = try await session.attachmentData(chatID: chatID, messageID: messageID, index: index)
            } catch {
                throw CLIError(.failure, "cannot open \(attachment.filename): \((error as? AttachmentError)?.reason ?? "\(error)")")
            }
            let destination = Self.destination(path, filename: attachment.filename)
            do {
                try data.write(to: destination, options: .atomic)
            } catch {
                throw CLIError(.failure, "cannot write \(destination.path): \(error.localizedDescription)")
            }
            let ms = start.duration(to: .now).milliseconds
            Output.emit(
                Saved(chat: chatID.rawValue, message: messageID.rawValue, index: index, path: destination.path,
                      bytes: data.count, mimeType: attachment.mimeType, ms: ms),
                json: invocation.json, text: "Saved \(attachment.label) to \(destination.path) (\(ms) ms)")
        }
    }

    /// `path`, or the attachment's own name inside `path` when it is a folder. The name is the
    /// core's safe base name; anything path-like left in it is cut (a peer chose it).
    nonisolated static func destination(_ path: String, filename: String) -> URL {
        let url = URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue else { return url }
        let base = filename.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        let safe = base.isEmpty || base == "." || base == ".." ? "attachment" : base
        return url.appendingPathComponent(safe)
    }
}
