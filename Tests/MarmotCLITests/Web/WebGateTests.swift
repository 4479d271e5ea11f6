import Foundation
import Testing

@testable import MarmotCLI

/// `marmot web` answers only to its own page: the token, the Host and the Origin are all required.
@Suite("Web gate")
struct WebGateTests {
    let gate = WebGate(port: 8787)

    @Test("The page's own requests pass")
    func ownPagePasses() {
        #expect(gate.refusal(host: "127.0.0.1:8787", origin: nil, token: gate.token, requireOrigin: false) == nil)
        #expect(gate.refusal(host: "localhost:8787", origin: "http://localhost:8787", token: gate.token, requireOrigin: true) == nil)
    }

    @Test("A cross-site page without the token is refused (CSRF)")
    func refusesMissingOrWrongToken() {
        #expect(gate.refusal(host: "127.0.0.1:8787", origin: nil, token: nil, requireOrigin: false) != nil)
        let guessed = String(repeating: "0", count: 64)
        #expect(gate.refusal(host: "127.0.0.1:8787", origin: nil, token: guessed, requireOrigin: false) != nil)
        #expect(gate.refusal(host: "127.0.0.1:8787", origin: nil, token: String(gate.token.dropLast()), requireOrigin: false) != nil)
    }

    @Test("DNS rebinding: a foreign Host is refused even with the token")
    func refusesForeignHost() {
        #expect(gate.refusal(host: "evil.example:8787", origin: nil, token: gate.token, requireOrigin: false) != nil)
        #expect(gate.refusal(host: nil, origin: nil, token: gate.token, requireOrigin: false) != nil)
    }

    @Test("Cross-site WebSocket hijacking: a foreign or missing Origin is refused")
    func refusesForeignOrigin() {
        #expect(gate.refusal(host: "127.0.0.1:8787", origin: "http://evil.example", token: gate.token, requireOrigin: true) != nil)
        #expect(gate.refusal(host: "127.0.0.1:8787", origin: nil, token: gate.token, requireOrigin: true) != nil)
    }

    @Test("Tokens are random and 64 hex digits")
    func tokens() {
        let token = WebGate.randomToken()
        #expect(token.count == 64 && token.allSatisfy(\.isHexDigit))
        #expect(token != WebGate.randomToken())
    }
}
