import Foundation
import MarmotCore
import Nostr
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
        #expect(formatter.relayStatus(.failing(reason: "connection refused"), lastEventAt: now - 600, downSince: now - 300)
            == "failing: connection refused · down since 5 min ago")
    }
}

/// Relays the user did not choose (issue 26): a chat's group names them; the relays screen lists
/// them apart from the user's own, with the chats that brought them, and drops them when the
/// messaging layer stops using them.
@Suite("Group relays") struct GroupRelaysTests {
    static let own = "wss://own.example", g1 = "wss://g1.example", g2 = "wss://g2.example"

    @Test("listed with their chats and connection, apart from the user's own, and gone once unused")
    func listedWithOrigin() async throws {
        let h = AppHarness(relays: [URL(string: Self.own)!])
        try await h.createAccount()
        let service = try #require(h.service)
        var book = ChatInfo(chatID: "book", peer: Keys.generate().publicKey, createdAt: AppHarness.nowSeconds)
        book.groupName = "Book club"
        book.isDirect = false
        var team = ChatInfo(chatID: "team", peer: Keys.generate().publicKey, createdAt: AppHarness.nowSeconds)
        team.groupName = "Team"
        team.isDirect = false
        await service.invite(book)
        await service.invite(team)
        try await h.waitFor("chats listed") { $0.chatList.count == 2 }

        await service.emit(.relayStatus(RelayStatus(
            connected: 2, total: 3, relays: [Self.own: true, Self.g1: true, Self.g2: false],
            details: [Self.g2: RelayDetail(state: .failing(reason: "connection refused"))],
            groupRelays: [
                GroupRelayOrigin(url: Self.g1, chats: ["book", "team"]),
                GroupRelayOrigin(url: Self.g2, chats: ["team"]),
                // One of the user's own relays that a group also names is listed only as the user's.
                GroupRelayOrigin(url: Self.own, chats: ["book"]),
            ])))
        try await h.waitFor("group relays listed") { $0.network.groupRelays.count == 2 }
        let network = h.state().network
        #expect(network.relays.map(\.url) == [Self.own], "the user's own list is unchanged")
        let listed = network.groupRelays
        #expect(listed.map(\.url) == [Self.g1, Self.g2])
        #expect(listed[0].chats.map(\.chatID) == ["book", "team"])
        #expect(listed[0].chats.map(\.title) == ["Book club", "Team"])
        #expect(listed[0].originText == "from Book club, Team")
        #expect(listed[0].relay.connected && listed[0].relay.statusText == "connected")
        #expect(listed[1].originText == "from Team")
        #expect(listed[1].relay.statusText == "failing: connection refused")
        try await h.waitForListener()
        #expect(h.recorder.mirror(from: AppState.initial)?.network == h.state().network, "the update stream carries it")

        // The layer stopped using g2 (no group names it any more).
        await service.emit(.relayStatus(RelayStatus(
            connected: 2, total: 2, relays: [Self.own: true, Self.g1: true],
            groupRelays: [GroupRelayOrigin(url: Self.g1, chats: ["book"])])))
        try await h.waitFor("g2 gone") { $0.network.groupRelays.map(\.url) == [Self.g1] }
        #expect(h.state().network.groupRelays.first?.originText == "from Book club")
    }

    @Test("origin words")
    func originWords() {
        let formatter = DisplayFormatter(clock: .fixed(AppHarness.now))
        #expect(formatter.relayOrigin([]) == "from a chat")
        #expect(formatter.relayOrigin(["A"]) == "from A")
        #expect(formatter.relayOrigin(["A", "B", "C", "D"]) == "from A, B +2")
    }
}
