import Foundation
import MarmotCore
import Nostr
import NostrClient
import NostrRelay
import Testing

/// Each relay's status through the real app (issue 17): a relay that goes away shows failing with a
/// reason in the state and in the update stream, and connected again when it is back.
@Suite(.serialized, .timeLimit(.minutes(3))) struct MarmotRelayStatusTests {
    @Test func relayThatGoesAwayShowsFailingWithAReasonThenConnected() async throws {
        let world = LiveWorld()
        defer { Task { await world.close() } }
        let (server, relay) = try await world.startRelay(file: "relay.sqlite")
        let port = try #require(relay.port)
        let alice = world.app("alice", relays: [relay], options: LiveApp.quickFailureOptions)
        _ = try await alice.createAccount()
        try await alice.waitFor("connected, with the relay's last event") { state in
            state.network.relays.first?.state == .connected && state.network.relays.first?.lastEventAt != nil
        }
        let up = try #require(alice.state().network.relays.first)
        #expect(up.url == relay.absoluteString)
        #expect(up.statusText == "connected · last event just now", "\(up.statusText)")

        await server.stop()
        try await alice.waitFor("failing") { state in
            if case .failing = state.network.relays.first?.state { true } else { false }
        }
        let down = try #require(alice.state().network.relays.first)
        guard case .failing(let reason) = down.state else { return }
        #expect(!reason.isEmpty)
        #expect(down.statusText.hasPrefix("failing: \(reason)"), "\(down.statusText)")
        #expect(down.lastEventAt != nil, "the last event stays known while failing")
        // Which relays are down and since when (issue 50): since the first failed attempt.
        let stopped = Int64(Date().timeIntervalSince1970)
        let since = try #require(down.downSince, "a failing relay says since when")
        #expect(since <= stopped && since >= stopped - 120)
        #expect(down.statusText == "failing: \(reason) · down since just now", "\(down.statusText)")
        try await alice.waitForListener()
        let reported = alice.recorder.updates.contains { update in
            let network: NetworkState? =
                switch update {
                case .networkChanged(_, let network): network
                case .fullState(let state): state.network
                default: nil
                }
            if case .failing = network?.relays.first?.state { return true }
            return false
        }
        #expect(reported, "the update stream carried the failing relay")

        _ = try await world.startRelay(port: port, file: "relay.sqlite")
        try await alice.waitFor("connected again") { $0.network.relays.first?.state == .connected }
        #expect(alice.state().network.relays.first?.downSince == nil)
        #expect(alice.state().network.relays.first?.statusText.hasPrefix("connected") == true)
        try await alice.waitForListener()
        #expect(alice.recorder.mirror(from: alice.initial)?.network == alice.state().network)
    }
}
