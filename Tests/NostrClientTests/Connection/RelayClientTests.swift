import Foundation
import Nostr
import NostrClient
import NostrRelay
import TestSupport
import Testing

/// The client's socket side against the embedded relay: subscriptions, CLOSE, status, disconnect.
@Suite(.timeLimit(.minutes(3))) struct RelayClientTests {
    @Test func endingIterationClosesTheSubscriptionOnTheRelay() async throws {
        let relay = ClientTestSupport.relay()
        let port = try await relay.start()
        let client = try await ClientTestSupport.connected("ws://127.0.0.1:\(port)")
        let task = Task {
            for await message in await client.subscribe([Filter(kinds: [.textNote])]) where message == .endOfStoredEvents {
                break
            }
        }
        await task.value
        _ = try await withTimeout(30, "relay sees CLOSE") {
            while await relay.connectionCounts()?.subscriptions != 0 { try await Task.sleep(for: .milliseconds(20)) }
            return true
        }
        #expect(await relay.connectionCounts()?.connections == 1)
        await client.disconnect()
        _ = try await withTimeout(30, "relay sees the socket close") {
            while await relay.connectionCounts()?.connections != 0 { try await Task.sleep(for: .milliseconds(20)) }
            return true
        }
        await relay.stop()
    }

    @Test func statusStreamReportsTheLifecycle() async throws {
        let relay = ClientTestSupport.relay()
        let port = try await relay.start()
        let client = ClientTestSupport.client("ws://127.0.0.1:\(port)")
        let (inbox, pump) = ClientTestSupport.inbox(await client.statusUpdates())
        defer { pump.cancel() }
        #expect(await inbox.next() == .disconnected)
        await client.connect()
        #expect(await inbox.next() == .connecting(attempt: 0))
        #expect(await inbox.next() == .connected)
        await relay.stop()
        guard case .waitingToReconnect(let attempt, _)? = await inbox.next() else {
            Issue.record("expected waitingToReconnect")
            return
        }
        #expect(attempt == 1)
        await client.disconnect()
        #expect(await inbox.first { $0 == .disconnected } != nil)
    }

    @Test func subscriptionsSurviveDisconnectAndConnect() async throws {
        let relay = ClientTestSupport.relay()
        let port = try await relay.start()
        let url = "ws://127.0.0.1:\(port)"
        let client = try await ClientTestSupport.connected(url)
        let (inbox, pump) = ClientTestSupport.inbox(await client.subscribe([Filter(kinds: [.textNote])]))
        defer { pump.cancel() }
        #expect(await inbox.next() == .endOfStoredEvents)
        await client.disconnect()
        let publisher = try await ClientTestSupport.connected(url)
        let event = try TestEvents.make(createdAt: ClientTestSupport.now)
        #expect(await publisher.publish(event).isAccepted)
        await client.connect()
        #expect(await inbox.next() == .event(event))
        await client.disconnect()
        await publisher.disconnect()
        await relay.stop()
    }
}
