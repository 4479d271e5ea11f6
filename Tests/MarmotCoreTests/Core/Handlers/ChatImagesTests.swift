import Foundation
import Nostr
import Testing
@testable import MarmotCore

/// Issue 28: a chat's group picture in the core: fetched by itself when the group names a new one
/// (loading, then available or failed with the reason), a result for a replaced picture dropped,
/// the bytes handed to renderers, and set/clear handed to the messaging layer as group changes.
@Suite("Chat images")
struct ChatImagesTests {
    static let picture = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3])

    @Test("a new picture is fetched by the core: failed with its reason, then available once the bytes come")
    func newPictureIsFetched() async throws {
        let h = AppHarness()
        try await h.createAccount()
        let chatID = try await h.createChat()
        #expect(h.state().chatList.first?.image == ChatImageState.none)
        var info = try #require(await h.service?.listChats().first { $0.chatID == chatID })
        info.imageID = "aa11"
        await h.service?.emit(.chatUpdated(info))
        try await h.waitFor("failed") { $0.chatList.first?.image.name == "failed" }
        #expect(h.state().chatList.first?.image.reason?.contains("404") == true)
        #expect(h.state().currentChat?.image.name == "failed")

        await h.service?.setChatImage(Self.picture, for: chatID)
        #expect(try await h.app.chatImageData(chatID: chatID) == Self.picture)
        try await h.waitFor("available") { $0.chatList.first?.image == .available }

        // A newer picture: loading again, fetched by itself.
        info.imageID = "bb22"
        await h.service?.emit(.chatUpdated(info))
        try await h.waitFor("the new one available") { $0.chatList.first?.image == .available && $0.currentChat?.image == .available }
        // Removed: none, and asking for the bytes is a clear error.
        info.imageID = nil
        await h.service?.emit(.chatUpdated(info))
        try await h.waitFor("none") { $0.chatList.first?.image == ChatImageState.none }
        await #expect(throws: AttachmentError.self) { _ = try await h.app.chatImageData(chatID: chatID) }
    }

    @Test("set and clear go to the messaging layer as group changes; an empty picture is refused")
    func setAndClearAreGroupChanges() async throws {
        let h = AppHarness()
        try await h.createAccount()
        let chatID = try await h.createChat()
        h.dispatch(.setChatImage(chatID: chatID, data: Data(), mediaType: nil))
        try await h.waitFor("refused") { $0.lastOutcome?.operation == .changeGroup && $0.lastOutcome?.code == .failed }
        h.dispatch(.setChatImage(chatID: chatID, data: Self.picture, mediaType: "image/png"))
        h.dispatch(.clearChatImage(chatID: chatID))
        try await h.waitFor("both done") { _ in true }
        for _ in 0..<100 where (await h.service?.groupChanges.count ?? 0) < 2 { try await Task.sleep(for: .milliseconds(20)) }
        let changes = try #require(await h.service?.groupChanges.map(\.1))
        #expect(changes == [.setImage(Self.picture, mediaType: "image/png"), .clearImage])
    }
}
