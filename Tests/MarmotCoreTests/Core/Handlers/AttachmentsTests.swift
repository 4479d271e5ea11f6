import Foundation
import Nostr
import Testing
@testable import MarmotCore

/// Issue 28: pictures and files in the core: sent through the outbox with their state (uploading,
/// failed with Retry, available), received ones downloaded on request (downloading, available or
/// failed), their bytes handed to renderers, and the Blossom servers named like relays.
@Suite("Attachments")
struct AttachmentsTests {
    static let picture = Data((0..<2048).map { UInt8($0 % 251) })

    /// The attachment states the open chat's updates showed for message `id`, in order, repeats merged.
    static func states(_ h: AppHarness, of id: MessageID) -> [String] {
        var seen: [String] = []
        for update in h.recorder.updates {
            guard let state = currentChat(in: update)?.messages.first(where: { $0.id == id })?.attachments.first?.state.name
            else { continue }
            if seen.last != state { seen.append(state) }
        }
        return seen
    }

    @Test("a file sent shows at once as uploading, then available once sent; its outcome names the message")
    func sendShowsUploadingThenAvailable() async throws {
        let h = AppHarness()
        try await h.createAccount()
        let chatID = try await h.createChat()
        h.dispatch(.sendAttachment(chatID: chatID, data: Self.picture, filename: "view.png", mimeType: "image/png", caption: ""))
        try await h.waitFor("sent") { $0.currentChat?.messages.last?.delivery == .sent }
        try await h.waitForListener()
        let message = try #require(h.state().currentChat?.messages.last)
        let file = try #require(message.attachments.first)
        #expect(file.filename == "view.png")
        #expect(file.mimeType == "image/png")
        #expect(file.isImage)
        #expect(file.label == "view.png · image/png · 2.0 KB")
        #expect(file.state == .available)
        #expect(Self.states(h, of: message.id) == ["uploading", "available"])
        #expect(h.state().lastOutcome?.operation == .sendAttachment)
        #expect(h.state().lastOutcome?.messageID == message.id)
        // The file went to the messaging layer as it was given; the caption is the (empty) text.
        let queued = try #require(await h.service?.queued.last)
        #expect(queued.attachment?.data == Self.picture)
        #expect(queued.content == "")
        // A captionless file is previewed by its name in the chat list.
        #expect(h.state().chatList.first?.lastMessagePreview == "You: 📎 view.png")
        // Our own file's bytes are here at once.
        await h.service?.setAttachmentBytes(Self.picture, for: message.id)
        #expect(try await h.app.attachmentData(chatID: chatID, messageID: message.id, index: 0) == Self.picture)
    }

    @Test("an upload's progress shows on the attachment as it goes, then the file is available")
    func uploadProgressShows() async throws {
        let h = AppHarness()
        try await h.createAccount()
        let chatID = try await h.createChat()
        let gate = Gate()
        await h.service?.holdSends(gate)
        h.dispatch(.sendAttachment(chatID: chatID, data: Self.picture, filename: "big.png", mimeType: "image/png", caption: ""))
        try await h.waitFor("uploading") { $0.currentChat?.messages.last?.attachments.first?.state == .uploading }
        let id = try #require(h.state().currentChat?.messages.last?.id)
        #expect(h.state().currentChat?.messages.last?.attachments.first?.progress == nil)
        for percent in [30, 75] {
            await h.service?.emit(.uploadProgress(chatID: chatID, messageID: id, percent: percent))
            try await h.waitFor("\(percent)%") { $0.currentChat?.messages.last?.attachments.first?.progress == percent }
        }
        #expect(h.state().currentChat?.messages.last?.attachments.first?.stateText == "uploading 75%")
        await gate.open()
        try await h.waitFor("sent") { $0.currentChat?.messages.last?.delivery == .sent }
        let file = try #require(h.state().currentChat?.messages.last?.attachments.first)
        #expect(file.state == .available && file.progress == nil && file.stateText == "")
        try await h.waitForListener()
        var texts: [String] = []
        for update in h.recorder.updates {
            guard let text = currentChat(in: update)?.messages.first(where: { $0.id == id })?.attachments.first?.stateText,
                texts.last != text else { continue }
            texts.append(text)
        }
        #expect(texts == ["uploading", "uploading 30%", "uploading 75%", ""])
    }

    @Test("a failed upload shows upload_failed with its reason; Retry sends it again")
    func failedUploadRetried() async throws {
        let h = AppHarness()
        try await h.createAccount()
        let chatID = try await h.createChat()
        await h.service?.script([.failed(reason: "upload to blossom.example failed: 503")])
        h.dispatch(.sendAttachment(chatID: chatID, data: Self.picture, filename: "a.bin", mimeType: "application/octet-stream", caption: "doc"))
        try await h.waitFor("failed") { $0.currentChat?.messages.last?.attachments.first?.state.name == "upload_failed" }
        let message = try #require(h.state().currentChat?.messages.last)
        #expect(message.attachments.first?.state.reason == "upload to blossom.example failed: 503")
        #expect(message.canRetry)
        #expect(message.content == "doc")
        #expect(h.state().lastOutcome?.operation == .sendAttachment)
        #expect(h.state().lastOutcome?.code == .notSent)
        h.dispatch(.retryMessage(chatID: chatID, messageID: message.id))
        try await h.waitFor("sent on retry") { $0.currentChat?.messages.last?.attachments.first?.state == .available }
        #expect(await h.service?.retried.map(\.id) == [message.id])
    }

    @Test("a failure reason from the network (a Blossom server's X-Reason) reaches the state as one clean line")
    func hostileFailureReasonIsCleaned() async throws {
        let h = AppHarness()
        try await h.createAccount()
        let chatID = try await h.createChat()
        let peer = Keys.generate().publicKey
        var record = MessageRecord(id: "m-evil", chatID: chatID, sender: peer, content: "open me", createdAt: AppHarness.nowSeconds)
        record.attachments = [AttachmentInfo(filename: "x.png", mimeType: "image/png", size: 10, isHere: false)]
        await h.service?.emit(.messageReceived(record))
        try await h.waitFor("shown") { $0.currentChat?.messages.last?.attachments.first?.state == .remote }
        await h.service?.failAttachments("refused (403): \u{1B}[2J\u{1B}]0;pwned\u{07}gone\n[12:00] alice: forged line\u{202E}")
        h.dispatch(.downloadAttachment(chatID: chatID, messageID: "m-evil", index: 0))
        try await h.waitFor("failed") { $0.currentChat?.messages.last?.attachments.first?.state.reason != nil }
        let reason = try #require(h.state().currentChat?.messages.last?.attachments.first?.state.reason)
        #expect(reason == "refused (403): [2J]0;pwnedgone [12:00] alice: forged line")
        let outcome = h.state().lastOutcome?.message ?? ""
        #expect(outcome.hasSuffix(reason))
        #expect(!outcome.unicodeScalars.contains { $0.properties.generalCategory == .control })
    }

    @Test("a received picture is remote until asked for; downloading goes to available and its bytes come back")
    func receivedPictureDownloaded() async throws {
        let h = AppHarness()
        try await h.createAccount()
        let chatID = try await h.createChat()
        let peer = Keys.generate().publicKey
        var record = MessageRecord(id: "m-pic", chatID: chatID, sender: peer, content: "look", createdAt: AppHarness.nowSeconds)
        record.attachments = [AttachmentInfo(filename: "cat.jpg", mimeType: "image/jpeg", size: 2048, width: 640, height: 480, isHere: false)]
        await h.service?.emit(.messageReceived(record))
        try await h.waitFor("shown") { $0.currentChat?.messages.last?.attachments.first?.state == .remote }
        let shown = try #require(h.state().currentChat?.messages.last?.attachments.first)
        #expect(shown.canDownload)
        #expect(shown.label == "cat.jpg · image/jpeg · 2.0 KB · 640×480")
        await h.service?.setAttachmentBytes(Self.picture, for: "m-pic")
        h.dispatch(.downloadAttachment(chatID: chatID, messageID: "m-pic", index: 0))
        try await h.waitFor("downloaded") { $0.currentChat?.messages.last?.attachments.first?.state == .available }
        try await h.waitForListener()
        #expect(Self.states(h, of: "m-pic") == ["remote", "downloading", "available"])
        #expect(h.state().lastOutcome?.operation == .downloadAttachment)
        #expect(h.state().lastOutcome?.isSuccess == true)
        #expect(try await h.app.attachmentData(chatID: chatID, messageID: "m-pic", index: 0) == Self.picture)
    }

    @Test("a download that fails shows why and may be tried again; a missing attachment is a clear error")
    func failedDownload() async throws {
        let h = AppHarness()
        try await h.createAccount()
        let chatID = try await h.createChat()
        var record = MessageRecord(
            id: "m-gone", chatID: chatID, sender: Keys.generate().publicKey, content: "", createdAt: AppHarness.nowSeconds)
        record.attachments = [AttachmentInfo(filename: "gone.pdf", mimeType: "application/pdf", size: nil, isHere: false)]
        await h.service?.emit(.messageReceived(record))
        try await h.waitFor("shown") { $0.currentChat?.messages.last?.attachments.count == 1 }
        h.dispatch(.downloadAttachment(chatID: chatID, messageID: "m-gone", index: 0))
        try await h.waitFor("failed") { $0.currentChat?.messages.last?.attachments.first?.state.name == "failed" }
        let file = try #require(h.state().currentChat?.messages.last?.attachments.first)
        #expect(file.state.reason == "blob not found (404)")
        #expect(file.canDownload)
        #expect(h.state().lastOutcome?.message == "Could not open the file: blob not found (404)")
        await #expect(throws: AttachmentError.self) {
            try await h.app.attachmentData(chatID: chatID, messageID: "m-gone", index: 3)
        }
    }

    @Test("an empty file is refused with an outcome and nothing is queued")
    func emptyFileRefused() async throws {
        let h = AppHarness()
        try await h.createAccount()
        let chatID = try await h.createChat()
        h.dispatch(.sendAttachment(chatID: chatID, data: Data(), filename: "empty", mimeType: "text/plain", caption: ""))
        try await h.waitFor("refused") { $0.lastOutcome?.operation == .sendAttachment }
        #expect(h.state().lastOutcome?.code == .failed)
        #expect(h.state().lastOutcome?.message == "The file is empty")
        #expect(await h.service?.queued.isEmpty == true)
    }

    @Test("Blossom servers are named like relays: added, listed, removed; a non-http address is refused")
    func blossomServers() async throws {
        let h = AppHarness()
        try await h.createAccount()
        try await h.waitFor("read") { $0.network.blossomServersLoaded }
        #expect(h.state().network.blossomServers.isEmpty)
        h.dispatch(.addBlossomServer(url: "ftp://files.example.com"))
        try await h.waitFor("refused") { $0.lastOutcome?.operation == .changeBlossomServers }
        #expect(h.state().lastOutcome?.isSuccess == false)
        h.dispatch(.addBlossomServer(url: "https://blossom.example.com"))
        try await h.waitFor("added") { $0.network.blossomServers == ["https://blossom.example.com"] }
        #expect(h.state().network.blossomServersNamed)
        h.dispatch(.addBlossomServer(url: "https://second.example.com"))
        try await h.waitFor("added") { $0.network.blossomServers.count == 2 }
        h.dispatch(.removeBlossomServer(url: "https://blossom.example.com"))
        try await h.waitFor("removed") { $0.network.blossomServers == ["https://second.example.com"] }
    }
}
