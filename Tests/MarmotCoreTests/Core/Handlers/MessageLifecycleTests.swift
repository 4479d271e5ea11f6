import Foundation
import MarmotCore
import Nostr
import Testing

/// Disappearing messages in the core (the action reaches the messaging layer, the header says what is
/// set, expired messages leave the thread and the chat list) and messages of an abandoned branch.
@Suite("Message lifecycle") struct MessageLifecycleTests {
    @Test("setRetention goes to the messaging layer as a group change; the header shows the chat's retention")
    func setAndShow() async throws {
        let h = AppHarness()
        try await h.createAccount()
        let bob = Keys.generate().publicKey
        h.dispatch(.createGroup(name: "Crew", memberNpubs: [bob.npub]))
        try await h.waitFor("group open") { $0.currentChat?.isGroup == true }
        let id = try #require(h.state().currentChat?.chatID)
        #expect(h.state().currentChat?.retentionLabel == nil)
        let service = try #require(h.service)
        h.dispatch(.setRetention(chatID: id, seconds: 86_400))
        try await waitUntil("change sent") { await service.groupChanges.count == 1 }
        #expect("\(await service.groupChanges.map(\.1))" == "\([GroupChange.setRetention(86_400)])")
        try await h.waitFor("outcome") { $0.lastOutcome?.operation == .changeGroup && $0.lastOutcome?.code == .ok }

        // The messaging layer reports the chat as changed (the commit applied).
        var info = ChatInfo(chatID: id, peer: bob, createdAt: 1_700_000_000, members: [bob], isDirect: false, groupName: "Crew")
        info.retentionSeconds = 86_400 + 6 * 3600
        await service.emit(.chatUpdated(info))
        try await h.waitFor("header") { $0.currentChat?.retentionLabel == "Messages disappear after 1 day 6 hours" }
    }

    @Test("expired messages leave the open thread and the chat list's preview")
    func expiredMessagesLeave() async throws {
        let h = AppHarness()
        try await h.createAccount()
        let bob = Keys.generate().publicKey
        let service = try #require(h.service)
        let id = ChatID("ab01")
        await service.invite(ChatInfo(chatID: id, peer: bob, createdAt: 1_700_000_000))
        try await h.waitFor("chat listed") { $0.chatList.map(\.chatID) == [id] }
        h.dispatch(.openChat(chatID: id))
        let first = try #require(await service.receive("first", in: id, at: 1_700_000_010))
        let second = try #require(await service.receive("second", in: id, at: 1_700_000_020))
        try await h.waitFor("both shown") { $0.currentChat?.messages.map(\.content) == ["first", "second"] }

        await service.emit(.messagesExpired(chatID: id, messageIDs: [second.id]))
        try await h.waitFor("second gone") { $0.currentChat?.messages.map(\.content) == ["first"] }
        #expect(h.state().chatList.first?.lastMessage == "first")
        await service.emit(.messagesExpired(chatID: id, messageIDs: [first.id]))
        try await h.waitFor("all gone") { $0.currentChat?.messages.isEmpty == true }
        #expect(h.state().chatList.first?.lastMessage == nil)
    }

    @Test("messages of a branch the group abandoned stay, marked for every renderer")
    func invalidatedMessagesAreMarked() async throws {
        let h = AppHarness()
        try await h.createAccount()
        let service = try #require(h.service)
        let id = ChatID("ab02")
        await service.invite(ChatInfo(chatID: id, peer: Keys.generate().publicKey, createdAt: 1_700_000_000))
        try await h.waitFor("chat listed") { $0.chatList.map(\.chatID) == [id] }
        h.dispatch(.openChat(chatID: id))
        let kept = try #require(await service.receive("kept", in: id, at: 1_700_000_010))
        let lost = try #require(await service.receive("on the losing branch", in: id, at: 1_700_000_020))
        try await h.waitFor("both shown") { $0.currentChat?.messages.count == 2 }
        await service.emit(.messagesInvalidated(chatID: id, messageIDs: [lost.id]))
        try await h.waitFor("marked") { $0.currentChat?.messages.last?.isInvalidated == true }
        let messages = try #require(h.state().currentChat?.messages)
        #expect(messages.map(\.invalidatedLabel) == [nil, DisplayFormatter.invalidatedLabel])
        #expect(messages.first?.id == kept.id)
    }

    @Test("a group's convergence status reaches the chat list and the header, and leaves once settled")
    func convergenceIsShown() async throws {
        let h = AppHarness()
        try await h.createAccount()
        let service = try #require(h.service)
        let bob = Keys.generate().publicKey
        let id = ChatID("ab03")
        var info = ChatInfo(chatID: id, peer: bob, createdAt: 1_700_000_000, members: [bob], isDirect: false, groupName: "Crew")
        await service.invite(info)
        try await h.waitFor("chat listed") { $0.chatList.map(\.chatID) == [id] }
        h.dispatch(.openChat(chatID: id))
        try await h.waitFor("chat open") { $0.currentChat?.chatID == id }
        #expect(h.state().currentChat?.convergenceLabel == nil)

        info.convergence = .syncing(waiting: 2)
        await service.emit(.chatUpdated(info))
        try await h.waitFor("syncing shown") { $0.currentChat?.convergence == .syncing(waiting: 2) }
        #expect(h.state().currentChat?.convergenceLabel == "Syncing: 2 messages wait for a change still on its way")
        #expect(h.state().chatList.first?.convergence.code == "syncing")
        #expect(h.state().currentChat?.convergenceBadge == "syncing")

        info.convergence = .resolving
        await service.emit(.chatUpdated(info))
        try await h.waitFor("resolving shown") { $0.chatList.first?.convergence == .resolving }
        #expect(h.state().currentChat?.convergenceLabel == "Resolving: our change is not confirmed by a relay yet")

        info.convergence = .settled
        await service.emit(.chatUpdated(info))
        try await h.waitFor("settled") { $0.currentChat?.convergence == .settled && $0.chatList.first?.convergence == .settled }
        #expect(h.state().currentChat?.convergenceLabel == nil)
        #expect(h.state().currentChat?.convergenceBadge == nil)
    }

    @Test("a message waiting to go out (a slow relay, a group not settled) does not keep the next from showing as pending")
    func nextMessageShowsPendingWhileOneWaits() async throws {
        let h = AppHarness()
        try await h.createAccount()
        let chatID = try await h.createChat()
        let gate = Gate()
        await h.service?.holdSends(gate)
        h.dispatch(.sendMessage(chatID: chatID, content: "first"))
        h.dispatch(.sendMessage(chatID: chatID, content: "second"))
        try await h.waitFor("both shown as pending while the first is held") { state in
            let last = (state.currentChat?.messages ?? []).suffix(2)
            return last.map(\.content) == ["first", "second"] && last.allSatisfy { $0.delivery == .pending }
        }
        #expect(await h.service?.queued.map(\.content) == ["first", "second"])
        #expect(await h.service?.sent.map(\.content) == ["first"], "the second goes out only after the first")
        await gate.open()
        try await h.waitFor("both sent") { state in
            (state.currentChat?.messages ?? []).suffix(2).allSatisfy { $0.delivery == .sent }
        }
        #expect(await h.service?.sent.map(\.content) == ["first", "second"])
    }

    @Test("the header's wording of a convergence status", arguments: [
        (ChatConvergence.settled, nil), (.syncing(waiting: 1), "Syncing: 1 message waits for a change still on its way"),
        (.resolving, "Resolving: our change is not confirmed by a relay yet"),
        (.blocked(reason: "a fork\nat epoch 3"), "Blocked: a fork at epoch 3"),
    ] as [(ChatConvergence, String?)])
    func convergenceWording(status: ChatConvergence, label: String?) {
        #expect(DisplayFormatter.convergenceLabel(status) == label)
    }

    @Test("the header's wording of a retention", arguments: [
        (UInt64(0), nil), (30, "Messages disappear after 30 seconds"), (300, "Messages disappear after 5 minutes"),
        (3_600, "Messages disappear after 1 hour"), (86_400, "Messages disappear after 1 day"),
        (1_209_600, "Messages disappear after 2 weeks"), (90_061, "Messages disappear after 1 day 1 hour"),
    ] as [(UInt64, String?)])
    func wording(seconds: UInt64, label: String?) {
        #expect(DisplayFormatter.retentionLabel(seconds: seconds) == label)
    }
}
