import Foundation
import Nostr
import NostrClient
import NostrRelay
import TestSupport
import Testing

/// What the pool's status stream says of each relay for its status line (issue 17), against the
/// embedded relay: why it fails (refused, closed by the relay, refusals) and when it last spoke.
@Suite(.timeLimit(.minutes(3))) struct RelayPoolReportTests {
    @Test func refusedConnectionIsFailingWithTheReason() async throws {
        let dead = try await ClientTestSupport.deadURL()
        let (pool, changes, pump) = await ClientTestSupport.watchedPool([dead])
        defer { pump.cancel() }
        await pool.connect()
        let failing = await changes.first(timeout: 30) { $0.report.failingReason != nil }
        #expect(failing?.relay == dead)
        #expect(failing?.report.failingReason == .connectFailed("connection refused"), "\(String(describing: failing))")
        #expect(await pool.reports[dead]?.failingReason == .connectFailed("connection refused"))
        await pool.disconnect()
        #expect(await changes.first(timeout: 30) { $0.status == .disconnected }?.report.failingReason == nil,
                "a relay disconnected on purpose is not failing")
    }

    @Test func relayClosingTheConnectionIsFailingUntilItIsBack() async throws {
        // The relay closes the socket after the first REQ, then behaves.
        let closes = Counter()
        let relay = ClientTestSupport.relay(RelayConfiguration.faulty(RelayFaults(closeOnREQ: { _, _ in closes.increment() == 1 })))
        let url = "ws://127.0.0.1:\(try await relay.start())"
        let (pool, changes, pump) = await ClientTestSupport.watchedPool([url])
        defer { pump.cancel() }
        await pool.connect()
        #expect(await changes.first(timeout: 30) { $0.status == .connected } != nil)
        let subscription = await pool.subscribe([Filter(kinds: [.textNote])])
        let failing = await changes.first(timeout: 30) { $0.report.failingReason != nil }
        guard case .connectionLost(let reason) = failing?.report.failingReason else {
            Issue.record("no lost connection reported: \(String(describing: failing))")
            return
        }
        #expect(reason == "closed by the relay (normal closure)", "\(reason)")
        let back = await changes.first(timeout: 30) { $0.status == .connected }
        #expect(back?.report.failingReason == nil, "connected again: no longer failing")
        #expect(back?.lastFailure == .connectionLost(reason), "the last failure stays known")
        await pool.unsubscribe(subscription.id)
        await pool.disconnect()
        await relay.stop()
    }

    @Test func refusedEventIsReportedWhileTheRelayStaysConnected() async throws {
        let relay = ClientTestSupport.relay(RelayConfiguration.faulty(RelayFaults(rejectWith: { _ in "blocked: not on the list" })))
        let url = "ws://127.0.0.1:\(try await relay.start())"
        let (pool, changes, pump) = await ClientTestSupport.watchedPool([url])
        defer { pump.cancel() }
        await pool.connect()
        #expect(await changes.first(timeout: 30) { $0.status == .connected } != nil)
        #expect(!(await pool.publish(try TestEvents.make(createdAt: ClientTestSupport.now)).isSent))
        let refused = await changes.first(timeout: 30) { $0.lastFailure != nil }
        #expect(refused?.lastFailure == .rejected("blocked: not on the list"))
        #expect(refused?.status == .connected && refused?.report.failingReason == nil)
        await pool.disconnect()
        await relay.stop()
    }

    @Test func receivedEventMovesLastMessageAtWithThrottledReports() async throws {
        let relay = ClientTestSupport.relay()
        let url = "ws://127.0.0.1:\(try await relay.start())"
        var configuration = ClientTestSupport.quickConfiguration()
        configuration.activityReportInterval = .seconds(3_600)
        let (pool, changes, pump) = await ClientTestSupport.watchedPool([url], configuration: configuration)
        defer { pump.cancel() }
        await pool.connect()
        let up = await changes.first(timeout: 30) { $0.status == .connected }
        #expect(up?.lastMessageAt == nil, "nothing received yet")

        let before = Date().addingTimeInterval(-1)
        let (inbox, subscriptionPump) = ClientTestSupport.inbox(await pool.subscribe([Filter(kinds: [.textNote])]))
        defer { subscriptionPump.cancel() }
        #expect(await inbox.next() == .endOfStoredEvents(relay: url))
        let first = await changes.first(timeout: 30) { $0.lastMessageAt != nil }
        let firstAt = try #require(first?.lastMessageAt)
        #expect(firstAt >= before)

        // More messages within the interval: the time moves, but no further report is sent for them.
        let direct = try await ClientTestSupport.connected(url)
        for index in 0..<5 {
            #expect(await direct.publish(try TestEvents.make(content: "live \(index)", createdAt: ClientTestSupport.now)).isAccepted)
        }
        var received = 0
        while received < 5, let message = await inbox.next(timeout: 10) {
            if case .event = message { received += 1 }
        }
        #expect(received == 5)
        let client = try #require(await pool.client(for: url))
        let latest = try #require(await client.report.lastMessageAt)
        #expect(latest >= firstAt)
        #expect(await changes.first(timeout: 0.5) { $0.lastMessageAt != firstAt } == nil,
                "activity within the interval is not reported per event")
        await direct.disconnect()
        await pool.disconnect()
        await relay.stop()
    }
}
