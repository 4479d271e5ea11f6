import Foundation
import Nostr
import NostrClient
import NostrRelay
import TestSupport
import Testing

/// A lookup (someone's key package or relay list, which one relay may hold alone) is not cut short
/// by a faster relay's empty answer: the slow relay that holds the event is waited for, within the
/// lookup bounds, and a mute relay is still let go.
@Suite(.timeLimit(.minutes(3))) struct LookupCatchUpTests {
    @Test func aLookupWaitsForTheSlowRelayThatHoldsTheEvent() async throws {
        let fast = ClientTestSupport.relay()
        let fastURL = "ws://127.0.0.1:\(try await fast.start())"
        // Answers every REQ 1 s late: well past the 300 ms a live catch-up gives the others.
        var slowConfiguration = RelayConfiguration()
        slowConfiguration.faults.answerDelay = .seconds(1)
        let slow = ClientTestSupport.relay(slowConfiguration)
        let slowURL = "ws://127.0.0.1:\(try await slow.start())"
        let only = try TestEvents.make(content: "only on the slow relay", createdAt: ClientTestSupport.now - 5)
        let writer = try await ClientTestSupport.connected(slowURL)
        #expect(await writer.publish(only).isAccepted)
        await writer.disconnect()

        let pool = RelayPool(relays: [fastURL, slowURL], configuration: ClientTestSupport.quickConfiguration(), logger: testLogger("pool"))
        await pool.connect()
        let (inbox, pump) = ClientTestSupport.inbox(await pool.subscribe([Filter(kinds: [.textNote])], lookup: true))
        defer { pump.cancel() }
        var events: [EventID] = []
        var caughtUp = false
        while let message = await inbox.next(timeout: 120) {
            if case .event(let event, _) = message { events.append(event.id) }
            if message == .caughtUp {
                caughtUp = true
                break
            }
        }
        #expect(caughtUp)
        #expect(events == [only.id], "the slow relay's event came before the lookup ended")
        await pool.disconnect()
        await slow.stop()
        await fast.stop()
    }

    @Test func aLookupStillLetsAMuteRelayGo() async throws {
        let live = ClientTestSupport.relay()
        let liveURL = "ws://127.0.0.1:\(try await live.start())"
        var muteConfiguration = RelayConfiguration()
        muteConfiguration.faults.answerDelay = .seconds(3600)
        let mute = ClientTestSupport.relay(muteConfiguration)
        let muteURL = "ws://127.0.0.1:\(try await mute.start())"
        let pool = RelayPool(relays: [liveURL, muteURL], configuration: ClientTestSupport.quickConfiguration(), logger: testLogger("pool"))
        await pool.connect()
        let (inbox, pump) = ClientTestSupport.inbox(await pool.subscribe([Filter(kinds: [.textNote])], lookup: true))
        defer { pump.cancel() }
        var caughtUp = false
        while let message = await inbox.next(timeout: 120) {
            if message == .caughtUp {
                caughtUp = true
                break
            }
        }
        #expect(caughtUp, "the lookup waited for the mute relay for ever")
        await pool.disconnect()
        await mute.stop()
        await live.stop()
    }
}
