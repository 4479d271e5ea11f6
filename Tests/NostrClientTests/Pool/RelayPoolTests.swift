import Foundation
import Nostr
import NostrClient
import NostrRelay
import TestSupport
import Testing

/// Several relays at once: per-relay publish verdicts, de-duplicated subscriptions, statuses.
@Suite(.timeLimit(.minutes(3))) struct RelayPoolTests {
    @Test func publishReportsEachRelayAndSentMeansOneAccepted() async throws {
        let a = ClientTestSupport.relay(), b = ClientTestSupport.relay()
        let urlA = "ws://127.0.0.1:\(try await a.start())", urlB = "ws://127.0.0.1:\(try await b.start())"
        let dead = try await ClientTestSupport.deadURL()
        let pool = RelayPool(relays: [urlA, urlB, dead], configuration: ClientTestSupport.quickConfiguration(publishTimeout: .seconds(30)),
                             logger: testLogger("pool"))
        let (statuses, pump) = ClientTestSupport.inbox(await pool.statusUpdates())
        defer { pump.cancel() }
        await pool.connect()
        var up: Set<String> = []
        while up.count < 2, let change = await statuses.next(timeout: 10) {
            if change.status == .connected { up.insert(change.relay) }
        }
        #expect(up == [urlA, urlB])
        let event = try TestEvents.make(createdAt: ClientTestSupport.now)
        let result = await pool.publish(event, until: .everyRelay)
        #expect(result.isSent)
        #expect(result.pending.isEmpty)
        #expect(result.accepted == [urlA, urlB].sorted())
        #expect(result.failed.keys.sorted() == [dead])
        #expect(result.failed[dead] == .notConnected)
        #expect(try await a.storedEventCount() == 1)
        #expect(try await b.storedEventCount() == 1)

        let snapshot = await pool.statuses
        #expect(snapshot[urlA] == .connected && snapshot[urlB] == .connected)
        #expect(snapshot[dead]?.isConnected == false)
        await pool.disconnect()
        await a.stop()
        await b.stop()
    }

    @Test func nothingAcceptedIsNotSent() async throws {
        let pool = RelayPool(relays: [], logger: testLogger("pool"))
        let result = await pool.publish(try TestEvents.make())
        #expect(!result.isSent && result.results.isEmpty)
    }

    @Test func subscriptionDeduplicatesAcrossRelays() async throws {
        let a = ClientTestSupport.relay(), b = ClientTestSupport.relay()
        let urlA = "ws://127.0.0.1:\(try await a.start())", urlB = "ws://127.0.0.1:\(try await b.start())"
        let pool = RelayPool(relays: [urlA, urlB], configuration: ClientTestSupport.quickConfiguration(), logger: testLogger("pool"))
        await pool.connect()
        let stored = try TestEvents.make(content: "stored", createdAt: ClientTestSupport.now - 5)
        #expect(await pool.publish(stored, until: .everyRelay).accepted.count == 2)

        let (inbox, pump) = ClientTestSupport.inbox(await pool.subscribe([Filter(kinds: [.textNote])]))
        defer { pump.cancel() }
        var events: [Event] = []
        var eose: Set<String> = []
        while let message = await inbox.next() {
            switch message {
            case .event(let event, _): events.append(event)
            case .endOfStoredEvents(let relay): eose.insert(relay)
            case .caughtUp: break
            case .closed(let relay, let reason): Issue.record("\(relay) closed: \(reason)")
            }
            if message == .caughtUp { break }
        }
        #expect(events == [stored], "the same event from two relays arrives once")
        #expect(eose == [urlA, urlB])

        // Live: published to both relays, delivered once; one published to a single relay also arrives.
        let live = try TestEvents.make(content: "live", createdAt: ClientTestSupport.now)
        #expect(await pool.publish(live).isSent)
        let onlyB = try TestEvents.make(content: "only b", createdAt: ClientTestSupport.now)
        let direct = try await ClientTestSupport.connected(urlB)
        #expect(await direct.publish(onlyB).isAccepted)
        var liveEvents: [Event] = []
        while liveEvents.count < 2, let message = await inbox.next(timeout: 10) {
            if case .event(let event, _) = message { liveEvents.append(event) }
        }
        #expect(Set(liveEvents.map(\.id)) == [live.id, onlyB.id])
        #expect(await inbox.next(timeout: 0.3) == nil, "no duplicate of the live event")
        await direct.disconnect()
        await pool.disconnect()
        await a.stop()
        await b.stop()
    }

    @Test func statusUpdatesNameTheRelay() async throws {
        // Generous waits: on a loaded machine a reconnect attempt and its report can take over 10 s.
        let a = ClientTestSupport.relay()
        let url = "ws://127.0.0.1:\(try await a.start())"
        let (pool, inbox, pump) = await ClientTestSupport.watchedPool([url])
        defer { pump.cancel() }
        #expect(await inbox.next() == RelayStatusChange(relay: url, status: .disconnected))
        await pool.connect()
        #expect(await inbox.first(timeout: 30) { $0.status == .connected } == RelayStatusChange(relay: url, status: .connected))
        await a.stop()
        #expect(await inbox.first(timeout: 30) { !$0.status.isConnected }?.relay == url)
        await pool.disconnect()
    }

    @Test func addedRelayJoinsLiveSubscriptions() async throws {
        let a = ClientTestSupport.relay(), b = ClientTestSupport.relay()
        let urlA = "ws://127.0.0.1:\(try await a.start())", urlB = "ws://127.0.0.1:\(try await b.start())"
        let pool = RelayPool(relays: [urlA], configuration: ClientTestSupport.quickConfiguration(), logger: testLogger("pool"))
        await pool.connect()
        let (inbox, pump) = ClientTestSupport.inbox(await pool.subscribe([Filter(kinds: [.textNote])]))
        defer { pump.cancel() }
        #expect(await inbox.next() == .endOfStoredEvents(relay: urlA))
        let onB = try TestEvents.make(createdAt: ClientTestSupport.now)
        let direct = try await ClientTestSupport.connected(urlB)
        #expect(await direct.publish(onB).isAccepted)
        await pool.add(urlB)
        #expect(await pool.relays == [urlA, urlB])
        #expect(await inbox.first { if case .event = $0 { true } else { false } } == .event(onB, relay: urlB))
        await pool.remove(urlB)
        #expect(await pool.relays == [urlA])
        await direct.disconnect()
        await pool.disconnect()
        await a.stop()
        await b.stop()
    }

    /// A routed subscription goes only to the relays it names, each with its own filters; a
    /// routed publish only to the relays named (issue 26: a relay learns only what it serves).
    @Test func routedSubscriptionAndPublishReachOnlyTheNamedRelays() async throws {
        let a = ClientTestSupport.relay(), b = ClientTestSupport.relay()
        let urlA = "ws://127.0.0.1:\(try await a.start())", urlB = "ws://127.0.0.1:\(try await b.start())"
        let pool = RelayPool(relays: [urlA, urlB], configuration: ClientTestSupport.quickConfiguration(), logger: testLogger("pool"))
        await pool.connect()
        let stored = try TestEvents.make(content: "on both", createdAt: ClientTestSupport.now - 5)
        #expect(await pool.publish(stored, until: .everyRelay).accepted.count == 2)
        let onlyA = try TestEvents.make(content: "only A", createdAt: ClientTestSupport.now - 4)
        let routed = await pool.publish(onlyA, to: [urlA])
        #expect(routed.accepted == [urlA] && routed.results.count == 1)
        #expect(try await a.storedEventCount() == 2)
        #expect(try await b.storedEventCount() == 1)

        let (inbox, pump) = ClientTestSupport.inbox(await pool.subscribe(routes: [urlA: [Filter(kinds: [.textNote])]]))
        defer { pump.cancel() }
        var messages: [PoolSubscriptionMessage] = []
        while let message = await inbox.next() {
            messages.append(message)
            if message == .caughtUp { break }
        }
        #expect(messages.allSatisfy { if case .event(_, let relay) = $0 { relay == urlA } else { true } })
        #expect(messages.contains(.endOfStoredEvents(relay: urlA)) && !messages.contains(.endOfStoredEvents(relay: urlB)))
        #expect(await b.connectionCounts()?.subscriptions == 0, "relay B was never sent the REQ")
        await pool.disconnect()
        await a.stop()
        await b.stop()
    }

    /// Rerouting a subscription closes it where it is no longer wanted and opens it where it now is.
    @Test func reroutedSubscriptionMovesToTheNewRelays() async throws {
        let a = ClientTestSupport.relay(), b = ClientTestSupport.relay()
        let urlA = "ws://127.0.0.1:\(try await a.start())", urlB = "ws://127.0.0.1:\(try await b.start())"
        let pool = RelayPool(relays: [urlA, urlB], configuration: ClientTestSupport.quickConfiguration(), logger: testLogger("pool"))
        await pool.connect()
        let filter = Filter(kinds: [.textNote])
        let subscription = await pool.subscribe(routes: [urlA: [filter]])
        let (inbox, pump) = ClientTestSupport.inbox(subscription)
        defer { pump.cancel() }
        // Generous waits: on a loaded machine connecting and answering take seconds; they bound a hang.
        #expect(await inbox.next(timeout: 60) == .endOfStoredEvents(relay: urlA))
        await pool.reroute(subscription.id, routes: [urlB: [filter]])
        #expect(await inbox.first(timeout: 60) { if case .endOfStoredEvents = $0 { true } else { false } } == .endOfStoredEvents(relay: urlB))
        // A's CLOSE is sent with the reroute; the relay may count it a moment later.
        var closedOnA = false
        for _ in 0..<600 where !closedOnA {
            closedOnA = await a.connectionCounts()?.subscriptions == 0
            if !closedOnA { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(closedOnA, "closed on A")
        let onB = try TestEvents.make(createdAt: ClientTestSupport.now)
        #expect(await pool.publish(onB, to: [urlB]).isSent)
        #expect(await inbox.first(timeout: 60) { if case .event = $0 { true } else { false } } == .event(onB, relay: urlB))
        await pool.disconnect()
        await a.stop()
        await b.stop()
    }
}
