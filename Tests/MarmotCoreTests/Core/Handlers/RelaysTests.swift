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
