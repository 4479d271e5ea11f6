import Foundation
import Nostr
import NostrClient
import NostrRelay
import TestSupport
import Testing

/// The relay client and pool against an embedded relay told to misbehave (`RelayFaults`): no `OK`,
/// `OK false` with a reason, the socket closed in the middle of a REQ, slow answers, and a restart on
/// the same port. Each test checks the publish results and the connection status stream.
@Suite(.timeLimit(.minutes(3))) struct RelayFaultTests {
    @Test func publishTimesOutWhenTheRelayStoresButNeverAnswers() async throws {
        let relay = ClientTestSupport.relay(RelayConfiguration.faulty(RelayFaults(withholdOK: { _ in true })))
        let url = "ws://127.0.0.1:\(try await relay.start())"
        let client = try await ClientTestSupport.connected(url, ClientTestSupport.quickConfiguration(publishTimeout: .seconds(1)))
        let started = ContinuousClock.now
        let result = await client.publish(try TestEvents.make(createdAt: ClientTestSupport.now))
        let elapsed = ContinuousClock.now - started
        #expect(result == .timedOut)
        #expect(elapsed >= .milliseconds(900) && elapsed < .seconds(9), "times out after its 1 s (not its default 10 s), took \(elapsed)")
        #expect(try await relay.storedEventCount() == 1, "the relay kept the event it never confirmed")
        #expect(await client.status == .connected, "a missing OK does not drop the connection")
        await client.disconnect()
        await relay.stop()
    }

    @Test func rejectionCarriesTheRelaysReasonToClientAndPool() async throws {
        let faults = RelayFaults(rejectWith: { $0.content == "spam" ? "blocked: spam is not welcome here" : nil })
        let relay = ClientTestSupport.relay(RelayConfiguration.faulty(faults))
        let url = "ws://127.0.0.1:\(try await relay.start())"
        let client = try await ClientTestSupport.connected(url)
        let spam = try TestEvents.make(content: "spam", createdAt: ClientTestSupport.now)
        #expect(await client.publish(spam) == .rejected(reason: "blocked: spam is not welcome here"))
        let fine = try TestEvents.make(content: "fine", createdAt: ClientTestSupport.now)
        #expect(await client.publish(fine) == .accepted(message: ""))
        #expect(try await relay.storedEventCount() == 1, "the rejected event was not stored")

        let pool = RelayPool(relays: [url], configuration: ClientTestSupport.quickConfiguration(), logger: testLogger("pool"))
        await pool.connect()
        let pooled = await pool.publish(try TestEvents.make(content: "spam", createdAt: ClientTestSupport.now + 1))
        #expect(!pooled.isSent)
        #expect(pooled.failed[url] == .rejected(reason: "blocked: spam is not welcome here"))
        await pool.disconnect()
        await client.disconnect()
        await relay.stop()
    }

    /// A relay's reason is its own free text: one printed as it came could clear our terminal or
    /// forge a line, so it reaches the client and the pool as one printable line.
    @Test func aHostileRelaysReasonArrivesPrintable() async throws {
        let faults = RelayFaults(rejectWith: { _ in "blocked: \u{1B}[2J\u{1B}]0;pwned\u{07}gone\u{202E}\nOK all fine" })
        let relay = ClientTestSupport.relay(RelayConfiguration.faulty(faults))
        let url = "ws://127.0.0.1:\(try await relay.start())"
        let pool = RelayPool(relays: [url], configuration: ClientTestSupport.quickConfiguration(), logger: testLogger("pool"))
        await pool.connect()
        let pooled = await pool.publish(try TestEvents.make(content: "anything", createdAt: ClientTestSupport.now))
        #expect(pooled.failed[url] == .rejected(reason: "blocked: [2J]0;pwnedgone OK all fine"))
        await pool.disconnect()
        await relay.stop()
    }

    @Test func socketClosedMidREQReconnectsResubscribesAndDeliversOnce() async throws {
        let closes = Counter()
        let faults = RelayFaults(closeOnREQ: { _, _ in closes.increment() == 1 })
        let relay = ClientTestSupport.relay(RelayConfiguration.faulty(faults))
        let url = "ws://127.0.0.1:\(try await relay.start())"
        let publisher = try await ClientTestSupport.connected(url)
        let group = String(repeating: "1e", count: 32)
        func message(_ text: String) throws -> Event {
            try TestEvents.make(kind: .groupMessage, content: text, tags: [Tag(["h", group])], createdAt: ClientTestSupport.now)
        }
        let stored = [try message("stored one"), try message("stored two")]
        for event in stored { #expect(await publisher.publish(event).isAccepted) }

        let subscriber = try await ClientTestSupport.connected(url)
        let statuses = StatusLog(await subscriber.statusUpdates())
        let (inbox, pump) = ClientTestSupport.inbox(await subscriber.subscribe([Filter(kinds: [.groupMessage], tags: ["h": [group]])]))
        defer { pump.cancel() }

        // The first REQ gets the stored events and then a closed socket; the client comes back,
        // asks again, and this time the relay answers EOSE.
        var before: [Event] = []
        while let next = await inbox.next(timeout: 15) {
            if case .event(let event) = next { before.append(event) } else {
                #expect(next == .endOfStoredEvents)
                break
            }
        }
        #expect(Set(before.map(\.id)) == Set(stored.map(\.id)))
        #expect(before.count == stored.count, "events sent before the close are not delivered twice")
        #expect(closes.value >= 2, "the client sent its REQ again after the close")
        try await ClientTestSupport.waitFor(subscriber, "back") { $0 == .connected }
        let seen = await statuses.all
        #expect(await statuses.sawDropThenReconnect(), "statuses: \(seen)")

        let live = try message("live")
        #expect(await publisher.publish(live).isAccepted)
        #expect(await inbox.next(timeout: 10) == .event(live))
        await subscriber.disconnect()
        await publisher.disconnect()
        await relay.stop()
    }

    @Test func slowRelayStillConfirmsWithinTheTimeoutAndTimesOutPastIt() async throws {
        let relay = ClientTestSupport.relay(RelayConfiguration.faulty(RelayFaults(answerDelay: .milliseconds(1500))))
        let url = "ws://127.0.0.1:\(try await relay.start())"

        let patient = try await ClientTestSupport.connected(url, ClientTestSupport.quickConfiguration(publishTimeout: .seconds(6)))
        let started = ContinuousClock.now
        let result = await patient.publish(try TestEvents.make(content: "slow", createdAt: ClientTestSupport.now))
        #expect(result == .accepted(message: ""))
        #expect(ContinuousClock.now - started >= .milliseconds(1400), "the OK really came late")

        let hasty = try await ClientTestSupport.connected(url, ClientTestSupport.quickConfiguration(publishTimeout: .milliseconds(500)))
        let late = try TestEvents.make(content: "too slow", createdAt: ClientTestSupport.now)
        #expect(await hasty.publish(late) == .timedOut)
        #expect(await hasty.status == .connected)
        // The late OK that arrives after the timeout is ignored; the event did reach the relay.
        try await Task.sleep(for: .seconds(2))
        #expect(try await relay.storedEventCount() == 2)
        // A new event: on a loaded machine the first one's late OK may still be on its way, and it
        // would answer a second publish of the same id.
        let later = try TestEvents.make(content: "too slow again", createdAt: ClientTestSupport.now)
        #expect(await hasty.publish(later) == .timedOut, "still slower than the timeout")
        await patient.disconnect()
        await hasty.disconnect()
        await relay.stop()
    }

    @Test func relayRestartOnTheSamePortShowsInThePoolStatusStream() async throws {
        var configuration = RelayConfiguration()
        let first = ClientTestSupport.relay(configuration)
        let port = try await first.start()
        configuration.port = port
        let url = "ws://127.0.0.1:\(port)"
        let (pool, changes, pump) = await ClientTestSupport.watchedPool([url])
        defer { pump.cancel() }
        await pool.connect()
        #expect(await changes.first(timeout: 30) { $0.status == .connected } != nil)
        #expect(await pool.publish(try TestEvents.make(content: "one", createdAt: ClientTestSupport.now)).isSent)

        await first.stop()
        let dropped = await changes.first(timeout: 30) {
            if case .waitingToReconnect = $0.status { true } else { false }
        }
        #expect(dropped?.relay == url)
        #expect(!(await pool.publish(try TestEvents.make(content: "while down", createdAt: ClientTestSupport.now)).isSent))

        let second = ClientTestSupport.relay(configuration)
        #expect(try await second.start() == port)
        #expect(await changes.first(timeout: 15) { $0.status == .connected } != nil, "the pool reports the relay back")
        #expect(await pool.statuses[url] == .connected)
        #expect(await pool.publish(try TestEvents.make(content: "two", createdAt: ClientTestSupport.now)).isSent)
        await pool.disconnect()
        await second.stop()
    }
}

/// A thread-safe counter for fault rules, which run on the relay's connection tasks.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    /// Adds one and returns the new value.
    func increment() -> Int { lock.withLock { count += 1; return count } }
    var value: Int { lock.withLock { count } }
}

/// Records a client's status stream in the background.
actor StatusLog {
    private(set) var all: [RelayConnectionStatus] = []
    private var task: Task<Void, Never>?

    init(_ stream: AsyncStream<RelayConnectionStatus>) {
        task = nil
        Task { await self.start(stream) }
    }

    private func start(_ stream: AsyncStream<RelayConnectionStatus>) {
        task = Task { for await status in stream { self.append(status) } }
    }

    private func append(_ status: RelayConnectionStatus) { all.append(status) }

    /// Connected, then not connected, then connected again.
    func sawDropThenReconnect() -> Bool {
        guard let firstUp = all.firstIndex(of: .connected),
              let down = all[firstUp...].firstIndex(where: { !$0.isConnected }) else { return false }
        return all[down...].contains(.connected)
    }

    deinit { task?.cancel() }
}

extension RelayConfiguration {
    /// An in-memory relay on a free loopback port showing `faults`.
    static func faulty(_ faults: RelayFaults) -> RelayConfiguration {
        var configuration = RelayConfiguration()
        configuration.faults = faults
        return configuration
    }
}
