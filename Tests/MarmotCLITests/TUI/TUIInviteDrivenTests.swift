import Foundation
import MarmotCore
import Testing

@testable import MarmotCLI

/// Two real cores with their messaging layers on an in-process relay (as `marmot demo` runs them):
/// Alice starts a chat with Bob, and Bob answers her invitation through the terminal UI's key map
/// and renderer, as the driver would.
@MainActor
@Suite(.serialized, .timeLimit(.minutes(3)))
struct TUIInviteDrivenTests {
    @Test func bobSeesTheInvitationFirstAndJoinsOnlyWhenHePressesA() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("marmot-tui-invite-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let relay = try await EmbeddedRelay.start(database: nil, logLevel: .error)
        let alice = try await TUIFixtures.openSession("alice", root: root, relay: relay)
        let bob = try await TUIFixtures.openSession("bob", root: root, relay: relay)
        alice.dispatch(.createAccount)
        bob.dispatch(.createAccount)
        let aliceAccount = try await alice.untilLoggedIn("Alice's account")
        let bobAccount = try await bob.untilLoggedIn("Bob's account")
        try await bob.untilOnline()

        let aliceChat = try await alice.openChat(with: bobAccount.npub)
        let sent = try await alice.send("hello bob", in: aliceChat.chatID)
        _ = try await alice.untilDelivered(sent, in: aliceChat.chatID)

        let screen = DrivenScreen(bob)
        let invite = try await bob.until("Alice's invitation", timeout: .seconds(60)) { (state: AppState) -> InviteSummary? in
            state.invites.first { $0.inviterNpub == aliceAccount.npub }
        }
        // The invitation is listed, highlighted, above no chat: nothing was joined on its own.
        let listed = screen.frame
        #expect(listed.contains { $0.hasPrefix(" Invitations (1)") }, "\(listed.joined(separator: "\n"))")
        #expect(listed.contains { $0.hasPrefix(" > ✉ ") && $0.contains(invite.title) }, "\(listed.joined(separator: "\n"))")
        #expect(bob.state.chatList.isEmpty)
        #expect(!listed.joined().contains("hello bob"))

        screen.press([.character("a")])
        let chat = try await bob.until("the joined chat with Alice's message", timeout: .seconds(60)) { (state: AppState) -> ChatViewState? in
            guard case .chat = state.router.topScreen, let chat = state.currentChat,
                chat.messages.contains(where: { $0.content == "hello bob" })
            else { return nil }
            return chat
        }
        #expect(chat.chatID == aliceChat.chatID)
        #expect(bob.state.invites.isEmpty)
        let joined = screen.frame
        #expect(joined[0].contains("Marmot · "), "\(joined.joined(separator: "\n"))")
        #expect(joined.contains { $0.contains("hello bob") }, "\(joined.joined(separator: "\n"))")
        #expect(!joined.contains { $0.contains("Invitations") })

        for session in [alice, bob] { await session.close() }
        await relay.stop()
    }
}
