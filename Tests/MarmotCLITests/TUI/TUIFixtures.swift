import Foundation
import MarmotCore
import Testing

@testable import MarmotCLI

/// States for renderer and key-map tests, with display strings as the core would produce them.
enum TUIFixtures {
    static let npub = "npub1qqqsyqcyq5rqwzqfpg9scrgwpugpzysnzs23v9ccrydpk8qarc0sqkfqzu"
    static let pubkey = String(repeating: "ab", count: 32)
    static let alice: ChatID = "aa11"
    static let bob: ChatID = "bb22"

    static var loggedOut: AppState { .initial }

    static func loggedIn(chats: [ChatSummary] = [aliceSummary, bobSummary], stack: [Screen] = []) -> AppState {
        AppState(
            rev: 7, router: Router(defaultScreen: .chatList, screenStack: stack),
            auth: .loggedIn(npub: npub, pubkey: pubkey), busy: BusyState(), chatList: chats, currentChat: nil, toast: nil)
    }

    static let aliceSummary = ChatSummary(
        chatID: alice, peerNpub: "npub1alice", peerName: "Alice", lastMessage: "see you at noon", lastMessageAt: 1_700_000_000,
        unreadCount: 3, displayName: "Alice", lastMessagePreview: "see you at noon", lastMessageTimeDisplay: "14:05",
        protocolVersion: .v2)

    static let bobSummary = ChatSummary(
        chatID: bob, peerNpub: "npub1bob", peerName: nil, lastMessage: "hi", lastMessageAt: 1_699_900_000,
        unreadCount: 0, displayName: "npub1bobx…wxyz", lastMessagePreview: "You: hi", lastMessageTimeDisplay: "Yesterday")

    static let carolInvite: InviteID = "cc33"

    static let carolInviteSummary = InviteSummary(
        inviteID: carolInvite, inviterNpub: "npub1carol", inviterDisplayName: "npub1caro…wxyz", groupName: "",
        memberCount: 2, title: "npub1caro…wxyz invites you to a chat", receivedTimeDisplay: "09:30")

    static let groupSummary = ChatSummary(
        chatID: "dd44", peerNpub: "npub1dave", peerName: nil, lastMessage: "npub1dave… added you", lastMessageAt: 1_699_800_000,
        unreadCount: 0, displayName: "Climbing", lastMessagePreview: "npub1dave… added you",
        lastMessageTimeDisplay: "Mon", isGroup: true, memberCount: 3)

    /// The chat list with `invites` above `chats`.
    static func withInvites(
        _ invites: [InviteSummary] = [carolInviteSummary], chats: [ChatSummary] = [aliceSummary, bobSummary],
        answering: Set<InviteID> = []
    ) -> AppState {
        var state = loggedIn(chats: chats)
        // As the core projects it: an invitation being answered cannot be answered again.
        state.invites = invites.map { invite in
            var invite = invite
            invite.canAnswer = !answering.contains(invite.inviteID)
            return invite
        }
        state.busy.answeringInvites = answering
        return state
    }

    static func message(
        _ id: MessageID, _ content: String, mine: Bool, delivery: MessageDeliveryState = .sent, time: String = "14:05"
    ) -> ChatMessage {
        var message = ChatMessage(
            id: id, senderPubkey: mine ? pubkey : "cd", content: content, timestamp: 1_700_000_000, isMine: mine,
            delivery: delivery, displayTimestamp: time)
        // As the core's projection says: our own texts may be deleted.
        message.canDelete = mine
        return message
    }

    static let conversation: [ChatMessage] = [
        message("m1", "Hello from Alice", mine: false, time: "14:01"),
        message("m2", "Hi Alice, how are you?", mine: true, time: "14:02"),
        message("m3", "still sending", mine: true, delivery: .pending, time: "14:03"),
        message("m4", "this one failed", mine: true, delivery: .failed(reason: "relay unreachable"), time: "14:04"),
    ]

    /// The chat with Alice open on top of the chat list.
    static func inChat(messages: [ChatMessage] = conversation, canLoadOlder: Bool = false) -> AppState {
        var state = loggedIn(stack: [.chat(chatID: alice)])
        state.currentChat = ChatViewState(
            chatID: alice, peerNpub: "npub1alice", peerName: "Alice", displayName: "Alice", messages: messages,
            canLoadOlder: canLoadOlder)
        return state
    }

    static func render(_ state: AppState, _ ui: TUIViewState? = nil, status: String = "relay: connected") -> [String] {
        TUIRenderer.render(state, ui ?? self.ui(for: state), RenderContext(statusLine: status)).text
    }

    /// A view state already showing `state`'s top screen, changed by `change`.
    static func ui(
        for state: AppState, _ size: TerminalSize = .standard, _ change: (inout TUIViewState) -> Void = { _ in }
    ) -> TUIViewState {
        var ui = TUIViewState(size: size).reconciled(with: state)
        change(&ui)
        return ui
    }

    /// Presses `keys` in order on `state` (which does not change), collecting the actions; the view
    /// state is reconciled with `state` before each key, as the driver does.
    static func press(_ keys: [Key], on state: AppState, ui: TUIViewState? = nil) -> TUIKeyMap.Result {
        var current = ui ?? Self.ui(for: state)
        var actions: [AppAction] = []
        for key in keys {
            let result = TUIKeyMap.handle(key, state: state, ui: current.reconciled(with: state))
            current = result.ui
            actions += result.actions
        }
        return (current, actions)
    }

    static func typing(_ text: String) -> [Key] { text.map { .character($0) } }

    /// The sizes a full screen is checked at: the standard 80x24 and a large terminal.
    static let screenSizes = [TerminalSize(columns: 80, rows: 24), TerminalSize(columns: 132, rows: 40)]

    /// `state` rendered at `size`, its view state changed by `change`; the frame is checked to fit.
    static func renderFitting(
        _ state: AppState, _ size: TerminalSize, _ change: (inout TUIViewState) -> Void = { _ in }
    ) -> [String] {
        let lines = render(state, ui(for: state, size, change))
        expectFits(lines, size)
        return lines
    }

    /// Every frame has exactly the terminal's rows, none wider than its columns.
    static func expectFits(_ lines: [String], _ size: TerminalSize) {
        #expect(lines.count == size.rows)
        for line in lines { #expect(TextWidth.of(line) <= size.columns, "too wide: \(line)") }
    }
}

/// One person's terminal UI in a driven test: the session's manager and the view state the driver
/// keeps; keys go through the key map and frames through the renderer, as the driver would.
@MainActor
final class DrivenScreen {
    let session: CLISession
    var ui = TUIViewState()

    init(_ session: CLISession) { self.session = session }

    func press(_ keys: [Key]) {
        for key in keys {
            let state = session.state
            let result = TUIKeyMap.handle(key, state: state, ui: ui.reconciled(with: state))
            ui = result.ui
            for action in result.actions { session.dispatch(action) }
        }
    }

    func type(_ text: String) { press(text.map { .character($0) }) }

    var frame: [String] {
        let state = session.state
        ui = ui.reconciled(with: state)
        return TUIRenderer.render(state, ui, RenderContext()).text
    }
}

extension TUIFixtures {
    /// Opens `name`'s session with its home under `root`, on the in-process `relay` only (no
    /// embedded-relay notice); `savesRelayChanges` as the interactive UI sets it.
    @MainActor
    static func openSession(
        _ name: String, root: URL, relay: EmbeddedRelay, savesRelayChanges: Bool = false
    ) async throws -> CLISession {
        var configuration = CLISession.Configuration(
            home: root.appendingPathComponent(name, isDirectory: true), relays: RelayPlan(urls: [relay.url], source: .option))
        configuration.announceEmbeddedRelay = false
        configuration.savesRelayChanges = savesRelayChanges
        return try await CLISession.open(configuration)
    }
}
