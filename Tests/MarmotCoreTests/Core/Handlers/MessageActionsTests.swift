import Foundation
import Nostr
import Testing
@testable import MarmotCore

/// Issue 25: reactions, deletions, replies, edits and mentions as White Noise sends them, shown as
/// they are meant, and our own sent through the outbox with an outcome code.
@Suite("Message kinds")
struct MessageActionsTests {
    /// A logged-in harness with one open chat whose peer wrote "first" (id `m-first`).
    static func chatWithPeerMessage() async throws -> (AppHarness, ChatID, TestMessagingService, PublicKey, MessageID) {
        let h = AppHarness()
        try await h.createAccount()
        let peer = Keys.generate()
        let chatID = try await h.createChat(with: peer)
        let service = try #require(h.service)
        let first = MessageID("m-first")
        await service.receive("first", in: chatID, at: AppHarness.nowSeconds - 60, id: first)
        try await h.waitFor("peer message shown") { $0.currentChat?.messages.map(\.content) == ["first"] }
        return (h, chatID, service, peer.publicKey, first)
    }

    static func incoming(
        _ id: MessageID, in chatID: ChatID, from sender: PublicKey, _ content: String, role: MessageRole = .text,
        replyTo: MessageID? = nil, mentions: [PublicKey] = [], at: Int64 = AppHarness.nowSeconds
    ) -> MessagingEvent {
        .messageReceived(MessageRecord(
            id: id, chatID: chatID, sender: sender, content: content, createdAt: at, role: role, replyTo: replyTo,
            mentions: mentions))
    }

    @Test("reactions show under their message with counts per emoji and who reacted; a person counts once")
    func reactionsCounted() async throws {
        let (h, chatID, service, peer, first) = try await Self.chatWithPeerMessage()
        let carol = Keys.generate().publicKey
        await service.emit(Self.incoming("r1", in: chatID, from: peer, "👍", role: .reaction(target: first)))
        await service.emit(Self.incoming("r2", in: chatID, from: carol, "👍", role: .reaction(target: first), at: AppHarness.nowSeconds + 1))
        await service.emit(Self.incoming("r3", in: chatID, from: peer, "👍", role: .reaction(target: first), at: AppHarness.nowSeconds + 2))
        await service.emit(Self.incoming("r4", in: chatID, from: carol, "❤️", role: .reaction(target: first), at: AppHarness.nowSeconds + 3))
        try await h.waitFor("reactions shown") { $0.currentChat?.messages.first?.reactions.count == 2 }
        let message = try #require(h.state().currentChat?.messages.first)
        #expect(message.reactions.map(\.emoji) == ["👍", "❤️"])
        #expect(message.reactions.map(\.count) == [2, 1])
        #expect(message.reactions[0].senderPubkeys == [peer.hex, carol.hex])
        #expect(message.reactions[0].label == "👍 2")
        #expect(message.reactions.allSatisfy { !$0.includesMe })
        // Reactions are not bubbles, not previews and not unread messages.
        #expect(h.state().currentChat?.messages.count == 1)
        #expect(h.state().chatList.first?.lastMessage == "first")
    }

    @Test("a member's deletion of someone else's message is ignored; the author's own deletion removes it")
    func hostileDeletionIgnored() async throws {
        let (h, chatID, service, peer, first) = try await Self.chatWithPeerMessage()
        let mallory = Keys.generate().publicKey
        await service.emit(Self.incoming("d-hostile", in: chatID, from: mallory, "", role: .deletion(targets: [first])))
        await service.emit(Self.incoming("after", in: chatID, from: peer, "second"))
        try await h.waitFor("next message shown") { $0.currentChat?.messages.count == 2 }
        #expect(h.state().currentChat?.messages.map(\.content) == ["first", "second"])

        await service.emit(Self.incoming("d-own", in: chatID, from: peer, "", role: .deletion(targets: [first])))
        try await h.waitFor("deleted by its author") { $0.currentChat?.messages.map(\.content) == ["second"] }
        // A page that still lists it (loaded before the store dropped it) does not bring it back.
        h.dispatch(.updateScreenStack([]))
        h.dispatch(.openChat(chatID: chatID))
        try await h.waitFor("reopened") { $0.currentChat != nil }
        try await h.waitForListener()
        #expect(h.state().currentChat?.messages.map(\.content) == ["second"])
    }

    @Test("an admin deletion (4891) under the moderation grant removes another member's message, also when it came first; a kind 5 does not")
    func moderatedDeletion() async throws {
        let (h, chatID, service, peer, first) = try await Self.chatWithPeerMessage()
        let admin = Keys.generate().publicKey
        // A kind-5 deletion deletes only its author's own, even marked with the grant.
        var kindFive = MessageRecord(
            id: "d-kind5", chatID: chatID, sender: admin, content: "", createdAt: AppHarness.nowSeconds,
            role: .deletion(targets: [first]))
        kindFive.moderated = true
        await service.emit(.messageReceived(kindFive))
        await service.emit(Self.incoming("between", in: chatID, from: peer, "between"))
        try await h.waitFor("next message shown") { $0.currentChat?.messages.count == 2 }
        var moderated = MessageRecord(
            id: "d-admin", chatID: chatID, sender: admin, content: "", createdAt: AppHarness.nowSeconds,
            role: .adminDeletion(target: first))
        moderated.moderated = true
        var moderatedLate = MessageRecord(
            id: "d-admin-late", chatID: chatID, sender: admin, content: "", createdAt: AppHarness.nowSeconds,
            role: .adminDeletion(target: "late"))
        moderatedLate.moderated = true
        // In this one-to-one chat we hold no grant: only our own messages can be deleted.
        #expect(h.state().currentChat?.messages.first?.canDelete == false)
        await service.emit(.messageReceived(moderatedLate))
        await service.emit(.messageReceived(moderated))
        try await h.waitFor("removed by the admin") { $0.currentChat?.messages.map(\.content) == ["between"] }
        // A target that arrives after the deletion never shows either.
        await service.emit(Self.incoming("late", in: chatID, from: peer, "late one"))
        await service.emit(Self.incoming("kept", in: chatID, from: peer, "kept"))
        try await h.waitFor("next message shown") { $0.currentChat?.messages.map(\.content) == ["between", "kept"] }
    }

    @Test("an admin of a named group may delete another member's message; it goes out as an admin deletion (4891)")
    func adminDeletesInAGroup() async throws {
        let h = AppHarness()
        try await h.createAccount()
        let bob = Keys.generate().publicKey, carol = Keys.generate().publicKey
        h.dispatch(.createGroup(name: "Crew", memberNpubs: [bob.npub, carol.npub]))
        try await h.waitFor("group open") { $0.currentChat?.isGroup == true }
        let chatID = try #require(h.state().currentChat?.chatID)
        let service = try #require(h.service)
        _ = await service.receive("spam", in: chatID, at: AppHarness.nowSeconds - 30, id: "m-spam")
        try await h.waitFor("shown, deletable by us") { $0.currentChat?.messages.first?.canDelete == true }
        #expect(h.state().currentChat?.messages.first?.canModify == false, "not ours: no edit")
        h.dispatch(.deleteMessage(chatID: chatID, messageID: "m-spam"))
        try await h.waitFor("deleted") { $0.lastOutcome?.operation == .deleteMessage && $0.lastOutcome?.code == .ok }
        #expect(await service.sent.last?.role == .adminDeletion(target: "m-spam"))
        #expect(await service.sent.last?.role.nostrKind == 4891)
    }

    @Test("a deletion that arrives before its message keeps the message from ever showing")
    func deletionBeforeTarget() async throws {
        let (h, chatID, service, peer, _) = try await Self.chatWithPeerMessage()
        await service.emit(Self.incoming("d-early", in: chatID, from: peer, "", role: .deletion(targets: ["late"])))
        await service.emit(Self.incoming("late", in: chatID, from: peer, "late text"))
        await service.emit(Self.incoming("marker", in: chatID, from: peer, "marker"))
        try await h.waitFor("marker shown") { $0.currentChat?.messages.last?.content == "marker" }
        #expect(h.state().currentChat?.messages.map(\.content) == ["first", "marker"])
    }

    @Test("the chat list preview falls back when its newest message is deleted")
    func previewAfterDeletion() async throws {
        let (h, chatID, service, peer, _) = try await Self.chatWithPeerMessage()
        await service.emit(Self.incoming("newest", in: chatID, from: peer, "oops"))
        try await h.waitFor("preview") { $0.chatList.first?.lastMessage == "oops" }
        await service.emit(Self.incoming("d", in: chatID, from: peer, "", role: .deletion(targets: ["newest"])))
        try await h.waitFor("preview back to the one before") { $0.chatList.first?.lastMessage == "first" }
    }

    @Test("an edit by the author shows the new text marked edited; an edit by anyone else is ignored")
    func edits() async throws {
        let (h, chatID, service, peer, first) = try await Self.chatWithPeerMessage()
        let mallory = Keys.generate().publicKey
        await service.emit(Self.incoming("e-hostile", in: chatID, from: mallory, "forged", role: .edit(target: first)))
        await service.emit(Self.incoming("e1", in: chatID, from: peer, "first, fixed", role: .edit(target: first), at: AppHarness.nowSeconds))
        await service.emit(Self.incoming("e0", in: chatID, from: peer, "older edit", role: .edit(target: first), at: AppHarness.nowSeconds - 5))
        try await h.waitFor("edited") { $0.currentChat?.messages.first?.isEdited == true }
        try await h.waitForListener()
        let message = try #require(h.state().currentChat?.messages.first)
        #expect(message.content == "first, fixed")
        #expect(message.editedMark == "edited")
        #expect(h.state().currentChat?.messages.count == 1)
        // The chat list previews the newest text too.
        #expect(h.state().chatList.first?.lastMessage == "first, fixed")
    }

    @Test("a reply quotes its target, or says the target is not available")
    func replies() async throws {
        let (h, chatID, service, peer, first) = try await Self.chatWithPeerMessage()
        await service.emit(Self.incoming("re", in: chatID, from: peer, "answer", replyTo: first))
        await service.emit(Self.incoming("re2", in: chatID, from: peer, "to the void", replyTo: "unknown-id"))
        try await h.waitFor("replies shown") { $0.currentChat?.messages.count == 3 }
        let messages = try #require(h.state().currentChat?.messages)
        let quote = try #require(messages[1].replyTo)
        #expect(quote.isAvailable)
        #expect(quote.text == "first")
        #expect(quote.senderPubkey == peer.hex)
        #expect(quote.messageID == first)
        let missing = try #require(messages[2].replyTo)
        #expect(!missing.isAvailable)
        #expect(missing.text == "message not available")
    }

    @Test("mentions are marked, and a mention of this account is flagged")
    func mentions() async throws {
        let (h, chatID, service, peer, _) = try await Self.chatWithPeerMessage()
        let me = try #require(h.service?.context.keys.publicKey)
        let carol = Keys.generate().publicKey
        await service.emit(Self.incoming("m1", in: chatID, from: peer, "hi nostr:\(me.npub)", mentions: [me, carol]))
        await service.emit(Self.incoming("m2", in: chatID, from: peer, "hi carol", mentions: [carol]))
        try await h.waitFor("shown") { $0.currentChat?.messages.count == 3 }
        let messages = try #require(h.state().currentChat?.messages)
        #expect(messages[1].mentionsMe)
        #expect(messages[1].mentionedPubkeys == [me.hex, carol.hex])
        #expect(!messages[2].mentionsMe)
    }

    @Test("react goes through the outbox as a kind-7 role, shows at once as ours, and ends ok")
    func reactAndUnreact() async throws {
        let (h, chatID, service, _, first) = try await Self.chatWithPeerMessage()
        h.dispatch(.react(chatID: chatID, messageID: first, emoji: "🎉"))
        try await h.waitFor("react ok") { $0.lastOutcome?.operation == .react && $0.lastOutcome?.code == .ok }
        let reaction = try #require(await service.sent.last)
        #expect(reaction.role == .reaction(target: first))
        #expect(reaction.content == "🎉")
        #expect(await service.queued.map(\.id).contains(reaction.id))
        let shown = try #require(h.state().currentChat?.messages.first?.reactions.first)
        #expect(shown.emoji == "🎉" && shown.includesMe && shown.count == 1)
        #expect(h.state().lastOutcome?.messageID == reaction.id)

        h.dispatch(.unreact(chatID: chatID, messageID: first, emoji: "🎉"))
        try await h.waitFor("unreact ok") { $0.lastOutcome?.operation == .unreact && $0.lastOutcome?.code == .ok }
        let deletion = try #require(await service.sent.last)
        #expect(deletion.role == .deletion(targets: [reaction.id]))
        #expect(h.state().currentChat?.messages.first?.reactions == [])

        h.dispatch(.unreact(chatID: chatID, messageID: first, emoji: nil))
        try await h.waitFor("nothing to take back") { $0.lastOutcome?.code == .notReacted }
        h.dispatch(.react(chatID: chatID, messageID: first, emoji: " 👍"))
        try await h.waitFor("bad reaction refused") { $0.lastOutcome?.code == .invalidReaction }
        h.dispatch(.react(chatID: chatID, messageID: "nope", emoji: "👍"))
        try await h.waitFor("unknown target refused") { $0.lastOutcome?.code == .unknownMessage }
        #expect(await service.sent.count == 2)
    }

    @Test("reply sends a text with its target and shows the quote; outcome reply ok")
    func sendReply() async throws {
        let (h, chatID, service, _, first) = try await Self.chatWithPeerMessage()
        h.dispatch(.reply(chatID: chatID, messageID: first, content: " sure "))
        try await h.waitFor("reply ok") { $0.lastOutcome?.operation == .reply && $0.lastOutcome?.code == .ok }
        let sent = try #require(await service.sent.last)
        #expect(sent.role == .text && sent.replyTo == first && sent.content == "sure")
        let shown = try #require(h.state().currentChat?.messages.last)
        #expect(shown.content == "sure" && shown.isMine)
        #expect(shown.replyTo?.text == "first")
    }

    @Test("edit and delete apply to our own messages only")
    func editAndDeleteOwn() async throws {
        let (h, chatID, service, _, first) = try await Self.chatWithPeerMessage()
        h.dispatch(.editMessage(chatID: chatID, messageID: first, content: "mine now"))
        try await h.waitFor("edit refused") { $0.lastOutcome?.code == .notAuthor }
        h.dispatch(.deleteMessage(chatID: chatID, messageID: first))
        try await h.waitFor("delete refused") {
            $0.lastOutcome?.operation == .deleteMessage && $0.lastOutcome?.code == .notAuthor
        }

        h.dispatch(.sendMessage(chatID: chatID, content: "typo"))
        try await h.waitFor("sent") { $0.currentChat?.messages.last { $0.content == "typo" }?.delivery == .sent }
        let mine = try #require(h.state().currentChat?.messages.last)
        #expect(mine.canModify)
        h.dispatch(.editMessage(chatID: chatID, messageID: mine.id, content: "fixed"))
        try await h.waitFor("edit ok") { $0.lastOutcome?.operation == .editMessage && $0.lastOutcome?.code == .ok }
        #expect(await service.sent.last?.role == .edit(target: mine.id))
        #expect(h.state().currentChat?.messages.last?.content == "fixed")
        #expect(h.state().currentChat?.messages.last?.isEdited == true)

        h.dispatch(.deleteMessage(chatID: chatID, messageID: mine.id))
        try await h.waitFor("delete ok") { $0.lastOutcome?.operation == .deleteMessage && $0.lastOutcome?.code == .ok }
        #expect(await service.sent.last?.role == .deletion(targets: [mine.id]))
        #expect(h.state().currentChat?.messages.map(\.content) == ["first"])
        #expect(h.state().chatList.first?.lastMessage == "first")
    }
}
