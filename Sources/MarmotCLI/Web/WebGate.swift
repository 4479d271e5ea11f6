import Foundation

/// Who may talk to `marmot web`: the holder of the random token, through a page served by this
/// server, with a Host header naming this server.
///
/// Why: the server listens on loopback, but any web page the user opens can make the browser send
/// requests to 127.0.0.1 (CSRF, cross-site WebSocket hijacking) and DNS rebinding can make a hostile
/// name resolve to it. The token (in the URL printed at start) defeats guessing; the Host check defeats
/// rebinding; the Origin check refuses WebSockets opened by other sites' pages.
final class WebGate: @unchecked Sendable {
    /// 32 random bytes, lower-case hex.
    let token: String
    // The bound port (known only once listening when 0 was asked for); guarded by `lock`.
    private var boundPort: Int
    private let lock = NSLock()

    init(token: String = WebGate.randomToken(), port: Int) {
        self.token = token
        self.boundPort = port
    }

    var port: Int {
        get { lock.withLock { boundPort } }
        set { lock.withLock { boundPort = newValue } }
    }

    static func randomToken() -> String {
        var rng = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &rng)) }.joined()
    }

    /// The hosts this server answers to.
    var allowedHosts: Set<String> { ["127.0.0.1:\(port)", "localhost:\(port)"] }

    /// The page's own origins.
    var allowedOrigins: Set<String> { ["http://127.0.0.1:\(port)", "http://localhost:\(port)"] }

    /// Why a request is refused, or nil when it may pass. `origin` may be absent for a top-level
    /// page load; a WebSocket must carry one (browsers always send it).
    func refusal(host: String?, origin: String?, token candidate: String?, requireOrigin: Bool) -> String? {
        guard let host, allowedHosts.contains(host.lowercased()) else { return "unexpected Host" }
        if let origin {
            guard allowedOrigins.contains(origin.lowercased()) else { return "foreign Origin" }
        } else if requireOrigin {
            return "missing Origin"
        }
        guard let candidate, Self.constantTimeEqual(candidate, token) else { return "missing or wrong token" }
        return nil
    }

    /// Compares without an early exit, so the time taken does not reveal a matching prefix.
    static func constantTimeEqual(_ lhs: String, _ rhs: String) -> Bool {
        let a = Array(lhs.utf8)
        let b = Array(rhs.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
