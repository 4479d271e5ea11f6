import MarmotCore
import Testing

@testable import MarmotCLI

/// States for the Notes row and the Devices screen's tests (issue 29), as the core would project them.
enum DevicesFixtures {
    typealias F = TUIFixtures

    static let laptop = "a1b2c3d4e5f60718"
    static let phone = "0f1e2d3c4b5a6978"
    static let tablet = "99aa88bb77cc66dd"
    static let notesID: ChatID = "ee55"

    /// The Notes chat's row, as the core lists it first.
    static var notesSummary: ChatSummary {
        var summary = ChatSummary(
            chatID: notesID, peerNpub: F.npub, peerName: nil, lastMessage: "buy milk", lastMessageAt: 1_700_000_100,
            unreadCount: 1, displayName: "Notes", lastMessagePreview: "You: buy milk", lastMessageTimeDisplay: "14:06",
            isGroup: true, memberCount: 2, protocolVersion: .v2)
        summary.isNotes = true
        return summary
    }

    /// This laptop (linked), the phone (linked, added Mon) and the tablet (waiting).
    static let list: [DeviceSummary] = [
        DeviceSummary(id: laptop, name: "laptop", addedAt: 1_699_000_000, addedDisplay: "Sun", isThisDevice: true, isLinked: true),
        DeviceSummary(id: phone, name: "phone", addedAt: 1_699_100_000, addedDisplay: "Mon", isThisDevice: false, isLinked: true),
        DeviceSummary(id: tablet, name: "tablet", addedAt: nil, addedDisplay: "", isThisDevice: false, isLinked: false),
    ]

    /// The Devices screen over the chat list with `list` read.
    static func devices(
        _ list: [DeviceSummary] = list, loaded: Bool = true, loading: Bool = false, outcome: OperationOutcome? = nil
    ) -> AppState {
        var state = F.loggedIn(chats: [notesSummary, F.aliceSummary], stack: [.devices])
        state.devices.list = list
        state.devices.loaded = loaded
        state.devices.loading = loading
        state.lastOutcome = outcome
        return state
    }
}
