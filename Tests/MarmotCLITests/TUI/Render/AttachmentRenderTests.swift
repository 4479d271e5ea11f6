import Foundation
import MarmotCore
import Testing

@testable import MarmotCLI

/// Issue 28 in the terminal UI: a media line (name, type, size, state) under a message's text, and
/// ^O on a highlighted message saves its first attachment under `$MARMOT_HOME/downloads/`.
struct AttachmentRenderTests {
    typealias F = TUIFixtures

    static func withPicture(state: AttachmentState = .remote) -> AppState {
        var picture = F.message("m1", "", mine: false, time: "14:01")
        picture.attachments = [ChatAttachment(
            index: 0, filename: "cat.jpg", mimeType: "image/jpeg", size: 2048, width: 640, height: 480, isImage: true,
            state: state, label: "cat.jpg · image/jpeg · 2.0 KB · 640×480")]
        let plain = F.message("m2", "nice", mine: true, time: "14:02")
        return F.inChat(messages: [picture, plain])
    }

    @Test func theMediaLineShowsNameTypeSizeAndState() {
        let text = F.render(Self.withPicture()).joined(separator: "\n")
        #expect(text.contains("📎 cat.jpg · image/jpeg · 2.0 KB · 640×480"), "\(text)")
        let failed = F.render(Self.withPicture(state: .failed(reason: "404"))).joined(separator: "\n")
        #expect(failed.contains("640×480 · failed"), "\(failed)")
    }

    @Test func ctrlOAsksToSaveTheHighlightedMessagesFile() {
        let state = Self.withPicture()
        let onPicture = F.press([.up, .up], on: state)
        #expect(onPicture.ui.selectedMessage == "m1")
        let saving = F.press([.control("o")], on: state, ui: onPicture.ui)
        #expect(saving.actions.isEmpty)
        #expect(saving.ui.saveRequest == .init(chatID: F.alice, messageID: "m1", index: 0, filename: "cat.jpg"))
        // A message without a file: nothing to save.
        let onPlain = F.press([.up], on: state)
        #expect(F.press([.control("o")], on: state, ui: onPlain.ui).ui.saveRequest == nil)
    }

    @Test func theSaverWritesTheCoresBytesAndSaysWhere() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tui-saves-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let bytes = Data("picture bytes".utf8)
        let saver = AttachmentSaver(folder: folder) { _, messageID, _ throws(AttachmentError) -> Data in
            guard messageID == "m1" else { throw AttachmentError(code: .failed, reason: "blob not found (404)") }
            return bytes
        }
        // A peer's name cannot lead the file out of the folder.
        saver.save(.init(chatID: F.alice, messageID: "m1", index: 0, filename: "../../etc/cat.jpg"))
        try await waitFor { saver.notice.hasPrefix("Saved") }
        #expect(try Data(contentsOf: folder.appendingPathComponent("cat.jpg")) == bytes)
        #expect(saver.notice == "Saved cat.jpg to \(folder.appendingPathComponent("cat.jpg").path)")
        saver.save(.init(chatID: F.alice, messageID: "m2", index: 0, filename: "gone.pdf"))
        try await waitFor { saver.notice.hasPrefix("Could not") }
        #expect(saver.notice == "Could not save gone.pdf: blob not found (404)")
    }

    private func waitFor(_ condition: @escaping () -> Bool) async throws {
        for _ in 0..<500 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
        #expect(condition())
    }
}
