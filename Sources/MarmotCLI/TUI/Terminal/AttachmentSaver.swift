import Foundation
import MarmotCore

/// Saves attachments for the interactive client (^O on a message): the core hands over the bytes
/// (downloading and decrypting them first when they are not here), this writes them under
/// `$MARMOT_HOME/downloads/` and words the outcome for the status line.
///
/// The write is the renderer's only effect of its own: the file system is the platform's.
final class AttachmentSaver: @unchecked Sendable {
    typealias Fetch = @Sendable (ChatID, MessageID, Int) async throws(AttachmentError) -> Data

    let folder: URL
    private let fetch: Fetch
    private let lock = NSLock()
    private var text = ""

    init(folder: URL, fetch: @escaping Fetch) {
        self.folder = folder
        self.fetch = fetch
    }

    /// "Saved photo.jpg to …", "Saving photo.jpg…", or why it failed; empty before any save.
    var notice: String { lock.withLock { text } }

    private func say(_ words: String) { lock.withLock { text = words } }

    /// Starts saving attachment `index` of a message; `notice` follows.
    func save(_ request: TUIViewState.SaveRequest) {
        // The folder exists when the name is resolved, so a peer's name stays a name inside it.
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let target = MediaFlow.destination(folder.path, filename: request.filename)
        let name = target.lastPathComponent
        say("Saving \(name)…")
        Task.detached { [self] in
            do {
                let data = try await fetch(request.chatID, request.messageID, request.index)
                try data.write(to: target, options: .atomic)
                say("Saved \(name) to \(target.path)")
            } catch let error as AttachmentError {
                say("Could not save \(name): \(error.reason)")
            } catch {
                say("Could not save \(name): \(error.localizedDescription)")
            }
        }
    }
}
