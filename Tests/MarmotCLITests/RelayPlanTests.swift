import Foundation
import Nostr
import Testing

/// Which relays a command uses: `--relay` > `MARMOT_RELAYS` > `$MARMOT_HOME/relays` > embedded.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct RelayPlanTests {
    @Test func optionBeatsEnvironmentBeatsFile() async throws {
        let home = try TestHome("relays")
        defer { home.remove() }
        let keys = Keys.generate()
        // No relay configured: the embedded one is started and announced in one stderr line.
        let imported = try await CLI.run(["account", "import", "--json"], home: home, stdin: keys.secretKey.nsecEncoded())
        #expect(imported.status == 0, "\(imported)")
        #expect(try imported.object()["embeddedRelay"] as? Bool == true)
        let status = imported.stderr.split(separator: "\n").filter { $0.contains("embedded relay") }
        #expect(status.count == 1 && status.first?.contains("ws://127.0.0.1:") == true, "\(imported)")

        try "# my relays\nws://file.example:7000\n\nwss://file2.example\n".write(
            to: home.url.appendingPathComponent("relays"), atomically: true, encoding: .utf8)
        let fromFile = try await CLI.run(["account", "show", "--json"], home: home)
        #expect(try fromFile.object()["relays"] as? [String] == ["ws://file.example:7000", "wss://file2.example"])

        let fromEnvironment = try await CLI.run(
            ["account", "show", "--json"], home: home, environment: ["MARMOT_RELAYS": "ws://env.example:1, ws://env2.example:2"])
        #expect(try fromEnvironment.object()["relays"] as? [String] == ["ws://env.example:1", "ws://env2.example:2"])

        let fromOption = try await CLI.run(
            ["account", "show", "--json", "--relay", "ws://opt.example:3", "--relay", "ws://opt2.example:4"], home: home,
            environment: ["MARMOT_RELAYS": "ws://env.example:1"])
        #expect(try fromOption.object()["relays"] as? [String] == ["ws://opt.example:3", "ws://opt2.example:4"])
        #expect(try fromOption.object()["embeddedRelay"] as? Bool == false)
    }
}
