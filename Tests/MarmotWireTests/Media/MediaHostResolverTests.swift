import Foundation
import Testing
@testable import MarmotWire

/// A media URL's host name is resolved before a download and every address must be public
/// (`MediaURLPolicy.checkResolved`, issue 28).
struct MediaHostResolverTests {
    static func resolver(_ table: [String: [[UInt8]]]) -> MediaHostResolver {
        MediaHostResolver { table[$0] }
    }

    static let url = URL(string: "https://blobs.example.org/abc")!

    @Test func aNameWithOnlyPublicAddressesPasses() async throws {
        let policy = MediaURLPolicy(ownServers: [])
        try await policy.checkResolved(Self.url, resolver: Self.resolver([
            "blobs.example.org": [[93, 184, 216, 34], [0x26, 0x06, 0x28, 0, 0x02, 0x20, 0, 1, 0x02, 0x48, 0x18, 0x93, 0x25, 0xc8, 0x19, 0x46]],
        ]))
    }

    /// One private address among public ones is enough to refuse (the HTTP stack may pick any).
    @Test(arguments: [
        [[UInt8]]([[127, 0, 0, 1]]), [[93, 184, 216, 34], [10, 0, 0, 7]], [[169, 254, 169, 254]],
        [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]], [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 1, 1]],
    ])
    func aNameWithAPrivateAddressIsRefused(_ addresses: [[UInt8]]) async {
        let policy = MediaURLPolicy(ownServers: [])
        await #expect(throws: MediaError.self) {
            try await policy.checkResolved(Self.url, resolver: Self.resolver(["blobs.example.org": addresses]))
        }
    }

    @Test func aNameThatDoesNotResolveIsRefused() async {
        let policy = MediaURLPolicy(ownServers: [])
        await #expect(throws: MediaError.self) { try await policy.checkResolved(Self.url, resolver: Self.resolver([:])) }
    }

    /// The user's own server and address literals (checked by `check` already) are not looked up.
    @Test func ownServersAndAddressLiteralsAreNotLookedUp() async throws {
        let never = MediaHostResolver { host in
            Issue.record("looked up \(host)")
            return nil
        }
        let own = URL(string: "http://blobs.home.lan:3000")!
        try await MediaURLPolicy(ownServers: [own]).checkResolved(URL(string: "http://blobs.home.lan:3000/abc")!, resolver: never)
        try await MediaURLPolicy(ownServers: []).checkResolved(URL(string: "https://93.184.216.34/abc")!, resolver: never)
        await #expect(throws: MediaError.self) {
            try await MediaURLPolicy(ownServers: []).checkResolved(URL(string: "http://10.1.2.3/abc")!, resolver: never)
        }
    }

    /// The system resolver (getaddrinfo) reads names as the HTTP stack will: `localhost` gives only
    /// loopback addresses, which the public-address rule refuses.
    @Test func theSystemResolverFindsLoopbackForLocalhost() async throws {
        let addresses = try #require(await MediaHostResolver.system.addresses("localhost"))
        #expect(!addresses.isEmpty)
        for address in addresses {
            #expect(address.count == 4 ? !MediaURLPolicy.isPublicIPv4(address) : !MediaURLPolicy.isPublicIPv6(address))
        }
    }
}
