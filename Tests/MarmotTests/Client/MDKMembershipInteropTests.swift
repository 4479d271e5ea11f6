import Foundation
import MLS
import Nostr
import NostrRelay
import TestSupport
import Testing
@testable import Marmot

/// Membership changes with the real MDK 0.8.0 peer: the hardening must not refuse what MDK does
/// legitimately, and every change must show in the chat.
@Suite(.serialized, .timeLimit(.minutes(3)), .enabled(if: InteropKit.shouldRun, "interop kit (shared/interop + venv) not found"))
struct MDKMembershipInteropTests {
    /// MDK leaves our 1:1 with a SelfRemove proposal; we are the admin, so we commit it (as MDK
    /// would). MDK applies our commit; the chat shows "npub… left" and is no 1:1 any more.
    @Test(arguments: InteropRelay.allCases)
    func mdkLeavesAndWeCommitItsSelfRemove(relay: InteropRelay) async throws {
        try await InteropContext.run(relay) { ctx in
            let us = await ctx.us
            let (chat, group) = try await ctx.weCreateChat()
            try await ctx.mdkSends("bye from mdk", in: group)
            _ = try await ctx.mdk.call(["cmd": "leave_group", "group_id": group])
            #expect(try await us.waitForCommit(epoch: 2, by: us.publicKey) == us.publicKey)
            let left = try await ctx.mdk.waitForEvent("commit") { $0.int("epoch") == 2 || $0.string("state") != "active" }
            #expect(left.string("group_id") == group)
            let after = try #require(try await us.client.chat(chat.id))
            #expect(after.members == [us.publicKey])
            #expect(after.peer == nil)
            let notice = try #require(try await us.allMessages(chat.id).last)
            #expect(notice.deliveryState == .notice)
            #expect(SystemNotice(content: notice.content) == SystemNotice(change: .left, actor: us.publicKey, subject: ctx.mdkKey))
            #expect(await us.client.chat(with: ctx.mdkKey) == nil)
        }
    }

    /// MDK, as the chat's admin, adds a second MDK peer: we apply the commit, the chat shows the new
    /// member with a system line, and the new member's messages reach us.
    @Test(arguments: InteropRelay.allCases)
    func mdkAdminAddsAThirdMemberAndOurChatShowsIt(relay: InteropRelay) async throws {
        try await InteropContext.run(relay) { ctx in
            let us = await ctx.us
            try await withPeers(["carol"], on: ctx) { peers in
                let (carol, carolKey) = (peers[0].peer, peers[0].key)
                _ = try await us.client.publishKeyPackage()
                let created = try await ctx.mdk.call(["cmd": "create_chat", "peer_npub": us.publicKey.npub])
                let group = try #require(created.string("group_id"))
                let (chat, _) = try await us.waitForWelcome()
                #expect(chat.peer == ctx.mdkKey)
                _ = try await us.waitForCommit(epoch: 2, by: us.publicKey)
                _ = try await ctx.mdk.waitForEvent("commit") { $0.int("epoch") == 2 }

                _ = try await ctx.mdk.call(["cmd": "add_members", "group_id": group, "members": [carolKey.npub]])
                #expect(try await us.waitForCommit(epoch: 3, by: ctx.mdkKey) == ctx.mdkKey)
                let grown = try #require(try await us.client.chat(chat.id))
                #expect(Set(grown.members) == [us.publicKey, ctx.mdkKey, carolKey])
                #expect(grown.peer == nil)
                let notice = try #require(try await us.allMessages(chat.id).last { $0.deliveryState == .notice })
                #expect(SystemNotice(content: notice.content) == SystemNotice(change: .added, actor: ctx.mdkKey, subject: carolKey))

                _ = try await carol.waitForEvent("welcome")
                _ = try await carol.call(["cmd": "send", "group_id": group, "text": "hi all, carol here"])
                #expect(try await us.waitForMessage("hi all, carol here").sender == carolKey)
                // Carol fetches the group's whole history, including the epochs before she joined,
                // which she cannot (and must not) open; nothing else may fail.
                let errors = await carol.reportedErrors
                #expect(errors.allSatisfy { "\($0)".contains("Failed to decrypt message") }, "carol rejected: \(errors)")
            }
        }
    }
}
