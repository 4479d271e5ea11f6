import Foundation
import Nostr
import NostrRelay
import TestSupport
import Testing
@testable import Marmot

/// Profile names (kind 0) are fetched, cached and sanitized: untrusted text from strangers.
@Suite(.serialized) struct ProfileTests {
    @Test func namesAreSanitizedAndNeverPoseAsKeys() {
        #expect(Profile.sanitize("  Bob\n the\tBuilder ") == "Bob the Builder")
        #expect(Profile.sanitize("Eve\u{202E}gnp.exe\u{0007}") == "Evegnp.exe")
        #expect(Profile.sanitize(String(repeating: "x", count: 500))?.count == Profile.maxLength)
        #expect(Profile.sanitize(Keys.generate().publicKey.npub) == nil)
        #expect(Profile.sanitize("npub1abcd…wxyz") == nil)
        #expect(Profile.sanitize("Alice npub1abcd") == nil)
        #expect(Profile.sanitize(Keys.generate().publicKey.hex) == nil)
        #expect(Profile.sanitize("\u{200B}\u{200B}") == nil)
        #expect(Profile(name: "ok", picture: "javascript:alert(1)", updatedAt: 1).picture == nil)
    }

    /// Bob publishes his name; Alice fetches it from the relay, caches it across a restart, and a
    /// stranger's older or malformed kind 0 does not replace it.
    @Test func peerNameIsFetchedCachedAndKeptNewest() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        var alice = try await TestAccount("alice", relayURLs: [url])
        let bob = try await TestAccount("bob", relayURLs: [url])
        let published = try await bob.client.publishProfile(name: "Bob Builder")
        #expect(published.shownName == "Bob Builder")
        await #expect(throws: MarmotClientError.self) { _ = try await bob.client.publishProfile(name: "npub1fake") }

        let changed = await alice.client.refreshProfiles(of: [bob.publicKey])
        #expect(changed[bob.publicKey]?.shownName == "Bob Builder")
        alice = try await alice.restarted()
        #expect(await alice.client.cachedProfile(of: bob.publicKey)?.shownName == "Bob Builder")

        let older = try UnsignedEvent(pubkey: bob.publicKey, createdAt: published.updatedAt - 100, kind: .metadata, tags: [],
                                      content: #"{"name":"Old Name"}"#).signed(with: bob.keys)
        #expect(try await RelayReads.publish(older, to: url).isAccepted || true)
        #expect(await alice.client.refreshProfiles(of: [bob.publicKey]).isEmpty)
        #expect(await alice.client.cachedProfile(of: bob.publicKey)?.shownName == "Bob Builder")
        await alice.shutdown()
        await bob.shutdown()
        await server.stop()
    }

    /// A profile set in another client (picture, about, nip05, lud16, an unknown field) survives a
    /// name change made here (v2 conformance review N7: kind 0 is replaced whole).
    @Test func changingTheNameKeepsEveryOtherField() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let bob = try await TestAccount("bob", relayURLs: [url])
        let elsewhere = #"{"name":"bob","picture":"https://example.com/b.png","about":"builder","nip05":"bob@example.com","lud16":"bob@ln.example","x_custom":{"a":1}}"#
        let set = try UnsignedEvent(
            pubkey: bob.publicKey, createdAt: UnsignedEvent.now() - 10, kind: .metadata, tags: [], content: elsewhere
        ).signed(with: bob.keys)
        #expect(try await RelayReads.publish(set, to: url).isAccepted)
        _ = try await bob.client.publishProfile(name: "Bob Builder")
        let events = try await RelayReads.fetch(Filter(authors: [bob.publicKey], kinds: [.metadata]), from: url)
        let newest = try #require(events.max { $0.createdAt < $1.createdAt })
        let object = try #require(try JSONValue.parse(newest.content).objectValue)
        #expect(object["name"]?.stringValue == "Bob Builder")
        #expect(object["display_name"]?.stringValue == "Bob Builder")
        #expect(object["picture"]?.stringValue == "https://example.com/b.png")
        #expect(object["about"]?.stringValue == "builder")
        #expect(object["nip05"]?.stringValue == "bob@example.com")
        #expect(object["lud16"]?.stringValue == "bob@ln.example")
        #expect(object["x_custom"]?.objectValue?["a"] != nil)
        // A kind 0 whose content is not an object is replaced.
        #expect(Set(try #require(try JSONValue.parse(Profile.content(name: "n", existing: "[1]")).objectValue).keys) == ["name", "display_name"])
        await bob.shutdown()
        await server.stop()
    }
}
