import MarmotCore
import Testing

@testable import MarmotCLI

/// Issue 28: a chat whose group names a picture is marked in the chat list row and in the chat
/// header with the core's label (the terminal draws no pictures); layouts still fit.
struct GroupPictureRenderTests {
    typealias F = TUIFixtures

    @Test("A row marks its group picture with the core's label; none, no mark")
    func chatListRowMarksThePicture() throws {
        var state = F.loggedIn()
        #expect(!F.render(state).contains { $0.contains("[picture") })
        state.chatList[0].image = .available
        state.chatList[1].image = .failed(reason: "the group image blob's SHA-256 is not the group data's image_hash")
        let lines = F.render(state)
        F.expectFits(lines, .standard)
        let alice = try #require(lines.first { $0.contains("Alice") })
        #expect(alice.contains("[picture]"), "\(alice)")
        let bob = try #require(lines.first { $0.contains("npub1bobx…wxyz") })
        #expect(bob.contains("[picture failed]"), "\(bob)")
        state.chatList[0].image = .loading
        #expect(F.render(state).contains { $0.contains("[picture loading]") })
    }

    @Test("The open chat's header carries the picture's label beside the protocol")
    func chatHeaderMarksThePicture() {
        var state = F.inChat()
        state.currentChat?.image = .available
        let lines = F.render(state)
        F.expectFits(lines, .standard)
        #expect(lines[0].contains("picture"), "\(lines[0])")
        state.currentChat?.image = .none
        #expect(!F.render(state)[0].contains("picture"))
    }
}
