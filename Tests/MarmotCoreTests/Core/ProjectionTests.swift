import Foundation
import Nostr
import Testing
@testable import MarmotCore

/// Issue 27: the projection draws again only the rows whose inputs changed; every change a row shows
/// still reaches it (a reply's quote follows an edit of the message it quotes), and an unrelated
/// change hands renderers the very same rows.
@Suite("Projection")
struct ProjectionTests {
    @Test("a reply's quote follows a later edit of the quoted message; other rows stay as drawn")
    func quoteFollowsEdit() async throws {
        let (h, chatID, service, peer, first) = try await MessageActionsTests.chatWithPeerMessage()
        await service.emit(MessageActionsTests.incoming("reply", in: chatID, from: peer, "answer", replyTo: first))
        await service.emit(MessageActionsTests.incoming("third", in: chatID, from: peer, "third", at: AppHarness.nowSeconds + 1))
        try await h.waitFor("reply shown") { $0.currentChat?.messages.count == 3 }
        let before = try #require(h.state().currentChat?.messages)
        #expect(before[1].replyTo?.text == "first")

        await service.emit(MessageActionsTests.incoming(
            "edit", in: chatID, from: peer, "first, fixed", role: .edit(target: first), at: AppHarness.nowSeconds + 2))
        try await h.waitFor("edit shown in the quote") { $0.currentChat?.messages[1].replyTo?.text == "first, fixed" }
        let after = try #require(h.state().currentChat?.messages)
        #expect(after[0].content == "first, fixed")
        #expect(after[0].isEdited)
        #expect(after[2] == before[2])
    }

    @Test("a change outside the open chat leaves its rows and the chat list as they were")
    func unrelatedChangeKeepsRows() async throws {
        let (h, chatID, _, _, _) = try await MessageActionsTests.chatWithPeerMessage()
        let chat = try #require(h.state().currentChat)
        let list = h.state().chatList
        h.dispatch(.pushScreen(.groupInfo(chatID: chatID)))
        h.dispatch(.updateScreenStack([.chat(chatID: chatID)]))
        try await h.waitFor("back in the chat") { $0.router.topScreen == .chat(chatID: chatID) }
        try await h.waitForListener()
        #expect(h.state().currentChat == chat)
        #expect(h.state().chatList == list)
    }
}
