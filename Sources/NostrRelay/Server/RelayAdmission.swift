import Foundation

/// Who may open a WebSocket to the relay: a client without a web page's `Origin` (or with an allowed
/// one) while fewer than `maxConnections` are open.
///
/// Why: the relay listens on loopback, but any web page the user opens can make the browser connect
/// to 127.0.0.1 (cross-site WebSocket hijacking); browsers always send the page's `Origin` on the
/// upgrade (RFC 6455 §4.1 item 8, §10.2), native clients send none or a `ws:`/`wss:` one. The connection cap keeps a flood of sockets
/// from exhausting file descriptors and memory.
final class RelayAdmission: @unchecked Sendable {
    let allowedOrigins: Set<String>
    let maxConnections: Int
    // Open connections; guarded by `lock`.
    private var open = 0
    private let lock = NSLock()

    init(allowedOrigins: Set<String>, maxConnections: Int) {
        self.allowedOrigins = Set(allowedOrigins.map(Self.normalize))
        self.maxConnections = maxConnections
    }

    /// `Origin` as compared: lower case, without a trailing slash.
    static func normalize(_ origin: String) -> String {
        var text = origin.trimmingCharacters(in: .whitespaces).lowercased()
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }

    /// True for an `Origin` a web page can have: anything but the `ws:`/`wss:` origin that WebSocket
    /// client libraries (swift-websocket, ours) send on their own. A page's origin is its own
    /// scheme, host and port (http, https, file and data as `null`, extensions), never `ws:`, and a
    /// page cannot set the header itself (a forbidden header name, Fetch §2.2.2).
    static func isFromAPage(_ origin: String) -> Bool {
        let text = normalize(origin)
        return !(text.hasPrefix("ws://") || text.hasPrefix("wss://"))
    }

    /// Why an upgrade is refused, or nil when it may proceed (a slot is still taken by `enter()`).
    func refusal(origin: String?) -> String? {
        if let origin, Self.isFromAPage(origin), !allowedOrigins.contains(Self.normalize(origin)) {
            return "Origin \(origin) is not allowed (see --allow-origin)"
        }
        if lock.withLock({ open >= maxConnections }) {
            return "too many connections (max \(maxConnections))"
        }
        return nil
    }

    /// Takes a connection slot; false when all are taken (upgrades that raced past `refusal`).
    func enter() -> Bool {
        lock.withLock {
            guard open < maxConnections else { return false }
            open += 1
            return true
        }
    }

    /// Gives back a slot taken by `enter()`.
    func leave() {
        lock.withLock { open = max(0, open - 1) }
    }

    var openConnections: Int { lock.withLock { open } }
}

/// A token bucket: `rate.burst` tokens at most, refilled at `rate.perSecond`; each event takes one.
///
/// Used per connection and for the whole relay, so one client cannot flood the relay and all of them
/// together cannot flood the disk faster than the quota check can be read.
final class TokenBucket: @unchecked Sendable {
    let rate: EventRate
    // Guarded by `lock`.
    private var tokens: Double
    private var last: ContinuousClock.Instant
    private let lock = NSLock()

    init(_ rate: EventRate, now: ContinuousClock.Instant = .now) {
        self.rate = rate
        self.tokens = rate.burst
        self.last = now
    }

    /// Takes one token; false when the bucket is empty.
    func take(now: ContinuousClock.Instant = .now) -> Bool {
        lock.withLock {
            let elapsed = now - last
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            if seconds > 0 {
                tokens = min(rate.burst, tokens + seconds * rate.perSecond)
                last = now
            }
            guard tokens >= 1 else { return false }
            tokens -= 1
            return true
        }
    }
}
