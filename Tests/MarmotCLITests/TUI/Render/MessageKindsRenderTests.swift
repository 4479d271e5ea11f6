import MarmotCore
import Testing

@testable import MarmotCLI

/// Issue 25 in the terminal UI: reactions under a bubble, a reply's quote above it, "edited" after
/// the time; with a message highlighted, + toggles 👍, ^Y answers, ^E edits and ^D deletes our own.
struct MessageKindsRenderTests {
    typealias F = TUIFixtures

    static func decorated() -> AppState {
        var theirs = F.message("m1", "Hello from Alice", mine: false, time: "14:01")
        theirs.reactions = [
            ReactionSummary(emoji: "👍", count: 2, senderPubkeys: ["cd", F.pubkey], includesMe: true),
            ReactionSummary(emoji: "❤", count: 1, senderPubkeys: ["cd"], includesMe: false),
        ]
        var mine = F.message("m2", "Fine, thanks", mine: true, time: "14:02")
        mine.replyTo = ReplyQuote(messageID: "m1", isAvailable: true, senderPubkey: "cd", senderDisplay: "npub1alic…e123", text: "Hello from Alice")
        mine.isEdited = true
        var orphan = F.message("m3", "what was that?", mine: false, time: "14:03")
        orphan.replyTo = ReplyQuote(messageID: "gone", isAvailable: false, senderPubkey: nil, senderDisplay: "", text: ReplyQuote.unavailableText)
        return F.inChat(messages: [theirs, mine, orphan])
    }

    @Test func reactionsQuotesAndEditedMarkAreDrawn() {
        let lines = F.render(Self.decorated())
        let text = lines.joined(separator: "\n")
        #expect(text.contains("👍 2  ❤ 1"), "\(text)")
        #expect(text.contains("↳ npub1alic…e123: Hello from Alice"), "\(text)")
        #expect(text.contains("↳ message not available"), "\(text)")
        #expect(lines.contains { $0.contains("14:02 · edited") }, "\(text)")
        // The quote sits above its reply's text.
        let quote = lines.firstIndex { $0.contains("↳ npub1alic") } ?? .max
        let reply = lines.firstIndex { $0.contains("Fine, thanks") } ?? .min
        #expect(quote < reply)
    }

    @Test func highlightedMessageKeysDispatchTheCoreActions() {
        let state = Self.decorated()
        // ↑ highlights the newest (m3), ↑ again m2 (ours), ↑ m1 (theirs, where we reacted 👍).
        let onTheirs = F.press([.up, .up, .up], on: state)
        #expect(onTheirs.ui.selectedMessage == "m1")
        #expect(F.press([.character("+")], on: state, ui: onTheirs.ui).actions == [.unreact(chatID: F.alice, messageID: "m1", emoji: "👍")])
        // Not ours: no edit or delete.
        #expect(F.press([.control("e")], on: state, ui: onTheirs.ui).actions.isEmpty)
        #expect(F.press([.control("d")], on: state, ui: onTheirs.ui).actions.isEmpty)
        // Where the core says we may delete it (an admin's moderation grant), ^D deletes it.
        var moderating = state
        moderating.currentChat?.messages[0].canDelete = true
        #expect(F.press([.control("d")], on: moderating, ui: onTheirs.ui).actions == [.deleteMessage(chatID: F.alice, messageID: "m1")])
        #expect(F.press([.control("e")], on: moderating, ui: onTheirs.ui).actions.isEmpty, "but never edits it")

        let replying = F.press([.control("y")] + F.typing("sure") + [.enter], on: state, ui: onTheirs.ui)
        #expect(replying.actions == [.reply(chatID: F.alice, messageID: "m1", content: "sure")])

        let onOurs = F.press([.up, .up], on: state)
        #expect(onOurs.ui.selectedMessage == "m2")
        #expect(F.press([.character("+")], on: state, ui: onOurs.ui).actions == [.react(chatID: F.alice, messageID: "m2", emoji: "👍")])
        let editing = F.press([.control("e")], on: state, ui: onOurs.ui)
        #expect(editing.ui.draft == "Fine, thanks" && editing.ui.composing == .edit("m2"))
        #expect(F.render(state, editing.ui).contains { $0.hasPrefix(" edit > ") })
        let edited = F.press(F.typing("!") + [.enter], on: state, ui: editing.ui)
        #expect(edited.actions == [.editMessage(chatID: F.alice, messageID: "m2", content: "Fine, thanks!")])
        #expect(F.press([.control("d")], on: state, ui: onOurs.ui).actions == [.deleteMessage(chatID: F.alice, messageID: "m2")])
        // Esc leaves a reply or edit without sending.
        let cancelled = F.press([.escape], on: state, ui: editing.ui)
        #expect(cancelled.actions.isEmpty && cancelled.ui.composing == nil && cancelled.ui.draft.isEmpty)
    }
}
