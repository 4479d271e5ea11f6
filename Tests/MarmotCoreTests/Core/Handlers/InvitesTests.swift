import Foundation
import Nostr
import Testing
@testable import MarmotCore

@Suite("Invites")
struct InvitesTests {
    /// A pending invitation from a fresh inviter to a two-member group, and the chat it leads to.
    private static func offer(to service: TestMessagingService) async -> (InviteInfo, ChatInfo) {
        let inviter = Keys.generate().publicKey
        let invite = InviteInfo(
            inviteID: InviteID("ab12cd34"), inviter: inviter, groupName: "Crew", memberCount: 2, receivedAt: 1_700_000_000)
        let chat = ChatInfo(
            chatID: ChatID("ab12cd34"), peer: inviter, createdAt: 1_700_000_000, members: [inviter], isDirect: false,
            groupName: "Crew")
        await service.offerInvite(invite, chat: chat)
        return (invite, chat)
    }

    @Test("an accepted chat opens at once and is marked finishing until the messaging layer says the join is done")
    func acceptedJoinFinishesWhenTheServiceSaysSo() async throws {
        let h = AppHarness()
        try await h.createAccount()
        let service = try #require(h.service)
        let (invite, chat) = await Self.offer(to: service)
        try await h.waitFor("invitation listed") { $0.invites.map(\.inviteID) == [invite.inviteID] }

        h.dispatch(.acceptInvite(inviteID: invite.inviteID))
        try await h.waitFor("chat open") { $0.currentChat?.chatID == chat.chatID }
        #expect(h.state().busy.finishingJoins == [chat.chatID])
        #expect(h.state().invites.isEmpty)

        await service.emit(.joinSettled(chat.chatID))
        try await h.waitFor("join finished") { $0.busy.finishingJoins.isEmpty }
        #expect(h.state().busy == BusyState())
    }

    @Test("a join the messaging layer finishes before the accept's answer arrives is never shown as finishing")
    func joinSettledBeforeTheAnswerIsNotMarked() async throws {
        let h = AppHarness()
        try await h.createAccount()
        let service = try #require(h.service)
        let (invite, chat) = await Self.offer(to: service)
        try await h.waitFor("invitation listed") { $0.invites.map(\.inviteID) == [invite.inviteID] }

        await service.emit(.joinSettled(chat.chatID))
        try await h.waitForListener()
        h.dispatch(.acceptInvite(inviteID: invite.inviteID))
        try await h.waitFor("chat open") { $0.currentChat?.chatID == chat.chatID }
        try await h.waitForListener()
        let sawFinishing = h.recorder.updates.contains { update in
            switch update {
            case .busyChanged(_, let busy): !busy.finishingJoins.isEmpty
            case .fullState(let s): !s.busy.finishingJoins.isEmpty
            default: false
            }
        }
        #expect(!sawFinishing)
        #expect(h.state().busy.finishingJoins.isEmpty)
    }
}
