import Crypto
import Foundation
import MarmotCore
import Nostr
import NostrClient
import NostrRelay
import Testing

/// Group pictures through two real apps on one relay with its embedded Blossom server: the admin
/// sets one, the member's core fetches it by itself (loading, then available) and hands the same
/// bytes to renderers; the member cannot set one; clearing goes back to none; each change is a
/// system line.
@Suite(.serialized, .timeLimit(.minutes(3))) struct MarmotGroupImageTests {
    /// A PNG signature and header bytes, then filler (the messaging layer checks the format).
    static let picture: Data = {
        var data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        data.append(Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }))
        return data
    }()

    @Test func anAdminSetsThePictureAndTheMembersCoreShowsIt() async throws {
        let world = LiveWorld()
        defer { Task { await world.close() } }
        let (_, relay) = try await world.startRelay()
        let alice = world.app("alice", relays: [relay])
        let bob = world.app("bob", relays: [relay])
        let aliceKeys = try await alice.createAccount()
        let bobKeys = try await bob.createAccount()
        try await LiveWorld.waitForKeyPackage(of: bobKeys.publicKey, on: relay)
        alice.dispatch(.createGroup(name: "Pics", memberNpubs: [bobKeys.publicKey.npub]))
        try await alice.waitFor("group open") { $0.currentChat?.displayName == "Pics" }
        let chatID = try #require(alice.state().currentChat?.chatID)
        #expect(try await bob.acceptInvite(from: aliceKeys.publicKey) == chatID)
        #expect(bob.state().chatList.first?.image == ChatImageState.none)

        alice.dispatch(.setChatImage(chatID: chatID, data: Self.picture, mediaType: "image/png"))
        // The chat shows the picture when the commit is merged; the operation's outcome is its own
        // update, which may come after (it did on a loaded machine).
        try await alice.waitFor("set") {
            $0.chatList.first?.image == .available && $0.currentChat?.image == .available
                && $0.lastOutcome?.operation == .changeGroup
        }
        #expect(alice.state().lastOutcome?.code == .ok)
        try await bob.waitFor("bob's core fetched it") { $0.chatList.first?.image == .available }
        #expect(try await bob.app.chatImageData(chatID: chatID) == Self.picture)
        #expect(try await alice.app.chatImageData(chatID: chatID) == Self.picture)
        bob.dispatch(.openChat(chatID: chatID))
        try await bob.waitFor("system line") { state in
            state.currentChat?.messages.contains { $0.kind == .system && $0.content.contains("changed the group picture") } == true
        }
        #expect(bob.state().currentChat?.image == .available)

        // Bob is no admin: refused with not_admin, nothing changes.
        bob.dispatch(.setChatImage(chatID: chatID, data: Self.picture, mediaType: nil))
        try await bob.waitFor("refused") { $0.lastOutcome?.operation == .changeGroup && $0.lastOutcome?.code == .notAdmin }
        // Not a picture: refused before anything is uploaded.
        alice.dispatch(.setChatImage(chatID: chatID, data: Data("<svg/>".utf8), mediaType: "image/svg+xml"))
        try await alice.waitFor("refused") { $0.lastOutcome?.operation == .changeGroup && $0.lastOutcome?.code != .ok }

        alice.dispatch(.clearChatImage(chatID: chatID))
        try await bob.waitFor("cleared") { $0.chatList.first?.image == ChatImageState.none }
        await #expect(throws: AttachmentError.self) { _ = try await bob.app.chatImageData(chatID: chatID) }
    }
}
