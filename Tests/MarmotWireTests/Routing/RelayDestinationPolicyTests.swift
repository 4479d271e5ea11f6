import Foundation
import Testing
@testable import MarmotWire

/// Which URLs from others may be contacted (issue 26): local networks only when ours are on them,
/// no plaintext to public hosts, every spelling of an address classified as what it reaches.
@Suite struct RelayDestinationPolicyTests {
    static func url(_ text: String) throws -> RelayURL { try RelayURL(text) }

    @Test func localAddressesAreRefusedForAUserOnPublicRelays() throws {
        let policy = RelayDestinationPolicy(own: [try Self.url("wss://relay.example.com")])
        let refused: [(String, RelayDestinationPolicy.NetworkClass)] = [
            ("ws://127.0.0.1:631/admin", .loopback), ("wss://127.9.9.9", .loopback), ("ws://localhost:7777", .loopback),
            ("ws://relay.localhost", .loopback), ("ws://[::1]:80", .loopback),
            ("ws://[::ffff:127.0.0.1]:80", .loopback), ("ws://[::ffff:7f00:1]:80", .loopback),
            ("ws://2130706433:80", .loopback), ("ws://0x7f.1:80", .loopback), ("ws://127.1:80", .loopback),
            ("wss://10.0.0.1", .privateNetwork), ("wss://172.16.5.4", .privateNetwork), ("wss://172.31.255.255", .privateNetwork),
            ("ws://192.168.1.10:4444", .privateNetwork), ("wss://100.64.0.1", .privateNetwork), ("wss://[fd00::1]", .privateNetwork),
            ("wss://[::ffff:192.168.0.1]", .privateNetwork),
            ("ws://169.254.169.254/latest/meta-data", .linkLocal), ("wss://[fe80::1]", .linkLocal),
            ("wss://printer.local", .mDNS), ("wss://printer.local.", .mDNS),
            ("ws://0.0.0.0:7777", .unspecified), ("ws://[::]:7777", .unspecified),
        ]
        for (text, network) in refused {
            #expect(policy.refusal(try Self.url(text)) == .localNetwork(network), "\(text)")
        }
        for text in ["wss://relay.damus.io", "wss://8.8.8.8", "wss://172.32.0.1", "wss://[2001:db8::1]", "wss://100.128.0.1"] {
            #expect(policy.allows(try Self.url(text)), "\(text)")
        }
    }

    @Test func plaintextToAPublicHostIsRefusedUnlessOneOfOursIsPlaintext() throws {
        let secure = RelayDestinationPolicy(own: [try Self.url("wss://relay.example.com")])
        #expect(secure.refusal(try Self.url("ws://relay.damus.io")) == .plaintextPublic)
        #expect(secure.refusal(try Self.url("ws://8.8.8.8:80")) == .plaintextPublic)
        let plain = RelayDestinationPolicy(own: [try Self.url("ws://relay.example.com")])
        #expect(plain.allows(try Self.url("ws://relay.damus.io")))
        #expect(RelayDestinationPolicy(own: [], allowsPlaintextPublic: true).allows(try Self.url("ws://relay.damus.io")))
    }

    @Test func aNetworkOurOwnRelaysAreOnIsAllowed() throws {
        let loopback = RelayDestinationPolicy(own: [try Self.url("ws://127.0.0.1:7777")])
        #expect(loopback.ownNetworks == [.loopback])
        #expect(loopback.allows(try Self.url("ws://127.0.0.1:9999")))
        #expect(loopback.allows(try Self.url("ws://localhost:1")))
        #expect(loopback.refusal(try Self.url("ws://192.168.1.10:4444")) == .localNetwork(.privateNetwork))
        #expect(loopback.refusal(try Self.url("ws://0.0.0.0:7777")) == .localNetwork(.unspecified), "never, whatever ours are")
        let lan = RelayDestinationPolicy(own: [try Self.url("ws://192.168.1.2:7777")])
        #expect(lan.allows(try Self.url("ws://10.1.2.3:7777")))
        #expect(lan.refusal(try Self.url("ws://127.0.0.1:631")) == .localNetwork(.loopback))
    }

    @Test func filterDeduplicatesCapsAndReportsEachRefusal() throws {
        let policy = RelayDestinationPolicy(own: [try Self.url("wss://own.example")])
        let input = try ["wss://a.example", "wss://a.example/", "ws://127.0.0.1:1", "wss://b.example", "wss://c.example", "wss://d.example"]
            .map(Self.url)
        var refused: [String] = []
        let kept = policy.filter(input, limit: 3) { url, _ in refused.append(url.string) }
        #expect(kept.map(\.string) == ["wss://a.example", "wss://b.example", "wss://c.example"])
        #expect(refused == ["ws://127.0.0.1:1"])
    }

    @Test func loggedURLsAreCleanedAndBounded() throws {
        let long = try Self.url("wss://relay.example.com/" + String(repeating: "a", count: 500))
        #expect(RelayDestinationPolicy.loggable(long).count == 120)
    }
}
