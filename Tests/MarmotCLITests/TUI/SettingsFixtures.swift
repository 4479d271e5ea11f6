import MarmotCore
import Testing

@testable import MarmotCLI

/// States for the Relays and Profile screens' tests, as the core would project them.
enum SettingsFixtures {
    typealias F = TUIFixtures

    static let first = "wss://relay.one.example"
    static let second = "ws://127.0.0.1:7447"

    /// The Relays screen over the chat list, with `first` connected and `second` connecting.
    static func relays(outcome: OperationOutcome? = nil) -> AppState {
        var state = F.loggedIn(stack: [.relays])
        state.network = NetworkState(connectedRelays: 1, totalRelays: 2)
        state.network.relays = [RelayEntry(url: first, connected: true), RelayEntry(url: second, connected: false)]
        state.lastOutcome = outcome
        return state
    }

    /// The Profile screen with the core's `profile`.
    static func profile(_ profile: ProfileState = ProfileState(), outcome: OperationOutcome? = nil) -> AppState {
        var state = F.loggedIn(stack: [.profile])
        state.profile = profile
        state.lastOutcome = outcome
        return state
    }
}
