import Nostr

/// Tunables of a relay connection; defaults suit Marmot over public relays.
public struct RelayClientConfiguration: Sendable, Equatable {
    /// How long `publish` waits for the relay's `OK` (including a pending reconnect).
    public var publishTimeout: Duration = .seconds(10)
    /// How long opening the WebSocket may take before the attempt counts as failed.
    public var connectTimeout: Duration = .seconds(10)
    /// Reconnect delays.
    public var backoff: Backoff = Backoff()
    /// On resubscribe, `since` is moved to the newest `created_at` seen minus this many seconds.
    public var resubscribeMargin: Int64 = 120
    /// For filters that may match gift wraps (kind 1059, or any kind), `since` is moved back this far
    /// instead: NIP-59 wraps are back-dated by up to two days, so the margin covers that plus slack.
    public var giftWrapLookback: Int64 = 2 * 86_400 + 3_600
    /// Largest relay message accepted (bytes); also the WebSocket frame limit. A message is held
    /// whole in memory before it is parsed, so this bounds what one relay frame can cost: 1 MiB,
    /// our relay's own limit (`RelayConfiguration.maxMessageLength`). What the messenger reads is
    /// small (a gift wrap holds at most NIP-44's 64 KiB, a group event `maxContentLength`);
    /// attachments travel over Blossom. It was 16 MiB, so a hostile relay could make each event
    /// cost that much (surface review 2026-12-01, N2).
    public var maxMessageSize: Int = 1 << 20
    /// The longest content accepted per kind (bytes), checked before the event's id and signature
    /// are: a longer one is dropped with a log line, never verified nor delivered. Kind 445 as
    /// Marmot bounds it (`GroupEvent.maxContentLength` in MarmotWire, 128 KiB; N2).
    public var maxContentLength: [Kind: Int] = [.groupMessage: 128 * 1024]
    /// How much one subscription's delivered but not yet consumed messages may hold (bytes of
    /// content, and count) before the connection stops reading the relay until the consumer takes
    /// some: back-pressure instead of a buffer without bound, and nothing is dropped (N2).
    public var subscriptionBuffer = StreamBudget.Limits(bytes: 8 << 20, count: 4_096)
    /// Event ids remembered per subscription to drop duplicates (oldest forgotten first).
    public var deduplicationCapacity: Int = 50_000
    /// Most publishes waiting for an OK (or for the connection) at once; beyond it a publish is
    /// refused at once instead of queueing without bound while a relay is slow or away.
    public var maxPendingPublishes: Int = 2_000
    /// Messages arriving move the relay's `RelayReport.lastMessageAt` at once, but are reported to
    /// watchers at most once per this interval (a busy relay must not cost an update per event).
    public var activityReportInterval: Duration = .seconds(1)
    /// When a pool subscription's stored events count as in (`CatchUpTracker`, issue 50): a relay
    /// whose WebSocket has not upgraded this long after it was asked stops holding the catch-up,
    /// once another relay of the subscription is connected. A loopback upgrade takes about 5 ms and
    /// a public `wss://` relay 0.1–0.6 s (DNS, TCP, TLS and the upgrade: 3–4 round trips), so a
    /// second leaves a healthy relay room and costs a command little when a host never answers.
    public var catchUpConnectBound: Duration = .seconds(1)
    /// A relay that has not answered a subscription (no EOSE or CLOSED) this long after another
    /// relay did, and sent no event of it meanwhile, stops holding the catch-up (`CatchUpTracker`).
    /// Relays hold much the same events (we publish to all of them), so the first answer is nearly
    /// the whole answer; 300 ms keeps a mute or unreachable relay within the 0.5 s budget.
    public var catchUpGrace: Duration = .milliseconds(300)
    /// `catchUpConnectBound` and `catchUpGrace` for a lookup (`RelayPool.subscribe(_:id:lookup:)`):
    /// someone else's key packages, relay lists or profile, which one relay may hold alone (no
    /// relay holds "much the same events" there), so an empty answer from a fast relay says little
    /// about a slower one. A failed connection still counts as answered at once.
    public var lookupConnectBound: Duration = .seconds(3)
    public var lookupGrace: Duration = .seconds(2)

    public init() {}
}

/// Exponential backoff with jitter for reconnects.
///
/// Attempt n (0-based) waits a random delay in [d/2, d] with d = min(maximum, initial · 2ⁿ), so
/// clients that lost the same relay do not all come back at once.
public struct Backoff: Sendable, Equatable {
    public var initial: Duration
    public var maximum: Duration

    public init(initial: Duration = .milliseconds(500), maximum: Duration = .seconds(30)) {
        self.initial = initial
        self.maximum = maximum
    }

    /// The upper bound d for attempt `attempt`.
    public func ceiling(attempt: Int) -> Duration {
        var delay = initial
        for _ in 0..<max(0, min(attempt, 62)) {
            delay = delay * 2
            if delay >= maximum { return maximum }
        }
        return min(delay, maximum)
    }

    /// The delay for `attempt` given a uniform random `unit` in [0, 1).
    public func delay(attempt: Int, unit: Double) -> Duration {
        let ceiling = ceiling(attempt: attempt)
        let fraction = 0.5 + 0.5 * min(max(unit, 0), 1)
        return ceiling * fraction
    }
}
