import ArgumentParser
import Foundation
import MarmotCore

extension GroupCommand {
    /// `marmot group image`: set, clear or save a group's picture.
    struct Image: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set (PATH), remove (--clear) or save (--save OUT) the picture of a group.",
            discussion: """
                Admins set and remove it: the picture (PNG, JPEG, GIF or WebP, at most 10 MB) is \
                encrypted, uploaded to your first Blossom server, then committed as group data (v1: \
                MIP-01 image fields; v2: component 0x8002). Any member saves the current one with \
                --save (downloaded, checked and decrypted first). Exit code 6 when no relay took the \
                change, 10 in a chat you left.

                Examples:
                  marmot group image <chat-id> ~/Pictures/team.png
                  marmot group image <chat-id> --clear --json
                  marmot group image <chat-id> --save team.png
                """)
        @OptionGroup var target: GroupTarget
        @Argument(help: ArgumentHelp("The picture to set.", valueName: "path")) var path: String?
        @Flag(help: "Remove the group's picture.") var clear = false
        @Option(help: ArgumentHelp("Write the current picture to this file.", valueName: "out")) var save: String?

        func validate() throws {
            let chosen = [path != nil, clear, save != nil].filter { $0 }.count
            guard chosen == 1 else { throw ValidationError("Give exactly one of PATH, --clear or --save OUT.") }
        }

        func run() async throws {
            if let save {
                try await GroupFlows.saveImage(target.chat, to: save, target.invocation)
            } else if clear {
                try await GroupFlows.change(target.chat, "picture removed", target.invocation) { id in .clearChatImage(chatID: id) }
            } else if let path {
                let url = URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
                let data: Data
                do { data = try Data(contentsOf: url) } catch {
                    throw CLIError(.usage, "cannot read \(url.path): \(error.localizedDescription)")
                }
                try await GroupFlows.change(target.chat, "picture set", target.invocation) { id in
                    .setChatImage(chatID: id, data: data, mediaType: nil)
                }
            }
        }
    }
}

extension GroupFlows {
    /// What `group image --save` wrote.
    struct SavedImage: Encodable {
        let chat: String
        let path: String
        let bytes: Int
    }

    static func saveImage(_ argument: String, to path: String, _ invocation: Invocation) async throws {
        try invocation.requireStoredAccount()
        try await invocation.withSession(publishKeyPackage: false) { session in
            try await session.requireAccount()
            try await session.untilSynced()
            let id = try session.chatID(argument)
            guard session.state.chatList.first(where: { $0.chatID == id })?.image.isSet == true else {
                throw CLIError(.failure, "chat \(id) has no group picture")
            }
            let data: Data
            do {
                data = try await session.chatImageData(chatID: id)
            } catch {
                throw CLIError(.failure, "cannot open the group picture: \((error as? AttachmentError)?.reason ?? "\(error)")")
            }
            let destination = URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
            do {
                try data.write(to: destination, options: .atomic)
            } catch {
                throw CLIError(.failure, "cannot write \(destination.path): \(error.localizedDescription)")
            }
            Output.emit(
                SavedImage(chat: id.rawValue, path: destination.path, bytes: data.count), json: invocation.json,
                text: "Saved the picture of \(id) to \(destination.path) (\(data.count) bytes)")
        }
    }
}
