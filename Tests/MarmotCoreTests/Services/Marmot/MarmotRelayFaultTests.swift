import Foundation
import MarmotCore
import Nostr
import NostrClient
import NostrRelay
import Testing
import TestSupport

/// Relay faults seen from the app: delivery states and the network slice, through app state.
@Suite(.serialized, .timeLimit(.minutes(3))) struct MarmotRelayFaultTests {
    /// The relay stores Alice's message and forwards it to Bob but never answers OK: Alice sees it
    /// fail with a timeout (no text in the reason) while her network slice stays online; Bob gets it
    /// once; Alice's retry republishes the same event, which the relay now acknowledges.
    @Test func relayThatNeverAnswersOKFailsThenRetrySendsOnce() async throws {
        let world = LiveWorld()
        defer { Task { await world.close() } }
        let withhold = FaultSwitch()
        let (_, relay) = try await world.startRelay(faults: RelayFaults(withholdOK: { $0.kind == .groupMessage && withhold.isOn }))
        let p = try await MarmotMessagingTests.pair(world, relay: relay, options: LiveApp.quickFailureOptions)
        p.bob.dispatch(.pushScreen(.chat(chatID: p.chatID)))

        withhold.isOn = true
        p.alice.dispatch(.sendMessage(chatID: p.chatID, content: "no answer"))
        try await p.alice.waitFor("failed") { state in
            if case .failed = state.currentChat?.messages.last?.delivery { true } else { false }
        }
        guard case .failed(let reason) = p.alice.state().currentChat?.messages.last?.delivery else { return }
        #expect(reason.contains("timed out"), "\(reason)")
        #expect(!reason.contains("no answer"))
        #expect(p.alice.state().network.isOnline)
        try await p.bob.waitFor("bob got it anyway") { $0.currentChat?.messages.contains { $0.content == "no answer" } == true }

        withhold.isOn = false
        let id = try #require(p.alice.state().currentChat?.messages.last?.id)
        p.alice.dispatch(.retryMessage(chatID: p.chatID, messageID: id))
        try await p.alice.waitFor("sent") { $0.currentChat?.messages.last?.delivery == .sent }
        try await Task.sleep(for: .milliseconds(500))
        #expect(p.bob.state().currentChat?.messages.filter { $0.content == "no answer" }.count == 1)
    }
}
