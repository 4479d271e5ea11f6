import Foundation
import MarmotCore

/// States and values shared by the manager tests.
enum Fixtures {
    static let npub = "npub1testtesttest"
    static let pubkey = String(repeating: "ab", count: 32)
    static let nsec = "nsec1fixturefixturefixture"

    /// A logged-in state on the chat list at `rev`.
    static func loggedIn(rev: UInt64, toast: String? = nil) -> AppState {
        AppState(
            rev: rev, router: Router(defaultScreen: .chatList), auth: .loggedIn(npub: npub, pubkey: pubkey),
            busy: BusyState(), chatList: [], currentChat: nil, toast: toast)
    }

    /// The logged-out state at `rev`.
    static func loggedOut(rev: UInt64, busy: BusyState = BusyState(), toast: String? = nil) -> AppState {
        var state = AppState.initial
        state.rev = rev
        state.busy = busy
        state.toast = toast
        return state
    }

    static func summary(_ id: String) -> ChatSummary {
        ChatSummary(
            chatID: ChatID(id), peerNpub: npub, peerName: nil, lastMessage: nil, lastMessageAt: nil, unreadCount: 0,
            displayName: "npub1test…test", lastMessagePreview: "No messages yet", lastMessageTimeDisplay: "")
    }

    static func message(_ id: String) -> ChatMessage {
        ChatMessage(
            id: MessageID(id), senderPubkey: pubkey, content: "hello", timestamp: 1_700_000_000, isMine: true,
            delivery: .sent, displayTimestamp: "14:05")
    }

    /// A fresh temporary folder path (not created).
    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("marmot-appkit-\(UUID().uuidString)")
    }
}

/// Raised when a condition does not become true in time; the message names the condition.
struct SettleTimeout: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting for: \(what)" }
}

/// Polls `condition` on the main actor, yielding between checks, until it holds; fails after `timeout`.
///
/// Pass/fail never depends on speed: the timeout only bounds a hang.
@MainActor
func settle(
    _ what: String, timeout: Duration = .seconds(90), _ condition: @MainActor () -> Bool
) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while !condition() {
        guard clock.now < deadline else {
            throw SettleTimeout(what: what)
        }
        try await Task.sleep(for: .milliseconds(2))
    }
}
