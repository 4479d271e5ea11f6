import Nostr
@testable import NostrClient
import Testing

/// The client's outbound queue is bounded: a relay that never answers cannot make it grow forever.
@Suite struct PendingPublishBoundTests {
    /// A relay that swallows every EVENT (no OK): past the bound, publishes are refused at once, and
    /// the queue never holds more than the bound; one answer makes room again.
    @Test func floodOfUnansweredPublishesIsRefusedBeyondTheBound() throws {
        var configuration = RelayClientConfiguration()
        configuration.maxPendingPublishes = 50
        var machine = RelayConnectionMachineTests.connected(configuration)
        let keys = Keys.generate()
        var refused: [EventID] = []
        var events: [Event] = []
        for index in 0..<200 {
            let event = try UnsignedEvent(pubkey: keys.publicKey, createdAt: 1_700_000_000, kind: .textNote, tags: [],
                                          content: "flood \(index)").signed(with: keys)
            events.append(event)
            for case .publishFinished(let id, .rejected(let reason)) in machine.handle(.publishRequested(event)) {
                #expect(reason.hasPrefix("client:"))
                refused.append(id)
            }
        }
        #expect(refused.count == 150)
        #expect(machine.pending.count == 50)
        _ = machine.handle(.messageReceived(socket: 1, text: RelayMessage.ok(events[0].id, accepted: true, message: "").jsonString))
        #expect(machine.pending.count == 49)
        let room = machine.handle(.publishRequested(events[199]))
        #expect(!room.contains { if case .publishFinished(_, .rejected) = $0 { true } else { false } })
        #expect(machine.pending.count == 50)
    }
}
