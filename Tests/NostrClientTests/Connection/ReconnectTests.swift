import Foundation
import Nostr
@testable import NostrClient
import NostrRelay
import TestSupport
import Testing

/// Faults: the relay goes away while a subscription is live and comes back on the same port and file.
@Suite(.timeLimit(.minutes(3))) struct ReconnectTests {
    @Test func clientReconnectsAndReceivesWhatWasPublishedWhileAway() async throws {
        let path = ClientTestSupport.temporaryDatabasePath()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        var relayConfiguration = RelayConfiguration(storage: .file(path: path))
        let first = ClientTestSupport.relay(relayConfiguration)
        let port = try await first.start()
        relayConfiguration.port = port
        let url = "ws://127.0.0.1:\(port)"

        // The subscriber backs off for a while, so events published right after the restart are
        // usually stored before it comes back (either way it must get them).
        var subscriberConfiguration = ClientTestSupport.quickConfiguration()
        subscriberConfiguration.backoff = Backoff(initial: .milliseconds(800), maximum: .seconds(2))
        let subscriber = try await ClientTestSupport.connected(url, subscriberConfiguration)
        let group = String(repeating: "0f", count: 32)
        let filters = [Filter(kinds: [.groupMessage], tags: ["h": [group]])]
        let (inbox, pump) = ClientTestSupport.inbox(await subscriber.subscribe(filters))
        defer { pump.cancel() }
        #expect(await inbox.next() == .endOfStoredEvents)

        let publisher = try await ClientTestSupport.connected(url)
        func message(_ text: String) throws -> Event {
            let keys = Keys.generate()
            return try UnsignedEvent(pubkey: keys.publicKey, createdAt: ClientTestSupport.now, kind: .groupMessage,
                                     tags: [Tag(["h", group])], content: text).signed(with: keys)
        }
        let before = try message("before")
        #expect(await publisher.publish(before).isAccepted)
        #expect(await inbox.next() == .event(before))

        // Relay down: both clients notice and start backing off.
        await first.stop()
        try await ClientTestSupport.waitFor(subscriber, "subscriber notices") { !$0.isConnected }
        try await ClientTestSupport.waitFor(publisher, "publisher notices") { !$0.isConnected }

        // A publish while the relay is down fails within its timeout, and the pool says where.
        let pool = RelayPool(relays: [url], configuration: ClientTestSupport.quickConfiguration(publishTimeout: .seconds(1)),
                             logger: testLogger("pool"))
        await pool.connect()
        let lost = try message("lost")
        let started = ContinuousClock.now
        let result = try await withTimeout(60, "publish while down") { await pool.publish(lost) }
        #expect(ContinuousClock.now - started < .seconds(8), "fails within its 1 s timeout, not much later")
        #expect(!result.isSent)
        #expect(result.accepted.isEmpty)
        #expect(result.failed[url] == .notConnected)
        await pool.disconnect()

        // Back on the same port and file: stored events survived, the subscriber catches up by itself.
        let second = ClientTestSupport.relay(relayConfiguration)
        #expect(try await second.start() == port)
        #expect(try await second.storedEventCount() == 1)
        try await ClientTestSupport.waitFor(publisher, "publisher reconnects") { $0 == .connected }
        let whileAway = [try message("one"), try message("two"), try message("three")]
        for event in whileAway { #expect(await publisher.publish(event).isAccepted) }
        var received: [Event] = []
        while received.count < whileAway.count, let next = await inbox.next(timeout: 15) {
            if case .event(let event) = next { received.append(event) }
        }
        #expect(Set(received.map(\.id)) == Set(whileAway.map(\.id)))
        #expect(!received.contains(before), "already delivered events are not delivered again")
        #expect(await subscriber.status == .connected)

        await subscriber.disconnect()
        await publisher.disconnect()
        await second.stop()
    }

    @Test func pendingPublishIsSentOnceTheRelayIsBack() async throws {
        let relayConfiguration = RelayConfiguration()
        let first = ClientTestSupport.relay(relayConfiguration)
        let port = try await first.start()
        let url = "ws://127.0.0.1:\(port)"
        let client = try await ClientTestSupport.connected(url, ClientTestSupport.quickConfiguration(publishTimeout: .seconds(10)))
        await first.stop()
        try await ClientTestSupport.waitFor(client, "notice") { !$0.isConnected }
        let event = try TestEvents.make(createdAt: ClientTestSupport.now)
        async let result = client.publish(event)
        var again = relayConfiguration
        again.port = port
        let second = ClientTestSupport.relay(again)
        _ = try await second.start()
        #expect(await result == .accepted(message: ""))
        #expect(try await second.storedEventCount() == 1)
        await client.disconnect()
        await second.stop()
    }

    @Test func publishToAnUnreachableRelayReportsNotConnected() async throws {
        let url = try await ClientTestSupport.deadURL()
        let client = ClientTestSupport.client(url, ClientTestSupport.quickConfiguration(publishTimeout: .milliseconds(500)))
        #expect(await client.publish(try TestEvents.make()) == .notConnected, "not connecting at all")
        await client.connect()
        #expect(await client.publish(try TestEvents.make()) == .notConnected, "connecting but never up")
        try await ClientTestSupport.waitFor(client, "backing off") {
            if case .waitingToReconnect = $0 { true } else { false }
        }
        await client.disconnect()
        #expect(await client.status == .disconnected)
    }
}
