import NostrClient
import Testing

/// The catch-up tracker alone (issue 50): inputs in, actions out, timers as tokens the test fires.
@Suite struct CatchUpTrackerTests {
    static func tracker() -> CatchUpTracker { CatchUpTracker(connectBound: .seconds(1), grace: .milliseconds(300)) }

    /// The token of the last `scheduleTimer` for `timer` among `actions`.
    static func token(_ timer: CatchUpTracker.Timer, in actions: [CatchUpTracker.Action]) -> UInt64? {
        actions.compactMap { action -> UInt64? in
            if case .scheduleTimer(timer, let token, _) = action { token } else { nil }
        }.last
    }

    @Test func everyRelayAnsweringIsCaughtUpOnce() {
        var tracker = Self.tracker()
        _ = tracker.handle(.added("a", .connected))
        _ = tracker.handle(.added("b", .connected))
        #expect(tracker.start().isEmpty)
        #expect(!tracker.handle(.answered("a", after: .milliseconds(10))).contains(.caughtUp))
        #expect(tracker.handle(.answered("b", after: .milliseconds(20))).contains(.caughtUp))
        #expect(tracker.isCaughtUp)
        #expect(tracker.handle(.answered("b", after: .milliseconds(30))).isEmpty)
    }

    @Test func aSubscriptionOnNoRelayIsCaughtUpAtOnce() {
        var tracker = Self.tracker()
        #expect(tracker.start() == [.caughtUp])
    }

    @Test func aFailedConnectionCountsAsAnsweredAtOnce() {
        var tracker = Self.tracker()
        _ = tracker.handle(.added("live", .connected))
        #expect(tracker.handle(.added("refused", .failed)) == [.released("refused", .failed)])
        #expect(tracker.handle(.answered("live", after: .milliseconds(5))).contains(.caughtUp))
        // A relay whose connection fails while it holds the catch-up is let go then.
        var other = Self.tracker()
        _ = other.handle(.added("live", .connected))
        _ = other.handle(.added("dropping", .connecting))
        let actions = other.handle(.connection("dropping", .failed))
        #expect(actions.contains(.released("dropping", .failed)))
        #expect(other.holding == ["live"])
    }

    @Test func aRelayNotUpgradedInTimeIsLetGoOnceAnotherIsConnected() throws {
        var tracker = Self.tracker()
        _ = tracker.handle(.added("live", .connecting))
        let added = tracker.handle(.added("hole", .connecting))
        let token = try #require(Self.token(.connect("hole"), in: added))
        // The bound passes while nobody is connected: nothing better to wait for, it stays.
        #expect(tracker.handle(.timerFired(.connect("hole"), token: token)).isEmpty)
        #expect(tracker.holding == ["live", "hole"])
        // Then the live relay connects: the overdue one stops holding.
        let connected = tracker.handle(.connection("live", .connected))
        #expect(connected.contains(.released("hole", .notUpgraded)))
        #expect(tracker.handle(.answered("live", after: .seconds(1))).contains(.caughtUp))
    }

    @Test func aMuteRelayIsLetGoAfterTheGraceAndEventsRestartIt() throws {
        var tracker = Self.tracker()
        _ = tracker.handle(.added("live", .connected))
        _ = tracker.handle(.added("mute", .connected))
        let answered = tracker.handle(.answered("live", after: .milliseconds(50)))
        let first = try #require(Self.token(.grace("mute"), in: answered))
        #expect(answered.contains(.scheduleTimer(.grace("mute"), token: first, after: .milliseconds(300))))
        // An event from it starts the grace again; the old timer's firing then changes nothing.
        let again = try #require(Self.token(.grace("mute"), in: tracker.handle(.activity("mute"))))
        #expect(tracker.handle(.timerFired(.grace("mute"), token: first)).isEmpty)
        let fired = tracker.handle(.timerFired(.grace("mute"), token: again))
        #expect(fired == [.released("mute", .silent), .caughtUp])
    }

    @Test func theGraceIsAsLongAsTheFirstAnswerTookWhenThatIsLonger() throws {
        var tracker = Self.tracker()
        _ = tracker.handle(.added("slow", .connected))
        _ = tracker.handle(.added("slower", .connected))
        let answered = tracker.handle(.answered("slow", after: .seconds(4)))
        let token = try #require(Self.token(.grace("slower"), in: answered))
        #expect(answered.contains(.scheduleTimer(.grace("slower"), token: token, after: .seconds(4))))
    }

    @Test func aRelayLeavingTheSubscriptionNoLongerHolds() {
        var tracker = Self.tracker()
        _ = tracker.handle(.added("a", .connected))
        _ = tracker.handle(.added("b", .connected))
        _ = tracker.handle(.answered("a", after: .zero))
        #expect(tracker.handle(.removed("b")).contains(.caughtUp))
    }
}
