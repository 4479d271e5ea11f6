/// Limits the relay enforces on every connection; advertised in the NIP-11 `limitation` object.
///
/// Defaults are sized for Marmot: gift-wrapped welcomes are ~5 KB and key packages ~1 KB, far
/// below `maxMessageLength`.
public struct RelayLimits: Sendable, Equatable {
    /// Largest client message (bytes of UTF-8 JSON) the relay accepts (NIP-11 `max_message_length`).
    ///
    /// Enforced on the WebSocket frame header: a larger frame (or fragmented message) closes the
    /// connection with 1009 (RFC 6455 §7.4.1) before its payload is buffered.
    public var maxMessageLength: Int = 1 << 20
    /// Active subscriptions per connection (NIP-11 `max_subscriptions`).
    public var maxSubscriptions: Int = 50
    /// Filters in one REQ.
    public var maxFilters: Int = 20
    /// Each filter's `limit` is clamped to this (NIP-11 `max_limit`).
    public var maxLimit: Int = 5000
    /// Events returned for a filter without `limit` (NIP-11 `default_limit`).
    public var defaultLimit: Int = 5000
    /// Subscription id length (NIP-01: at most 64).
    public var maxSubscriptionIDLength: Int = 64
    /// Entries in one filter list (`ids`, `authors`, `kinds`, each `#x`).
    public var maxFilterValues: Int = 1000
    /// Tags in one event (NIP-11 `max_event_tags`).
    public var maxEventTags: Int = 2000
    /// Events dated later than now + this are refused (NIP-11 `created_at_upper_limit`).
    public var createdAtUpperLimit: Int64 = 15 * 60
    /// Messages queued for one slow reader before the relay drops the connection.
    public var maxPendingMessages: Int = 20_000

    public init() {}
}

/// A token-bucket rate: `perSecond` events on average, with bursts of up to `burst` at once.
public struct EventRate: Sendable, Equatable {
    public var perSecond: Double
    public var burst: Double

    public init(perSecond: Double, burst: Double) {
        self.perSecond = perSecond
        self.burst = burst
    }
}

/// How to run an embedded relay.
///
/// The defaults suit a personal relay on loopback: browser pages are refused (no allowed Origin),
/// stored events are capped at 1 GiB, each connection may publish 50 events/s (bursts of 500) and all
/// together 500/s (bursts of 5000), at most 256 connections are open at once.
public struct RelayConfiguration: Sendable {
    /// Interface to bind; loopback by default so the relay is never exposed by accident.
    public var host: String
    /// TCP port; 0 picks a free one (see `RelayServer.start()`).
    public var port: Int
    public var storage: RelayStorage
    public var limits: RelayLimits
    /// NIP-11 `name`.
    public var name: String
    /// NIP-11 `description`.
    public var description: String
    /// NIP-11 `software` (a URL of the project) and `version`.
    public var software: String
    public var version: String
    /// Faults to show, for tests; none by default.
    public var faults: RelayFaults = .none
    /// Origins (`scheme://host[:port]`, as browsers send them) whose pages may open a WebSocket.
    ///
    /// Why: any web page the user opens can make the browser connect to a relay on 127.0.0.1 and
    /// read or fill it; browsers always send the page's `Origin` on a WebSocket upgrade, native
    /// clients send none or a `ws:`/`wss:` one. Empty (the default) refuses every upgrade carrying a
    /// page's `Origin`.
    public var allowedOrigins: Set<String> = []
    /// Bytes of event JSON the relay stores at most; when full, EVENT gets `OK false "blocked: ..."`.
    /// Nil: no quota.
    public var maxStoredBytes: Int64? = 1 << 30
    /// EVENTs one connection may send (`OK false "rate-limited: ..."` beyond); nil: no limit.
    public var connectionEventRate: EventRate? = EventRate(perSecond: 50, burst: 500)
    /// EVENTs all connections together may send; nil: no limit.
    public var globalEventRate: EventRate? = EventRate(perSecond: 500, burst: 5000)
    /// Open WebSocket connections at most; further upgrades are refused.
    public var maxConnections: Int = 256
    /// The embedded Blossom server on the same port (BUD-01, BUD-02, BUD-12); nil: none.
    public var blossom: BlossomConfiguration? = BlossomConfiguration()
    /// NIP-42: whether the relay challenges connections, and what it serves without AUTH; none by default.
    public var auth: RelayAuthConfiguration = .none

    public init(
        host: String = "127.0.0.1",
        port: Int = 0,
        storage: RelayStorage = .inMemory,
        limits: RelayLimits = RelayLimits(),
        name: String = "marmot-relay",
        description: String = "Embedded Nostr relay of Marmot for Swift",
        software: String = RelayInformation.defaultSoftware,
        version: String = RelayInformation.defaultVersion
    ) {
        self.host = host
        self.port = port
        self.storage = storage
        self.limits = limits
        self.name = name
        self.description = description
        self.software = software
        self.version = version
    }
}
