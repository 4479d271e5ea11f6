import Nostr
@testable import NostrClient
import Testing

/// Drives `RelayConnectionMachine` without sockets: inputs in, actions checked.
@Suite struct RelayConnectionMachineTests {
    typealias Machine = RelayConnectionMachine

    /// A machine that has opened socket 1 and is connected.
    static func connected(_ configuration: RelayClientConfiguration = RelayClientConfiguration()) -> Machine {
        var machine = Machine(configuration: configuration, seed: 42)
        _ = machine.handle(.connectRequested)
        _ = machine.handle(.socketOpened(socket: 1))
        return machine
    }

    static func sent(_ actions: [Machine.Action]) -> [ClientMessage] {
        actions.compactMap { action in
            if case .send(_, let text) = action { return try? ClientMessage(json: text) }
            return nil
        }
    }

    static func delivered(_ actions: [Machine.Action]) -> [SubscriptionMessage] {
        actions.compactMap { action in
            if case .deliver(_, let message) = action { return message }
            return nil
        }
    }

    static func token(_ timer: RelayTimer, in actions: [Machine.Action]) -> UInt64? {
        for case .scheduleTimer(let t, let token, _) in actions where t == timer { return token }
        return nil
    }

    static func delay(_ timer: RelayTimer, in actions: [Machine.Action]) -> Duration? {
        for case .scheduleTimer(let t, _, let delay) in actions where t == timer { return delay }
        return nil
    }

    static func eventMessage(_ sub: SubscriptionID, _ event: Event) -> String {
        RelayMessage.event(sub, event).jsonString
    }

    @Test func connectOpensSocketAndReportsStatus() {
        var machine = Machine()
        let actions = machine.handle(.connectRequested)
        #expect(actions.contains(.statusChanged(.connecting(attempt: 0))))
        #expect(actions.contains(.openSocket(socket: 1)))
        #expect(Self.token(.connectTimeout, in: actions) != nil)
        let opened = machine.handle(.socketOpened(socket: 1))
        #expect(opened.contains(.statusChanged(.connected)))
        #expect(opened.contains(.cancelTimer(.connectTimeout)))
    }

    @Test func backoffDelaysStayWithinJitterBoundsAndCap() {
        let backoff = Backoff(initial: .milliseconds(500), maximum: .seconds(30))
        let ceilings = (0..<10).map { backoff.ceiling(attempt: $0) }
        #expect(ceilings == [.milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16),
                             .seconds(30), .seconds(30), .seconds(30), .seconds(30)])
        #expect(backoff.ceiling(attempt: 10_000) == .seconds(30))

        var machine = Machine(seed: 7)
        _ = machine.handle(.connectRequested)
        var socket: UInt64 = 1
        var delays: [Duration] = []
        for attempt in 0..<9 {
            let closed = machine.handle(.socketClosed(socket: socket, reason: "refused"))
            guard let delay = Self.delay(.reconnect, in: closed), let token = Self.token(.reconnect, in: closed) else {
                Issue.record("attempt \(attempt): no reconnect scheduled")
                return
            }
            let ceiling = backoff.ceiling(attempt: attempt)
            #expect(delay >= ceiling / 2 && delay <= ceiling, "attempt \(attempt): \(delay) outside [\(ceiling / 2), \(ceiling)]")
            #expect(closed.contains(.statusChanged(.waitingToReconnect(attempt: attempt + 1, retryIn: delay))))
            delays.append(delay)
            let reopened = machine.handle(.timerFired(.reconnect, token: token))
            socket += 1
            #expect(reopened.contains(.openSocket(socket: socket)))
        }
        #expect(delays.count == 9)
        #expect(Set(delays).count > 1, "jitter should vary the delays")
    }

    @Test func backoffResetsAfterSuccessfulConnection() throws {
        var machine = Machine(seed: 1)
        _ = machine.handle(.connectRequested)
        for socket in UInt64(1)...4 {
            let closed = machine.handle(.socketClosed(socket: socket, reason: "refused"))
            let token = try #require(Self.token(.reconnect, in: closed))
            _ = machine.handle(.timerFired(.reconnect, token: token))
        }
        _ = machine.handle(.socketOpened(socket: 5))
        let dropped = machine.handle(.socketClosed(socket: 5, reason: "reset"))
        let delay = try #require(Self.delay(.reconnect, in: dropped))
        #expect(delay <= .milliseconds(500))
    }

    @Test func connectTimeoutCountsAsFailure() throws {
        var machine = Machine()
        let started = machine.handle(.connectRequested)
        let token = try #require(Self.token(.connectTimeout, in: started))
        let actions = machine.handle(.timerFired(.connectTimeout, token: token))
        #expect(actions.contains(.closeSocket(socket: 1)))
        #expect(Self.token(.reconnect, in: actions) != nil)
        // The abandoned socket's late "opened" is ignored.
        #expect(machine.handle(.socketOpened(socket: 1)).isEmpty)
    }

    @Test func subscriptionIsSentWhenConnectedAndResentAfterReconnect() throws {
        var machine = Machine()
        let filter = Filter(kinds: [.textNote], limit: 10)
        #expect(Self.sent(machine.handle(.subscribeRequested("s1", [filter]))).isEmpty)
        _ = machine.handle(.connectRequested)
        let opened = machine.handle(.socketOpened(socket: 1))
        #expect(Self.sent(opened) == [.req("s1", [filter])])
        // No event seen yet: the filters go out unchanged again.
        let closed = machine.handle(.socketClosed(socket: 1, reason: "reset"))
        _ = machine.handle(.timerFired(.reconnect, token: try #require(Self.token(.reconnect, in: closed))))
        #expect(Self.sent(machine.handle(.socketOpened(socket: 2))) == [.req("s1", [filter])])
    }

    @Test func resubscribeMovesSinceToNewestSeenMinusMargin() throws {
        var configuration = RelayClientConfiguration()
        configuration.resubscribeMargin = 120
        configuration.giftWrapLookback = 2 * 86_400 + 3_600
        var machine = Self.connected(configuration)
        let notes = Filter(kinds: [.textNote, .groupMessage])
        let wraps = Filter(kinds: [.giftWrap], tags: ["p": [TestEvents.alice.publicKey.hex]])
        let anyKind = Filter(authors: [TestEvents.alice.publicKey])
        let recent = Filter(kinds: [.textNote], since: 1_700_000_500)
        let liveOnly = Filter(kinds: [.textNote], limit: 0)
        _ = machine.handle(.subscribeRequested("s", [notes, wraps, anyKind, recent, liveOnly]))
        let newest: Int64 = 1_700_001_000
        for createdAt in [newest - 500, newest, newest - 20] {
            let event = try TestEvents.make(createdAt: createdAt)
            _ = machine.handle(.messageReceived(socket: 1, text: Self.eventMessage("s", event)))
        }
        let closed = machine.handle(.socketClosed(socket: 1, reason: "reset"))
        _ = machine.handle(.timerFired(.reconnect, token: try #require(Self.token(.reconnect, in: closed))))
        let resent = Self.sent(machine.handle(.socketOpened(socket: 2)))
        guard case .req(let id, let filters)? = resent.first else {
            Issue.record("expected a REQ, got \(resent)")
            return
        }
        #expect(id == "s")
        #expect(filters.map(\.since) == [
            newest - 120,                // regular kinds: newest seen minus the margin
            newest - 2 * 86_400 - 3_600, // kind 1059: gift wraps are back-dated up to two days
            newest - 2 * 86_400 - 3_600, // no kinds: may match gift wraps
            newest - 120,                // caller's since (earlier) is moved up
            newest - 120,
        ])
        #expect(filters[4].limit == nil, "a live-only filter must fetch what was missed")
        #expect(filters[0].kinds == notes.kinds && filters[1].tags == wraps.tags)
        // Never "since: now" for gift wraps.
        #expect((filters[1].since ?? .max) < newest - 2 * 86_400)
    }

    @Test func resubscribeNeverMovesSinceBackwards() {
        let configuration = RelayClientConfiguration()
        let late = Filter(kinds: [.textNote], since: 2_000_000_000)
        let moved = ResubscribePolicy.filters([late], newestSeen: 1_700_000_000, configuration: configuration)
        #expect(moved.first?.since == 2_000_000_000)
    }

    @Test func duplicateEventsAreDeliveredOnce() throws {
        var machine = Self.connected()
        _ = machine.handle(.subscribeRequested("s", [Filter(kinds: [.textNote])]))
        let event = try TestEvents.make()
        let first = machine.handle(.messageReceived(socket: 1, text: Self.eventMessage("s", event)))
        let second = machine.handle(.messageReceived(socket: 1, text: Self.eventMessage("s", event)))
        #expect(Self.delivered(first) == [.event(event)])
        #expect(Self.delivered(second).isEmpty)
        // Also across a reconnect.
        let closed = machine.handle(.socketClosed(socket: 1, reason: "reset"))
        _ = machine.handle(.timerFired(.reconnect, token: try #require(Self.token(.reconnect, in: closed))))
        _ = machine.handle(.socketOpened(socket: 2))
        #expect(Self.delivered(machine.handle(.messageReceived(socket: 2, text: Self.eventMessage("s", event)))).isEmpty)
    }

    @Test func deduplicationForgetsOldestBeyondCapacity() throws {
        var set = BoundedIDSet(capacity: 2)
        let ids = try (0..<3).map { try TestEvents.make(createdAt: Int64($0)).id }
        #expect(set.insert(ids[0]) && set.insert(ids[1]) && set.insert(ids[2]))
        #expect(!set.contains(ids[0]) && set.contains(ids[1]) && set.contains(ids[2]))
        #expect(set.count == 2)
    }

    @Test func invalidEventsAreDroppedWithALogLine() throws {
        var machine = Self.connected()
        _ = machine.handle(.subscribeRequested("s", [Filter(kinds: [.textNote])]))
        let good = try TestEvents.make()
        for bad in [TestEvents.tampered(good), TestEvents.badSignature(good)] {
            let actions = machine.handle(.messageReceived(socket: 1, text: Self.eventMessage("s", bad)))
            #expect(Self.delivered(actions).isEmpty)
            #expect(actions.contains { if case .log(.warning, let text) = $0 { text.contains("dropped") } else { false } })
        }
        // A bad copy does not poison the id: the genuine event still arrives.
        #expect(Self.delivered(machine.handle(.messageReceived(socket: 1, text: Self.eventMessage("s", good)))) == [.event(good)])
    }

    @Test func eventsNotMatchingTheFiltersOrForUnknownSubscriptionsAreDropped() throws {
        var machine = Self.connected()
        _ = machine.handle(.subscribeRequested("s", [Filter(kinds: [.textNote])]))
        let other = try TestEvents.make(kind: .groupMessage)
        #expect(Self.delivered(machine.handle(.messageReceived(socket: 1, text: Self.eventMessage("s", other)))).isEmpty)
        let note = try TestEvents.make()
        #expect(Self.delivered(machine.handle(.messageReceived(socket: 1, text: Self.eventMessage("nope", note)))).isEmpty)
        #expect(machine.handle(.messageReceived(socket: 1, text: "not json")).allSatisfy {
            if case .log = $0 { true } else { false }
        })
    }

    @Test func endOfStoredEventsIsReportedOncePerSubscription() throws {
        var machine = Self.connected()
        _ = machine.handle(.subscribeRequested("a", [Filter(kinds: [.textNote])]))
        _ = machine.handle(.subscribeRequested("b", [Filter(kinds: [.textNote])]))
        let eoseA = RelayMessage.eose("a").jsonString
        #expect(machine.handle(.messageReceived(socket: 1, text: eoseA)) == [.deliver("a", .endOfStoredEvents)])
        #expect(machine.handle(.messageReceived(socket: 1, text: eoseA)).isEmpty)
        #expect(machine.handle(.messageReceived(socket: 1, text: RelayMessage.eose("b").jsonString))
            == [.deliver("b", .endOfStoredEvents)])
    }

    @Test func publishReportsOKVerdicts() throws {
        var machine = Self.connected()
        let accepted = try TestEvents.make(content: "one")
        let actions = machine.handle(.publishRequested(accepted))
        #expect(Self.sent(actions) == [.event(accepted)])
        #expect(Self.token(.publishTimeout(accepted.id), in: actions) != nil)
        let ok = machine.handle(.messageReceived(socket: 1, text: RelayMessage.ok(accepted.id, accepted: true, message: "").jsonString))
        #expect(ok.contains(.publishFinished(accepted.id, .accepted(message: ""))))
        #expect(ok.contains(.cancelTimer(.publishTimeout(accepted.id))))

        let refused = try TestEvents.make(content: "two")
        _ = machine.handle(.publishRequested(refused))
        let no = machine.handle(.messageReceived(socket: 1, text: RelayMessage.ok(refused.id, accepted: false, message: "blocked: no").jsonString))
        #expect(no.contains(.publishFinished(refused.id, .rejected(reason: "blocked: no"))))
    }

    @Test func publishTimesOutWithoutOK() throws {
        var machine = Self.connected()
        let event = try TestEvents.make()
        let token = try #require(Self.token(.publishTimeout(event.id), in: machine.handle(.publishRequested(event))))
        #expect(machine.handle(.timerFired(.publishTimeout(event.id), token: token + 99)).isEmpty, "stale token ignored")
        #expect(machine.handle(.timerFired(.publishTimeout(event.id), token: token)) == [.publishFinished(event.id, .timedOut)])
        // A late OK changes nothing.
        #expect(machine.handle(.messageReceived(socket: 1, text: RelayMessage.ok(event.id, accepted: true, message: "").jsonString)).isEmpty)
    }

    @Test func publishWhileDisconnectedFailsAndWhileReconnectingWaits() throws {
        var idle = Machine()
        let event = try TestEvents.make()
        #expect(idle.handle(.publishRequested(event)) == [.publishFinished(event.id, .notConnected)])

        var machine = Self.connected()
        let closed = machine.handle(.socketClosed(socket: 1, reason: "reset"))
        let queued = machine.handle(.publishRequested(event))
        #expect(Self.sent(queued).isEmpty)
        let timeout = try #require(Self.token(.publishTimeout(event.id), in: queued))
        _ = machine.handle(.timerFired(.reconnect, token: try #require(Self.token(.reconnect, in: closed))))
        #expect(Self.sent(machine.handle(.socketOpened(socket: 2))) == [.event(event)])
        _ = timeout

        // Never connected before the deadline: notConnected.
        let other = try TestEvents.make(content: "later")
        let dropped = machine.handle(.socketClosed(socket: 2, reason: "reset"))
        #expect(Self.token(.reconnect, in: dropped) != nil)
        let otherToken = try #require(Self.token(.publishTimeout(other.id), in: machine.handle(.publishRequested(other))))
        #expect(machine.handle(.timerFired(.publishTimeout(other.id), token: otherToken))
            .contains(.publishFinished(other.id, .notConnected)))
    }

    @Test func messagesFromStaleSocketsAreIgnored() throws {
        var machine = Self.connected()
        _ = machine.handle(.subscribeRequested("s", [Filter(kinds: [.textNote])]))
        let closed = machine.handle(.socketClosed(socket: 1, reason: "reset"))
        _ = machine.handle(.timerFired(.reconnect, token: try #require(Self.token(.reconnect, in: closed))))
        _ = machine.handle(.socketOpened(socket: 2))
        let event = try TestEvents.make()
        #expect(machine.handle(.messageReceived(socket: 1, text: Self.eventMessage("s", event))).isEmpty)
        #expect(machine.handle(.socketClosed(socket: 1, reason: "late")).isEmpty)
        #expect(machine.currentStatus == .connected)
    }

    @Test func disconnectFailsPendingPublishesAndStopsReconnecting() throws {
        var machine = Self.connected()
        let event = try TestEvents.make()
        _ = machine.handle(.publishRequested(event))
        let actions = machine.handle(.disconnectRequested)
        #expect(actions.contains(.closeSocket(socket: 1)))
        #expect(actions.contains(.publishFinished(event.id, .notConnected)))
        #expect(actions.contains(.statusChanged(.disconnected)))
        #expect(Self.token(.reconnect, in: actions) == nil)
        #expect(machine.handle(.socketClosed(socket: 1, reason: "closed")).isEmpty)
    }

    @Test func closedSubscriptionIsReportedAndNotResent() throws {
        var machine = Self.connected()
        _ = machine.handle(.subscribeRequested("s", [Filter(kinds: [.textNote])]))
        let actions = machine.handle(.messageReceived(socket: 1, text: RelayMessage.closed("s", message: "invalid: nope").jsonString))
        #expect(Self.delivered(actions) == [.closed(reason: "invalid: nope")])
        let closed = machine.handle(.socketClosed(socket: 1, reason: "reset"))
        _ = machine.handle(.timerFired(.reconnect, token: try #require(Self.token(.reconnect, in: closed))))
        #expect(Self.sent(machine.handle(.socketOpened(socket: 2))).isEmpty)
    }

    @Test func unsubscribeSendsClose() {
        var machine = Self.connected()
        _ = machine.handle(.subscribeRequested("s", [Filter(kinds: [.textNote])]))
        #expect(Self.sent(machine.handle(.unsubscribeRequested("s"))) == [.close("s")])
        #expect(machine.handle(.unsubscribeRequested("s")).isEmpty)
    }
}
