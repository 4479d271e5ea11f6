import Foundation
import Nostr
import Testing
@testable import MarmotCore

/// Issue 48: mute, archive and block, owned by the core and kept by the messaging layer.
@Suite("Mute, archive and block")
struct PreferencesAndBlockingTests {
    static let now = AppHarness.nowSeconds

    /// A harness whose service knows one 1:1 chat "c1" with `peer`, 2 unread.
    static func harness(peer: PublicKey, clock: AppClock = .fixed(AppHarness.now)) -> AppHarness {
        let now = Self.now
        return AppHarness(clock: clock) { _ in
            [ChatSeed(chatID: "c1", peer: peer, createdAt: now - 600, messages: [(true, "hi", now - 300), (true, "there", now - 200)], unreadCount: 2)]
        }
    }

    static func row(_ h: AppHarness, _ id: ChatID = "c1") -> ChatSummary? { h.state().chatList.first { $0.chatID == id } }

    static func outcome(_ h: AppHarness, _ operation: UserOperation) async throws -> OperationOutcome {
        try await h.waitFor("\(operation) outcome") { $0.lastOutcome?.operation == operation }
        return try #require(h.state().lastOutcome)
    }

    @Test("a muted chat keeps its unread count, never asks for attention, and is kept by the service; unmute undoes it")
    func muteForever() async throws {
        let peer = Keys.generate().publicKey
        let h = Self.harness(peer: peer)
        try await h.createAccount()
        try await h.waitFor("chat listed") { $0.chatList.count == 1 }
        #expect(Self.row(h)?.asksForAttention == true)

        h.dispatch(.muteChat(chatID: "c1", duration: .forever))
        #expect(try await Self.outcome(h, .muteChat).code == .ok)
        let muted = try #require(Self.row(h))
        #expect(muted.isMuted && muted.mutedUntil == nil && muted.muteLabel == "muted")
        #expect(muted.unreadCount == 2 && !muted.asksForAttention)
        #expect(await h.service?.storedChat("c1")?.preferences.mute == .forever)

        h.dispatch(.unmuteChat(chatID: "c1"))
        #expect(try await Self.outcome(h, .unmuteChat).code == .ok)
        #expect(Self.row(h)?.isMuted == false && Self.row(h)?.asksForAttention == true)
        #expect(await h.service?.storedChat("c1")?.preferences == ChatPreferences())
    }

    @Test("a timed mute ends by itself on the core's timer")
    func timedMuteEnds() async throws {
        let peer = Keys.generate().publicKey
        let time = Locked(AppHarness.now)
        let h = Self.harness(peer: peer, clock: AppClock { time.current })
        try await h.createAccount()
        try await h.waitFor("chat listed") { $0.chatList.count == 1 }

        h.dispatch(.muteChat(chatID: "c1", duration: .seconds(8 * 3600)))
        #expect(try await Self.outcome(h, .muteChat).code == .ok)
        #expect(Self.row(h)?.mutedUntil == Self.now + 8 * 3600)
        #expect(Self.row(h)?.muteLabel == "muted until 20:00")
        try await waitUntil("mute clock scheduled") { h.timer.durations.contains(.seconds(8 * 3600)) }

        time.update { $0 = $0.addingTimeInterval(8 * 3600) }
        h.timer.fire()
        try await h.waitFor("mute over") { $0.chatList.first?.isMuted == false }
        #expect(Self.row(h)?.mutedUntil == nil && Self.row(h)?.asksForAttention == true)
    }

    @Test("an archived chat leaves the inbox and comes back when a message arrives, unless it is muted")
    func archiveComesBack() async throws {
        let peer = Keys.generate().publicKey
        let h = Self.harness(peer: peer)
        try await h.createAccount()
        try await h.waitFor("chat listed") { $0.chatList.count == 1 }
        let service = try #require(h.service)

        h.dispatch(.archiveChat(chatID: "c1"))
        #expect(try await Self.outcome(h, .archiveChat).code == .ok)
        #expect(h.state().inboxChats.isEmpty && h.state().archivedChats.map(\.chatID) == ["c1"])
        #expect(await service.storedChat("c1")?.preferences.archived == true)

        // Muted: a message does not bring it back.
        h.dispatch(.muteChat(chatID: "c1", duration: .forever))
        _ = try await Self.outcome(h, .muteChat)
        await service.receive("still quiet", in: "c1", at: Self.now - 100)
        try await h.waitFor("message counted") { $0.chatList.first?.unreadCount == 3 }
        #expect(Self.row(h)?.isArchived == true)

        // Not muted: it comes back, and that is kept.
        h.dispatch(.unmuteChat(chatID: "c1"))
        _ = try await Self.outcome(h, .unmuteChat)
        await service.receive("hello again", in: "c1", at: Self.now - 50)
        try await h.waitFor("back in the inbox") { $0.inboxChats.map(\.chatID) == ["c1"] }
        try await waitUntil("kept unarchived") { await service.storedChat("c1")?.preferences.archived == false }

        h.dispatch(.unarchiveChat(chatID: "c1"))
        #expect(try await Self.outcome(h, .unarchiveChat).code == .ok)
    }

    @Test("a failed write puts the preferences back and says so")
    func failedWriteReverts() async throws {
        let peer = Keys.generate().publicKey
        let h = Self.harness(peer: peer)
        try await h.createAccount()
        try await h.waitFor("chat listed") { $0.chatList.count == 1 }
        await h.service?.failPreferences("disk full")
        h.dispatch(.archiveChat(chatID: "c1"))
        let outcome = try await Self.outcome(h, .archiveChat)
        #expect(outcome.code != .ok && outcome.message.contains("disk full"))
        #expect(Self.row(h)?.isArchived == false)
        h.dispatch(.muteChat(chatID: "nope", duration: .forever))
        #expect(try await Self.outcome(h, .muteChat).code == .unknownChat)
    }

    @Test("blocking hides a 1:1 and refuses sends and new chats, drops invitations, collapses group messages; unblock restores")
    func blockAndUnblock() async throws {
        let peer = Keys.generate().publicKey
        let h = Self.harness(peer: peer)
        try await h.createAccount()
        try await h.waitFor("chat listed") { $0.chatList.count == 1 }
        let service = try #require(h.service)
        // A group with the peer and someone else, and an invitation from the peer.
        let other = Keys.generate().publicKey
        await service.invite(ChatInfo(
            chatID: "g1", peer: other, createdAt: Self.now - 500, members: [other, peer], isDirect: false, groupName: "Crew"))
        await service.offerInvite(
            InviteInfo(inviteID: "i1", inviter: peer, groupName: "Party", memberCount: 3, receivedAt: Self.now - 10),
            chat: ChatInfo(chatID: "g2", peer: peer, createdAt: Self.now - 10, members: [peer], isDirect: false, groupName: "Party"))
        try await h.waitFor("group and invitation") { $0.chatList.count == 2 && $0.invites.count == 1 }

        h.dispatch(.blockPerson(npub: peer.npub))
        #expect(try await Self.outcome(h, .blockPerson).code == .ok)
        var state = h.state()
        #expect(state.chatList.map(\.chatID) == ["g1"], "the 1:1 is hidden")
        #expect(state.invites.isEmpty, "their invitation is not listed")
        #expect(state.blocked.people.map(\.npub) == [peer.npub] && state.blocked.loaded)
        #expect(await service.blocked[peer] == Self.now)

        h.dispatch(.sendMessage(chatID: "c1", content: "hello?"))
        #expect(try await Self.outcome(h, .sendMessage).code == .blocked)
        h.dispatch(.createChat(peerNpub: peer.npub))
        #expect(try await Self.outcome(h, .createChat).code == .blocked)
        h.dispatch(.acceptInvite(inviteID: "i1"))
        #expect(try await Self.outcome(h, .acceptInvite).code == .unknownInvite)

        // Their message in the group shows collapsed; the other member's does not.
        await service.receive("secret plan", in: "g1", from: peer, at: Self.now - 5)
        try await h.waitFor("group preview") { $0.chatList.first?.lastMessagePreview == DisplayFormatter.blockedMessageText }
        h.dispatch(.openChat(chatID: "g1"))
        try await h.waitFor("group open") { ($0.currentChat?.messages.count ?? 0) >= 1 }
        let message = try #require(h.state().currentChat?.messages.last)
        #expect(message.isBlocked && message.content == DisplayFormatter.blockedMessageText)
        #expect(!h.state().chatList.contains { $0.lastMessage?.contains("secret") == true && $0.lastMessagePreview.contains("secret") })
        #expect(!(h.state().chatList.first?.recentArrivals.contains { $0.text.contains("secret") } ?? true))

        h.dispatch(.unblockPerson(npub: peer.npub))
        #expect(try await Self.outcome(h, .unblockPerson).code == .ok)
        state = h.state()
        #expect(Set(state.chatList.map(\.chatID)) == ["c1", "g1"])
        #expect(state.invites.map(\.inviteID) == ["i1"])
        #expect(state.currentChat?.messages.last?.content == "secret plan")
        #expect(state.blocked.people.isEmpty)
        #expect(await service.blocked.isEmpty)

        h.dispatch(.blockPerson(npub: "npub1nope"))
        #expect(try await Self.outcome(h, .blockPerson).code == .invalidNpub)
    }
}
