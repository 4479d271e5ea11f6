import Foundation
import MarmotCore
import Testing

@testable import MarmotCLI

/// Three real cores with their messaging layers on an in-process relay: Alice creates a group with
/// Bob and Carol on the New Group screen, they accept in their terminal UIs, and Alice renames the
/// group from Group Info; everything goes through the key map and renderer, as the driver would.
@MainActor
@Suite(.serialized, .timeLimit(.minutes(4)))
struct TUIGroupDrivenTests {
    @Test func aliceCreatesAGroupBobAndCarolJoinAndSeeTheRename() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("marmot-tui-group-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let relay = try await EmbeddedRelay.start(database: nil, logLevel: .error)
        let alice = try await TUIFixtures.openSession("alice", root: root, relay: relay)
        let bob = try await TUIFixtures.openSession("bob", root: root, relay: relay)
        let carol = try await TUIFixtures.openSession("carol", root: root, relay: relay)
        for session in [alice, bob, carol] { session.dispatch(.createAccount) }
        let aliceAccount = try await alice.untilLoggedIn("Alice's account")
        let bobAccount = try await bob.untilLoggedIn("Bob's account")
        let carolAccount = try await carol.untilLoggedIn("Carol's account")
        for session in [alice, bob, carol] { try await session.untilOnline() }

        // Alice: N, the name, Tab, both npubs, Enter.
        let aliceScreen = DrivenScreen(alice)
        aliceScreen.press([.character("N")])
        _ = try await alice.until("New Group") { $0.router.topScreen == .newGroup ? true : nil }
        aliceScreen.type("Climbing")
        aliceScreen.press([.tab])
        aliceScreen.type("\(bobAccount.npub), \(carolAccount.npub)")
        aliceScreen.press([.enter])
        let group = try await alice.until("the new group open", timeout: .seconds(90)) { (state: AppState) -> ChatViewState? in
            guard case .chat = state.router.topScreen, let chat = state.currentChat, chat.isGroup else { return nil }
            return chat
        }
        #expect(group.memberCount == 3)
        #expect(aliceScreen.frame[0].contains("Climbing (3 members)"), "\(aliceScreen.frame.joined(separator: "\n"))")

        // Bob and Carol accept with a and land in the group.
        for (session, account) in [(bob, bobAccount), (carol, carolAccount)] {
            let screen = DrivenScreen(session)
            _ = try await session.until("\(account.npub)'s invitation", timeout: .seconds(60)) { (state: AppState) -> InviteSummary? in
                state.invites.first { $0.inviterNpub == aliceAccount.npub }
            }
            screen.press([.character("a")])
            _ = try await session.until("the joined group", timeout: .seconds(60)) { (state: AppState) -> Bool? in
                state.currentChat?.chatID == group.chatID ? true : nil
            }
        }

        // Alice writes in her chat screen; Bob and Carol read it.
        aliceScreen.type("hello group")
        aliceScreen.press([.enter])
        for session in [bob, carol] {
            _ = try await session.until("Alice's message", timeout: .seconds(60)) { (state: AppState) -> Bool? in
                state.currentChat?.messages.contains { $0.content == "hello group" } == true ? true : nil
            }
        }

        // Alice: Ctrl-G, then n, the new name, Enter.
        aliceScreen.press([.control("g")])
        _ = try await alice.until("Group Info") { $0.router.topScreen == .groupInfo(chatID: group.chatID) ? true : nil }
        let info = aliceScreen.frame
        #expect(info.contains { $0.contains(aliceAccount.npub) && $0.contains("admin (you)") }, "\(info.joined(separator: "\n"))")
        #expect(info.contains { $0.contains(bobAccount.npub) }, "\(info.joined(separator: "\n"))")
        aliceScreen.press([.character("n")])
        aliceScreen.type("Summit")
        aliceScreen.press([.enter])

        let renamedByAlice = try await alice.until("Alice's rename", timeout: .seconds(60)) { (state: AppState) -> OperationOutcome? in
            state.lastOutcome?.operation == .changeGroup ? state.lastOutcome : nil
        }
        #expect(renamedByAlice.code == .ok, "\(renamedByAlice) toast: \(alice.state.toast ?? "none")")
        let bobScreen = DrivenScreen(bob)
        do {
            _ = try await bob.until("the new name", timeout: .seconds(60)) { (state: AppState) -> Bool? in
                state.chatList.first { $0.chatID == group.chatID }?.displayName == "Summit" ? true : nil
            }
        } catch {
            Issue.record("Bob: \(bob.state.chatList.map(\.displayName)) current: \(bob.state.currentChat?.displayName ?? "none")")
            throw error
        }
        let renamed = bobScreen.frame
        #expect(renamed[0].contains("Summit"), "\(renamed.joined(separator: "\n"))")

        for session in [alice, bob, carol] { await session.close() }
        await relay.stop()
    }
}
