import Foundation
import MarmotCore
import Testing

/// The session's relays: the core validates, the messaging layer switches, the state lists them.
@Suite("Relays") struct RelaysTests {
    @Test("adding, refusing bad addresses and keeping at least one relay")
    func addRemove() async throws {
        let h = AppHarness(relays: [URL(string: "wss://a.example")!])
        try await h.createAccount()
        let service = try #require(h.service)
        h.dispatch(.addRelay(url: " wss://b.example "))
        try await h.waitFor("added") { $0.lastOutcome?.operation == .changeRelays && $0.lastOutcome?.isSuccess == true }
        #expect(h.state().network.relays.map(\.url) == ["wss://a.example", "wss://b.example"])
        #expect(await service.relaySets.last == [URL(string: "wss://a.example")!, URL(string: "wss://b.example")!])

        h.dispatch(.addRelay(url: "https://not-a-relay.example"))
        try await h.waitFor("refused") { $0.lastOutcome?.operation == .changeRelays && $0.lastOutcome?.isSuccess == false }
        h.dispatch(.removeRelay(url: "wss://a.example"))
        try await h.waitFor("removed") { $0.network.relays.map(\.url) == ["wss://b.example"] }
        h.dispatch(.removeRelay(url: "wss://b.example"))
        try await h.waitFor("last kept") { $0.lastOutcome?.code == .relayUnreachable }
        #expect(h.state().network.relays.map(\.url) == ["wss://b.example"])
    }
}

/// Each relay's state and its words (issue 17): the core words what the messaging layer reports and
/// keeps "last event … ago" current on its own timer.
@Suite("Relay status") struct RelayStatusTests {
    static let a = "wss://a.example", b = "wss://b.example"

    @Test("failing with its reason, connected with its last event, both in the network slice")
    func statesAndTexts() async throws {
        let h = AppHarness(relays: [URL(string: Self.a)!, URL(string: Self.b)!])
        try await h.createAccount()
        let service = try #require(h.service)
        let lastEvent = AppHarness.nowSeconds - 150
        await service.emit(.relayStatus(RelayStatus(
            connected: 1, total: 2, relays: [Self.a: true, Self.b: false],
            details: [
                Self.a: RelayDetail(state: .connected, lastEventAt: lastEvent),
                Self.b: RelayDetail(state: .failing(reason: "connection refused")),
            ])))
        try await h.waitFor("relays reported") { $0.network.relays.first?.lastEventAt == lastEvent }
        let relays = h.state().network.relays
        #expect(relays.map(\.url) == [Self.a, Self.b])
        #expect(relays[0].state == .connected && relays[0].connected)
        #expect(relays[0].statusText == "connected · last event 2 min ago")
        #expect(relays[1].state == .failing(reason: "connection refused") && !relays[1].connected)
        #expect(relays[1].statusText == "failing: connection refused")
        try await h.waitForListener()
        #expect(h.recorder.mirror(from: AppState.initial)?.network == h.state().network, "the update stream carries it")

        // The core's timer wakes when the age can next change (30 s before "3 min ago"), and again after.
        try await waitUntil("relay clock scheduled") { h.timer.durations.contains(.seconds(30)) }
        let rev = h.state().rev
        h.timer.fire()
        try await waitUntil("relay clock rescheduled") { h.timer.waiting == 1 }
        #expect(h.state().rev == rev, "a tick that changes no text commits nothing")

        // Back: connected; the reason is gone.
        await service.emit(.relayStatus(RelayStatus(
            connected: 2, total: 2, relays: [Self.a: true, Self.b: true],
            details: [Self.a: RelayDetail(state: .connected, lastEventAt: lastEvent), Self.b: RelayDetail(state: .connected)])))
        try await h.waitFor("b connected") { $0.network.relays.last?.state == .connected }
        #expect(h.state().network.relays.last?.statusText == "connected")
    }

    @Test("ages to the minute")
    func ages() {
        let formatter = DisplayFormatter(clock: .fixed(AppHarness.now))
        let now = AppHarness.nowSeconds
        #expect(formatter.age(since: now - 5) == "just now")
        #expect(formatter.age(since: now + 5) == "just now", "a relay clock ahead of ours")
        #expect(formatter.age(since: now - 61) == "1 min ago")
        #expect(formatter.age(since: now - 7_300) == "2 h ago")
        #expect(formatter.age(since: now - 3 * 86_400) == "3 d ago")
        #expect(formatter.relayStatus(.disconnected, lastEventAt: nil) == "disconnected")
        #expect(formatter.relayStatus(.connecting, lastEventAt: now) == "connecting…")
        #expect(formatter.relayStatus(.failing(reason: "connection timed out"), lastEventAt: now - 600)
            == "failing: connection timed out · last event 10 min ago")
    }
}
